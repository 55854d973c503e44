// Package adaptertest holds the client side shared by the adapters' tests
// (runtime/gosdk, runtime/mcpgo): a real mcpclient connection, a bounded
// call, scripted answers and a bounded wait for what a handler's Elicit
// returned; and PrintCall, the client of the Example functions of runtime
// and its adapters.
package adaptertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// Versions are the protocol versions both adapters serve.
var Versions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// Connect opens a client on url speaking version; a non-nil onElicit also
// declares the elicitation capability. The client closes with the test.
func Connect(t *testing.T, url, version string, onElicit mcpclient.ElicitHandler) *mcpclient.Client {
	t.Helper()
	opts := mcpclient.Options{URL: url, Protocol: version, OnElicit: onElicit}
	if onElicit != nil {
		opts.Capabilities.Elicitation = &mcpclient.ElicitationCapability{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Call calls tool without arguments, bounded in time.
func Call(t *testing.T, c *mcpclient.Client, tool string) (*mcpclient.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.CallTool(ctx, tool, nil)
}

// Names answers successive elicitations by accepting {"name": names[i]}.
func Names(names ...string) mcpclient.ElicitHandler {
	return func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
		n := names[0]
		names = names[1:]
		return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"` + n + `"}`)}, nil
	}
}

// Next returns what a handler reported on errs, failing the test if none
// arrives within 10 s.
func Next(t *testing.T, errs <-chan error) error {
	t.Helper()
	select {
	case err := <-errs:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never finished its Elicit")
		return nil
	}
}

// CallerGivesUp checks that the caller giving up while the user thinks ends
// the handler's Elicit with the context's error. url serves the tool "ask",
// whose handler reports its Elicit's error on errs.
func CallerGivesUp(t *testing.T, url string, errs <-chan error) {
	t.Helper()
	asked := make(chan struct{})
	c := Connect(t, url, "2025-11-25", func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		return mcpclient.ElicitResult{}, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "ask", nil)
		done <- err
	}()
	<-asked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v", err)
	}
	if err := Next(t, errs); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler: %v, want context.Canceled", err)
	}
}

// URLOnlyClientGetsNoForm checks that a client that declared only URL-mode
// elicitation is never sent a form (same "ask" tool as CallerGivesUp).
func URLOnlyClientGetsNoForm(t *testing.T, url string, errs <-chan error) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := mcpclient.Connect(ctx, mcpclient.Options{URL: url, Protocol: v,
				Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{URL: true}},
				OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
					t.Error("a form was sent to a URL-only client")
					return mcpclient.ElicitResult{Action: "cancel"}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.CallTool(ctx, "ask", nil); err != nil {
				t.Fatal(err)
			}
			if err := Next(t, errs); !errors.Is(err, runtime.ErrElicitUnsupported) {
				t.Fatalf("got %v, want ErrElicitUnsupported", err)
			}
		})
	}
}

// UnsolicitedAnswersIgnored checks that on 2026-07-28 only answers to the
// questions asked count: inputResponses on a first request (no
// requestState) and, on a retry, for a key the last round did not ask are
// ignored, and the form is asked. url serves the tool "twice", which asks
// under the keys "first" and then "second".
func UnsolicitedAnswersIgnored(t *testing.T, url string) {
	t.Helper()
	c := Connect(t, url, "2026-07-28", Names("unused"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	both := map[string]any{
		"first":  map[string]any{"action": "accept", "content": map[string]any{"name": "Eve"}},
		"second": map[string]any{"action": "accept", "content": map[string]any{"name": "Mallory"}},
	}
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	call := func(params map[string]any, wantKey string) {
		t.Helper()
		params["name"], params["arguments"] = "twice", map[string]any{}
		raw, err := c.Call(ctx, "tools/call", params)
		if err != nil {
			t.Fatal(err)
		}
		res.InputRequests = nil
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		if _, ok := res.InputRequests[wantKey]; res.ResultType != "input_required" || len(res.InputRequests) != 1 || !ok {
			t.Fatalf("want %q asked, got %s", wantKey, raw)
		}
	}
	call(map[string]any{"inputResponses": both}, "first")
	call(map[string]any{"inputResponses": both, "requestState": res.RequestState}, "second")
}

// CanTool is the text the tool "can" answers: what the adapter's
// ClientSupportsElicit and CanElicit[T] said in the handler, for NameForm
// and for FamiliesForm (a multi-select, which 2025-06-18 cannot express).
func CanTool(supports bool, name, families error) string {
	verdict := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, runtime.ErrElicitUnsupported):
			return "unsupported"
		case errors.Is(err, runtime.ErrNoCall):
			return "nocall"
		}
		return "other: " + err.Error()
	}
	return fmt.Sprintf("supports=%v name=%s families=%s", supports, verdict(name), verdict(families))
}

// CapabilityChecks calls the tool "can" (see CanTool) of srv with and
// without the elicitation capability on every version: the adapter's
// capability checks must agree with the runtime's.
func CapabilityChecks(t *testing.T, srv *elicittest.Server) {
	t.Helper()
	for _, v := range Versions {
		srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.NoElicitation}).Call(t, "can", nil).
			WantText(t, "supports=false name=unsupported families=unsupported")
		want := map[bool]string{true: "supports=true name=ok families=unsupported", false: "supports=true name=ok families=ok"}[v == "2025-06-18"]
		srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.FormOnly}).Call(t, "can", nil).WantText(t, want)
	}
}

// PrintCall is the client side of the Example functions: it connects to url
// speaking version (declaring elicitation when onElicit is set), calls tool
// without arguments and prints the result's text, marked "(isError)" when
// it is one, or the error.
func PrintCall(url, version, tool string, onElicit mcpclient.ElicitHandler) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := mcpclient.Options{URL: url, Protocol: version, OnElicit: onElicit}
	if onElicit != nil {
		opts.Capabilities.Elicitation = &mcpclient.ElicitationCapability{}
	}
	c, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, tool, nil)
	switch {
	case err != nil:
		fmt.Println(err)
	case res.IsError:
		fmt.Println(strings.Join(res.Lines(), ""), "(isError)")
	default:
		fmt.Println(strings.Join(res.Lines(), ""))
	}
}

// WantPanic checks that register panics with a string that contains each
// of want (the fix in the text of a registration mistake).
func WantPanic(t *testing.T, register func(), want ...string) {
	t.Helper()
	defer func() {
		t.Helper()
		v := recover()
		text, ok := v.(string)
		if !ok {
			t.Errorf("panicked with %v (%T), want a string", v, v)
			return
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("panic %q does not say %q", text, w)
			}
		}
	}()
	register()
}

// AskAll is the handler body of the adapters' sampling tests: it asks the
// user (testform.NameForm), the model and the roots together and returns
// "name|text|model|root", or what asking returned.
func AskAll(ctx context.Context) (string, error) {
	var name testform.NameForm
	var msg *runtime.SampleResult
	var roots []runtime.Root
	err := runtime.AskTogether(ctx,
		func(ctx context.Context) (err error) {
			name, err = runtime.Elicit[testform.NameForm](ctx, "Who?")
			return err
		},
		func(ctx context.Context) (err error) {
			msg, err = runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 10, Messages: []runtime.SamplingMessage{
				{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "Greet"}}}}})
			return err
		},
		func(ctx context.Context) (err error) { roots, err = runtime.ListRoots(ctx); return err },
	)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%s|%s|%s", name.Name, msg.Content[0].Text, msg.Model, roots[0].URI), nil
}
