package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultRequestStateTTL is how long a 2026-07-28 client may take to retry
// after an input_required result when Options.RequestStateTTL is zero.
const DefaultRequestStateTTL = runtime.DefaultRequestStateTTL

// Options configure an Adapter.
type Options struct {
	// RequestStateKeys seal the requestState of 2026-07-28 input_required
	// results (AES-256-GCM, 32 bytes each). The first key seals, every key
	// opens: give every replica the same list, and rotate by prepending.
	// Empty: one random key per process, so a retry must reach the same
	// process that asked.
	RequestStateKeys [][]byte
	// RequestStateTTL is how long a client may take to retry after an
	// input_required result (default DefaultRequestStateTTL).
	RequestStateTTL time.Duration
}

// Adapter adds typed elicitation to one go-sdk server. Register the tools
// that elicit through it (AddTool, Adapter.AddTool or Adapter.Handler). Make
// it with New: an Adapter used without it has no server, so AddTool and
// Adapter.AddTool register nothing and the handlers of Adapter.Handler fail
// with an error saying to call New.
type Adapter struct {
	server *mcp.Server
	states *roundtrip.Codec
	listed sync.Map // tool name → the inputSchema of a tool that asks for missing arguments
}

// New returns the adapter for s and installs on s the sending middleware
// that lets Elicit validate answers itself (see the package doc). The zero
// Options are usable. It fails on a nil server and on a bad
// RequestStateKeys entry.
func New(s *mcp.Server, opts Options) (*Adapter, error) {
	if s == nil {
		return nil, errors.New("elicit: gosdk.New needs a server: pass the *mcp.Server made by mcp.NewServer")
	}
	states, err := adapter.NewCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	if err != nil {
		return nil, err
	}
	s.AddSendingMiddleware(captureAnswers)
	a := &Adapter{server: s, states: states}
	s.AddReceivingMiddleware(a.listSchemas)
	return a, nil
}

// errNotAdapted is runtime.ErrNoCall with this adapter's fix.
var errNotAdapted = adapter.NotAdapted("gosdk.AddTool, Adapter.AddTool or Adapter.Handler")

// errNoAdapter is what the handlers of an Adapter not made by New return.
var errNoAdapter = errors.New("elicit: this gosdk.Adapter was not made by gosdk.New: make it with gosdk.New(server, gosdk.Options{})")

// Server is the go-sdk server the adapter was made for (nil for an Adapter
// not made by New).
func (a *Adapter) Server() *mcp.Server {
	if a == nil {
		return nil
	}
	return a.server
}

// usable reports whether a was made by New.
func (a *Adapter) usable() bool { return a != nil && a.server != nil && a.states != nil }

// AddTool registers a typed tool whose handler may call Elicit; it is
// mcp.AddTool with the adapter's wrapping. A nil tool, or an Adapter not
// made by New, registers nothing; a nil handler registers a tool whose
// calls fail with an error saying so.
//
// opts are runtime.AddTool's: with runtime.AskMissing and arguments of a
// generated form type, the required arguments a call left out are asked
// for before h runs (see runtime.AskMissing; for another In the option
// does nothing). Such a tool's arguments are decoded by the form's
// generated decoder instead of the go-sdk's schema validation, and its
// inputSchema is t.InputSchema, else the form's.
func AddTool[In, Out any](a *Adapter, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...runtime.ToolOption) {
	if !a.usable() || t == nil {
		return
	}
	if args := askingArgs[In](t, opts); args != nil {
		addAsking(a, t, args, h)
		return
	}
	a.listed.Delete(t.Name)
	mcp.AddTool(a.server, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		return serve(ctx, a, t.Name, h == nil, req, func(ctx context.Context, _ *call) (*mcp.CallToolResult, Out, error) {
			return h(ctx, req, in)
		})
	})
}

// serve runs the body of a tool's call with the adapter's wrapping: the
// call in ctx, and its input_required result on 2026-07-28. It fails, and
// body does not run, when the tool's handler is nil (nilH) or ctx is nil.
// Adapter.Handler serves raw handlers through it with Out struct{}.
func serve[Out any](ctx context.Context, a *Adapter, tool string, nilH bool, req *mcp.CallToolRequest,
	body func(ctx context.Context, c *call) (*mcp.CallToolResult, Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	if nilH {
		return nil, zero, nilHandler(tool)
	}
	if ctx == nil {
		return nil, zero, errors.New("elicit: gosdk: the tool handler was called with a nil context")
	}
	c, err := a.begin(req)
	if err != nil {
		return nil, zero, err
	}
	res, out, herr := body(context.WithValue(ctx, callKey{}, c), c)
	if ir, err := c.end(herr); ir != nil || err != nil {
		return ir, zero, err
	}
	return res, out, herr
}

// askingArgs is the decoder of a tool that asks for its missing arguments
// or has an inputSchema of its own (which the decoder checks, every
// failing property named and formats included, as runtime.AddTool does),
// or nil: the go-sdk checks the schema it infers from In.
func askingArgs[In any](t *mcp.Tool, opts []runtime.ToolOption) *runtime.ToolArgs[In] {
	if len(opts) == 0 && t.InputSchema == nil {
		return nil
	}
	var own json.RawMessage
	if t.InputSchema != nil {
		raw, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil // mcp.AddTool reports the schema
		}
		own = raw
	}
	args, _ := runtime.NewToolArgs[In](t.Name, own, opts...)
	if !args.Asks() && own == nil {
		return nil // the go-sdk checks the schema it infers
	}
	return args
}

// ownDefaults returns what fills in the defaults of t's own inputSchema
// in a call's arguments, as the go-sdk does before it checks them
// (jsonschema-go's ApplyDefaults); arguments pass unchanged when the
// schema has none, or is not t's own.
func ownDefaults(t *mcp.Tool) func(json.RawMessage) json.RawMessage {
	same := func(raw json.RawMessage) json.RawMessage { return raw }
	if t.InputSchema == nil {
		return same
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil || !bytes.Contains(raw, []byte(`"default"`)) {
		return same
	}
	var schema jsonschema.Schema
	if json.Unmarshal(raw, &schema) != nil {
		return same
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		return same // the arguments' check reports the schema
	}
	return func(raw json.RawMessage) json.RawMessage {
		m := map[string]any{}
		if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &m) != nil || m == nil {
			return raw // the arguments' check reports them
		}
		if rs.ApplyDefaults(&m) != nil {
			return raw
		}
		filled, err := json.Marshal(m)
		if err != nil {
			return raw
		}
		return filled
	}
}

// addAsking registers a tool that asks for its missing arguments. The
// go-sdk would refuse a call without them before the handler runs, so the
// tool is registered with the schema {"type":"object"}, the generated
// decoder checks the arguments, and tools/list shows the real schema
// (listSchemas). The go-sdk still handles Out (outputSchema, structured
// content).
func addAsking[In, Out any](a *Adapter, t *mcp.Tool, args *runtime.ToolArgs[In], h mcp.ToolHandlerFor[In, Out]) {
	loose := *t
	loose.InputSchema = map[string]any{"type": "object"}
	a.listed.Store(t.Name, args.InputSchema())
	fill := ownDefaults(t)
	mcp.AddTool(a.server, &loose, func(ctx context.Context, req *mcp.CallToolRequest, _ json.RawMessage) (*mcp.CallToolResult, Out, error) {
		return serve(ctx, a, t.Name, h == nil, req, func(ctx context.Context, c *call) (*mcp.CallToolResult, Out, error) {
			in, res, err := adapter.Args(args, c.callerIn(ctx), fill(req.Params.Arguments))
			switch {
			case res != nil:
				err = errors.New(adapter.ResultText(res)) // the go-sdk makes it the isError result
				fallthrough
			case err != nil:
				var zero Out
				return nil, zero, err
			}
			return h(ctx, req, in)
		})
	})
}

// listSchemas shows in tools/list the real inputSchema of the tools that
// ask for missing arguments (addAsking).
func (a *Adapter) listSchemas(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || method != "tools/list" || !ok || lr == nil {
			return res, err
		}
		cp := *lr
		cp.Tools = slices.Clone(lr.Tools)
		for i, t := range cp.Tools {
			if t == nil {
				continue
			}
			if schema, ok := a.listed.Load(t.Name); ok {
				nt := *t
				nt.InputSchema = schema
				cp.Tools[i] = &nt
			}
		}
		return &cp, nil
	}
}

// AddTool registers a tool with a raw handler that may call Elicit: it is
// (*mcp.Server).AddTool of Handler(h), except that a tool with no
// InputSchema gets {"type":"object"} (the go-sdk requires one). A nil tool,
// or an Adapter not made by New, registers nothing.
func (a *Adapter) AddTool(t *mcp.Tool, h mcp.ToolHandler) {
	if !a.usable() || t == nil {
		return
	}
	a.listed.Delete(t.Name)
	if t.InputSchema == nil {
		cp := *t
		cp.InputSchema = map[string]any{"type": "object"}
		t = &cp
	}
	a.server.AddTool(t, a.Handler(h))
}

// Handler wraps a raw tool handler so that it may call Elicit, for
// registering it by hand with (*mcp.Server).AddTool. The wrapped handler
// fails with an error, instead of running, when h is nil, when the context
// or the request is nil, or when a was not made by New.
func (a *Adapter) Handler(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := ""
		if h == nil && req != nil && req.Params != nil {
			name = req.Params.Name
		}
		res, _, err := serve(ctx, a, name, h == nil, req, func(ctx context.Context, _ *call) (*mcp.CallToolResult, struct{}, error) {
			res, err := h(ctx, req)
			return res, struct{}{}, err
		})
		return res, err
	}
}

func nilHandler(tool string) error {
	return fmt.Errorf("elicit: tool %q was registered with a nil handler: give gosdk.AddTool or Adapter.Handler a handler", tool)
}

type callKey struct{}

// call is what one run of an adapted handler keeps in its context.
type call struct {
	req *mcp.CallToolRequest
	run *adapter.Run // on a 2026-07-28 request
}

// callFrom returns the adapted call ctx belongs to, or runtime.ErrNoCall
// with the fix.
func callFrom(ctx context.Context) (*call, error) {
	return adapter.CallFrom[call](ctx, callKey{}, errNotAdapted)
}

func (a *Adapter) begin(req *mcp.CallToolRequest) (*call, error) {
	switch {
	case !a.usable():
		return nil, errNoAdapter
	case req == nil:
		return nil, errors.New("elicit: gosdk: the tool handler was called with no request")
	}
	c := &call{req: req}
	if req == nil || req.Params == nil || !adapter.IsInputRequired(req.ProtocolVersion()) {
		return c, nil
	}
	responses := make(map[string]json.RawMessage, len(req.Params.InputResponses))
	for k, v := range req.Params.InputResponses {
		if r, ok := v.(*mcp.ElicitResult); ok && r != nil {
			raw, err := json.Marshal(r)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q]: %v", k, err)}
			}
			responses[k] = raw
		}
	}
	run, err := adapter.Begin(a.states, req.Params.Name, req.Params.Arguments, req.Params.RequestState, responses)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	c.run = run
	return c, nil
}

// end turns a run that asked for input into the input_required result,
// whatever the handler returned, and a missing capability on a 2026-07-28
// request into -32021. Both nil: the handler's own result stands.
func (c *call) end(herr error) (*mcp.CallToolResult, error) {
	if c.run == nil {
		return nil, nil
	}
	asked, state, err := c.run.End()
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if len(asked) > 0 {
		reqs := make(mcp.InputRequestMap, len(asked))
		for _, r := range asked {
			reqs[r.Key] = &mcp.ElicitParams{Mode: "form", Message: r.Message, RequestedSchema: r.Schema}
		}
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}, nil
	}
	var mc *runtime.MissingCapabilityError
	if errors.As(herr, &mc) {
		rpc := mc.RPCError()
		return nil, &jsonrpc.Error{Code: int64(rpc.Code), Message: rpc.Message, Data: rpc.Data}
	}
	return nil, nil
}

// ClientSupportsElicit reports whether the caller of the adapted tool call
// ctx belongs to can be asked with a form: its protocol version has form
// elicitation and it declared the capability (on 2026-07-28 in this
// request's _meta). False for a ctx of no adapted call. Check it (or
// CanElicit[T], which also checks the form) first and fall back to a plain
// tool error, so a client without it never waits on a question.
func ClientSupportsElicit(ctx context.Context) bool {
	c, err := callFrom(ctx)
	return err == nil && checkClient(c.req) == nil
}

func checkClient(req *mcp.CallToolRequest) error {
	version := req.ProtocolVersion()
	var declared, form, url bool
	if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
		declared, form, url = true, caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
	}
	return runtime.CheckForm(version, declared, form, url)
}

// caller is what the adapter knows of the client of call c.
func (c *call) caller() adapter.Caller {
	return adapter.Caller{Version: c.req.ProtocolVersion(), Unsupported: checkClient(c.req), Run: c.run}
}

// callerIn is c.caller that asks in the session of ctx (the handler's).
func (c *call) callerIn(ctx context.Context) adapter.Caller {
	caller := c.caller()
	caller.Send = func(message string, schema json.RawMessage) (json.RawMessage, error) {
		return askSession(ctx, c.req, caller.Version, message, schema)
	}
	return caller
}

// CanElicit reports whether the form T can be asked of the caller of the
// adapted tool call ctx belongs to: nil, or why not, as runtime.CanElicit
// (runtime.ErrElicitUnsupported: no capability, or the version cannot
// express T; runtime.ErrNoCall: ctx belongs to no adapted call).
func CanElicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) error {
	c, err := callFrom(ctx)
	if err != nil {
		return err
	}
	return adapter.CanElicit[T, P](c.caller())
}

// Dropped names the optional properties of the generated form T that the
// caller of the adapted tool call ctx belongs to is not asked, because its
// protocol version cannot carry them (a multi-select on 2025-06-18), as
// runtime.Dropped: nil when every property is asked, when T cannot be asked
// at all (CanElicit says why) or ctx belongs to no adapted call.
func Dropped[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) []string {
	c, err := callFrom(ctx)
	if err != nil {
		return nil
	}
	return adapter.Dropped[T, P](c.caller())
}

// Elicit asks the caller's user to fill in the generated form T and returns
// the answer decoded and validated into a T. It compiles only for forms
// elicitgen generated code for; ctx is the handler's (or derived from it),
// and the tool is registered through an Adapter (runtime.ErrNoCall
// otherwise). The outcomes are runtime.Elicit's: nil on accept, otherwise
// runtime.ErrElicitDeclined, runtime.ErrElicitCanceled, a
// *runtime.ContentError, runtime.ErrElicitUnsupported, ... (errors.Is).
//
// On a 2026-07-28 request the first run returns runtime.ErrInputRequired:
// return at once (returning the error is fine); the adapter answers the call
// with input_required and the handler runs again, from the top, when the
// client retries with the answer.
func Elicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context, message string, opts ...runtime.ElicitOption) (T, error) {
	c, err := callFrom(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return adapter.Elicit[T, P](c.callerIn(ctx), message, opts...)
}

// askSession sends elicitation/create in a session and returns the
// client's result as JSON.
func askSession(ctx context.Context, req *mcp.CallToolRequest, version, message string, schema json.RawMessage) (json.RawMessage, error) {
	if req.Session == nil {
		return nil, fmt.Errorf("%w: the request has no session to ask in", runtime.ErrElicitUnsupported)
	}
	params := &mcp.ElicitParams{Message: message, RequestedSchema: schema}
	if adapter.HasElicitMode(version) {
		params.Mode = "form"
	}
	got := &captured{}
	res, err := req.Session.Elicit(context.WithValue(ctx, captureKey{}, got), params)
	if got.res != nil {
		res, err = got.res, nil // the SDK's own content check was skipped; ours follows
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, adapter.CtxError(ctx)
		}
		var werr *jsonrpc.Error
		if errors.As(err, &werr) {
			return nil, &runtime.ClientError{Code: int(werr.Code), Message: werr.Message, Data: werr.Data}
		}
		return nil, fmt.Errorf("elicit: %w", err)
	}
	if res == nil {
		return nil, fmt.Errorf("%w: no result", runtime.ErrElicitMalformed)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitMalformed, err)
	}
	return raw, nil
}

type captureKey struct{}

// captured receives the client's ElicitResult before the SDK checks its
// content with jsonschema-go, which would turn a bad answer into an opaque
// error; the generated decoder checks it instead and names every property.
type captured struct{ res *mcp.ElicitResult }

func captureAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		got, ok := ctx.Value(captureKey{}).(*captured)
		if !ok || method != "elicitation/create" {
			return next(ctx, method, req)
		}
		res, err := next(ctx, method, req)
		if r, isElicit := res.(*mcp.ElicitResult); err == nil && isElicit && r != nil {
			cp := *r
			got.res = &cp
			bare := *r
			bare.Content = nil // nothing for the SDK to check or fill in
			return &bare, nil
		}
		return res, err
	}
}
