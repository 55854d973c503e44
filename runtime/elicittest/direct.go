package elicittest

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
)

// Handle calls the tool handler h with the arguments in and answers its
// elicitations with answers, in order, once on each protocol version
// ([Protocols], oldest first), and returns the results. Its Want methods
// check every version's result:
//
//	elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.Decline()).
//		WantError(t, "not deployed: elicit: declined by the user")
//
// h is called the way a server calls it, because one does: Handle serves h
// as the one tool of an in-process *runtime.Server over stdio (pipes, no
// network) and calls it from a client of each version that declares
// elicitation, so the ctx and the request h gets are those of a real call
// and Elicit[T], CanElicit[T], ElicitURL, req.Progress and req.Log work as
// in production. On 2026-07-28 h runs once per input_required round (its
// work before an Elicit must be safe to repeat, as there). The tool is
// named after h's function (req.Name, and the failure messages), and in
// reaches h as is: req.Arguments is its JSON, but runtime.AddTool's
// decoding and argument checks do not run (call the tool through a
// [Server] to test those). Everything Handle starts has stopped when it
// returns. A panic in h fails the test with its value and stack; the call
// gets the internal error a server answers.
//
// A handler called by hand instead, h(context.Background(),
// &runtime.CallToolRequest{}, in), has no call to ask in: Elicit[T],
// CanElicit[T], ElicitSchema and ElicitURL return runtime.ErrNoCall, whose
// text says to pass the handler's ctx, ClientSupportsElicit is false, and
// req.Progress and req.Log do nothing; none of them panics.
func Handle[In any](t testing.TB, h func(context.Context, *runtime.CallToolRequest, In) (*runtime.CallToolResult, error), in In, answers ...Answer) Results {
	t.Helper()
	if h == nil {
		t.Fatal("elicittest: Handle: nil handler: pass the tool's handler function")
		return nil
	}
	args, err := json.Marshal(in) // in is a value, never JSON text
	if err != nil {
		t.Errorf("elicittest: Handle: arguments %T: %v; nothing was called", in, err)
		return nil
	}
	return handle(t, funcName(h), func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return h(ctx, req, in)
	}, json.RawMessage(args), answers)
}

// HandleTool is [Handle] for a runtime.ToolHandler, whose arguments (nil
// for none) are given as to [Client.Call]: a value marshalled to a JSON
// object, or JSON as a string, []byte or json.RawMessage. h reads them
// from req.Arguments.
func HandleTool(t testing.TB, h runtime.ToolHandler, args any, answers ...Answer) Results {
	t.Helper()
	if h == nil {
		t.Fatal("elicittest: HandleTool: nil handler: pass the tool's runtime.ToolHandler")
		return nil
	}
	return handle(t, funcName(h), h, args, answers)
}

// HandleServed is [Handle] for a handler of another MCP library, for the
// test helpers of the adapters (runtime/gosdk/gosdktest,
// runtime/mcpgo/mcpgotest), which build on it and keep elicittest free of
// those libraries: serve returns the Streamable HTTP handler of a server
// whose one tool, named tool, runs h. HandleServed names the tool after h's
// function, serves it on loopback, calls it over HTTP once on each
// protocol version ([Protocols]) with args (as given to [Client.Call])
// and answers, and returns the results; everything it starts has stopped
// when it returns.
func HandleServed(t testing.TB, h any, serve func(tool string) http.Handler, args any, answers ...Answer) Results {
	t.Helper()
	if h == nil || reflect.ValueOf(h).Kind() != reflect.Func || reflect.ValueOf(h).IsNil() || serve == nil {
		t.Fatal("elicittest: HandleServed: give it the handler function and a serve function")
		return nil
	}
	name := funcName(h)
	hh := serve(name)
	if hh == nil {
		t.Fatalf("elicittest: HandleServed: serve(%q) returned no http.Handler", name)
		return nil
	}
	s, stop := newServer(hh)
	defer stop()
	return callEach(t, s, HTTP, name, args, answers)
}

// handle serves h as the tool name of a fresh runtime server and calls it
// over stdio once per protocol version.
func handle(t testing.TB, name string, h runtime.ToolHandler, args any, answers []Answer) Results {
	t.Helper()
	rt := runtime.NewServer(runtime.Options{Name: "elicittest", Version: "1"})
	rt.AddTool(runtime.Tool{Name: name}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		defer func() {
			if v := recover(); v != nil {
				t.Errorf("elicittest: %q on %s panicked: %v\n%s", name, req.Session.ProtocolVersion(), v, debug.Stack())
				panic(v) // the server answers with an internal error, as in production
			}
		}()
		return h(ctx, req)
	})
	return callEach(t, &Server{rt: rt}, Stdio, name, args, answers)
}

// callEach calls the tool name of s over transport once per protocol
// version, each from a fresh client, closed before the next.
func callEach(t testing.TB, s *Server, transport, name string, args any, answers []Answer) Results {
	t.Helper()
	raw, err := argsJSON(args)
	if err != nil {
		t.Errorf("elicittest: %q: %v; nothing was called", name, err)
		return nil
	}
	var results Results
	for _, version := range Protocols() {
		c, closeClient := s.connect(t, Conn{Protocol: version, Transport: transport})
		if c == nil {
			return results
		}
		results = append(results, c.Call(t, name, raw, answers...))
		closeClient()
	}
	return results
}

// funcName names a handler's tool after its function: "deploy.Deploy",
// "mypkg.TestX.func1", "mypkg.T.Method"; "handler" when it has no usable
// name. Tool names
// are kept to the characters MCP allows in them.
func funcName(h any) string {
	f := goruntime.FuncForPC(reflect.ValueOf(h).Pointer())
	if f == nil {
		return "handler"
	}
	name := f.Name()
	name = name[strings.LastIndex(name, "/")+1:]
	name = strings.TrimSuffix(name, "-fm")                                           // a method value
	name = strings.NewReplacer("[...]", "", "(", "", ")", "", "*", "").Replace(name) // a generic instance, a pointer receiver
	name = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if name == "" || len(name) > 128 {
		return "handler"
	}
	return name
}

// Results are the results of one [Handle], one per protocol version,
// oldest first. Each Want method calls the [Result]'s of the same name on
// every one of them, so a failure names the version it happened on.
type Results []*Result

// WantText fails the test unless every result is a success whose text is
// want.
func (rs Results) WantText(t testing.TB, want string) {
	t.Helper()
	rs.each(t, func(r *Result) { t.Helper(); r.WantText(t, want) })
}

// WantError fails the test unless every result is an isError result whose
// text contains substr.
func (rs Results) WantError(t testing.TB, substr string) {
	t.Helper()
	rs.each(t, func(r *Result) { t.Helper(); r.WantError(t, substr) })
}

// WantRPCError fails the test unless every call got a JSON-RPC error
// response with code.
func (rs Results) WantRPCError(t testing.TB, code int) {
	t.Helper()
	rs.each(t, func(r *Result) { t.Helper(); r.WantRPCError(t, code) })
}

// WantStructured fails the test unless every result's structuredContent
// is the JSON value want marshals to.
func (rs Results) WantStructured(t testing.TB, want any) {
	t.Helper()
	rs.each(t, func(r *Result) { t.Helper(); r.WantStructured(t, want) })
}

// WantAsked fails the test unless every call asked exactly these
// messages, in this order.
func (rs Results) WantAsked(t testing.TB, messages ...string) {
	t.Helper()
	rs.each(t, func(r *Result) { t.Helper(); r.WantAsked(t, messages...) })
}

func (rs Results) each(t testing.TB, f func(*Result)) {
	t.Helper()
	if len(rs) == 0 {
		t.Errorf("elicittest: a Want method on no Results: use the ones Handle returns")
		return
	}
	for _, r := range rs {
		f(r)
	}
}
