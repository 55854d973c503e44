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
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
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
	// ElicitTimeout bounds how long an elicitation in a session waits for
	// the user's answer (runtime.ErrElicitTimeout after it), as
	// runtime.Options.ElicitTimeout does: 0 means
	// runtime.DefaultElicitTimeout, negative no bound but the call's
	// context.
	ElicitTimeout time.Duration
	// TracerProvider and MeterProvider, when set, record every call of a
	// tool registered through the adapter as runtime.Options'
	// TracerProvider and MeterProvider record the runtime's own: a SERVER
	// span "tools/call NAME" and mcp.server.operation.duration, and for
	// each elicitation in it an "elicit" span (a child of the call's) and
	// the elicit.* metrics (see "Telemetry" in the runtime package doc).
	// The call's span is a child of the go-sdk's span in the handler's
	// context if there is one, else of the trace context in the request's
	// params._meta, else in its HTTP headers. The go-sdk does not tell a
	// handler the JSON-RPC id, so jsonrpc.request.id is not set. Nil (the
	// default) records nothing.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Adapter adds typed elicitation to one go-sdk server: the handlers of the
// tools registered through it (AddTool, Adapter.AddTool) may call
// runtime.Elicit and the rest. Make it with New.
type Adapter struct {
	server  *mcp.Server
	states  *roundtrip.Codec
	timeout time.Duration
	tel     *telemetry.T // nil: no TracerProvider, no MeterProvider
	listed  sync.Map     // tool name → the inputSchema of a tool that asks for missing arguments
}

// New returns the adapter for s and installs on s the sending middleware
// that lets runtime.Elicit validate answers itself (see the package doc).
// The zero Options are usable. It panics on a nil server and on a
// RequestStateKeys entry that is not 32 bytes (see "Set-up mistakes panic"
// in the runtime package doc).
func New(s *mcp.Server, opts Options) *Adapter {
	if s == nil {
		adapter.Must("gosdk.New", errors.New("no server: pass the *mcp.Server made by mcp.NewServer"))
	}
	states, err := adapter.NewCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	adapter.Must("gosdk.New", err)
	s.AddSendingMiddleware(captureAnswers)
	a := &Adapter{server: s, states: states, timeout: adapter.ElicitTimeout(opts.ElicitTimeout), tel: telemetry.New(opts.TracerProvider, opts.MeterProvider)}
	s.AddReceivingMiddleware(a.listSchemas)
	return a
}

// mustRegister panics, at registration by fn, on an Adapter not made by
// New, a nil tool, a tool with no name and a nil handler.
func (a *Adapter) mustRegister(fn string, t *mcp.Tool, nilHandler bool) {
	switch {
	case a == nil || a.server == nil || a.states == nil:
		adapter.Must(fn, errors.New("the Adapter was not made by gosdk.New: make it with gosdk.New(server, gosdk.Options{})"))
	case t == nil:
		adapter.Must(fn, errors.New("nil tool: pass the *mcp.Tool to register"))
	}
	adapter.MustTool(fn, t.Name, nilHandler)
}

// AddTool registers on a's server a typed tool whose handler may call
// runtime.Elicit; it is mcp.AddTool with the adapter's wrapping. It panics
// (see "Set-up mistakes panic" in the runtime package doc) on an Adapter
// not made by New, a nil or nameless tool, a nil h, and
// runtime.AskMissing for an In that is not a generated form.
//
// The arguments are read as runtime.AddTool reads them, so one arguments
// struct serves the same on every server: the inputSchema is t.InputSchema
// when set, else the form's (In a generated form), else In's reflected
// with invopop/jsonschema (its jsonschema:"minLength=1,enum=a" tags, not
// the go-sdk's own tag syntax, which it never sees); a call's arguments are
// checked against exactly that schema, every failing property named, before
// h runs. opts are runtime.AddTool's (runtime.AskMissing). The go-sdk
// still handles Out (outputSchema, structured content).
func AddTool[In, Out any](a *Adapter, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...runtime.ToolOption) {
	a.mustRegister("gosdk.AddTool", t, h == nil)
	addAsking(a, t, toolArgs[In](t, opts), h)
}

// serve runs the body of a tool's call with the adapter's wrapping: the
// call in ctx, its telemetry, and its input_required result on 2026-07-28.
// It fails, and body does not run, when ctx or req is nil. typed says the
// go-sdk turns an error body returns into an isError result (mcp.AddTool),
// not a JSON-RPC error ((*mcp.Server).AddTool).
func serve[Out any](ctx context.Context, a *Adapter, req *mcp.CallToolRequest, typed bool,
	body func(ctx context.Context) (*mcp.CallToolResult, Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	switch {
	case ctx == nil:
		return nil, zero, errors.New("elicit: gosdk: the tool handler was called with a nil context")
	case req == nil || req.Params == nil:
		return nil, zero, errors.New("elicit: gosdk: the tool handler was called with no request")
	}
	c := a.callOf(req)
	ctx = c.Start(ctx, telemetryRequest(req))
	res, out, err := run(ctx, a, c, req, body)
	c.Finish(outcome(res, err, typed))
	return res, out, err
}

// run is serve once the call is known.
func run[Out any](ctx context.Context, a *Adapter, c *adapter.Call, req *mcp.CallToolRequest,
	body func(ctx context.Context) (*mcp.CallToolResult, Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	if err := a.begin(c, req); err != nil {
		return nil, zero, err
	}
	res, out, herr := body(callctx.With(ctx, c))
	if ir, err := end(ctx, c, herr); ir != nil || err != nil {
		return ir, zero, err
	}
	return res, out, herr
}

// telemetryRequest is what the span of req is made of.
func telemetryRequest(req *mcp.CallToolRequest) telemetry.Request {
	r := telemetry.Request{Target: req.Params.Name, Meta: telemetry.MetaOf(req.Params.Meta)}
	if req.Session != nil {
		r.SessionID = req.Session.ID()
	}
	if req.Extra != nil {
		r.Header = req.Extra.Header
	}
	return r
}

// outcome is how a call the handler answered with res and err ends on
// the wire: an isError result, or a JSON-RPC error (with no code when
// the error is not a *jsonrpc.Error: the go-sdk sends 0).
func outcome(res *mcp.CallToolResult, err error, typed bool) telemetry.Outcome {
	var werr *jsonrpc.Error
	switch {
	case err == nil:
		return telemetry.Outcome{ToolError: res != nil && res.IsError}
	case typed:
		if werr, ok := err.(*jsonrpc.Error); ok {
			return telemetry.Outcome{Code: int(werr.Code)}
		}
		return telemetry.Outcome{ToolError: true}
	case errors.As(err, &werr) && werr.Code != 0:
		return telemetry.Outcome{Code: int(werr.Code)}
	}
	return telemetry.Outcome{Other: true}
}

// toolArgs is the decoder of a tool's arguments, as runtime.AddTool's (see
// AddTool). It panics on an AskMissing that cannot apply.
func toolArgs[In any](t *mcp.Tool, opts []runtime.ToolOption) *runtime.ToolArgs[In] {
	var own json.RawMessage
	if t.InputSchema != nil {
		raw, err := json.Marshal(t.InputSchema)
		adapter.Must("gosdk.AddTool", err)
		own = raw
	}
	args, err := runtime.NewToolArgs[In](t.Name, own, opts...)
	adapter.Must("gosdk.AddTool", err)
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

// addAsking registers a tool whose arguments args decodes. The go-sdk
// would check them against a schema of its own inferring (and refuse a
// call without the arguments AskMissing asks for) before the handler runs,
// so the tool is registered with the schema {"type":"object"}, args checks
// the arguments, and tools/list shows args' schema (listSchemas).
func addAsking[In, Out any](a *Adapter, t *mcp.Tool, args *runtime.ToolArgs[In], h mcp.ToolHandlerFor[In, Out]) {
	loose := *t
	loose.InputSchema = map[string]any{"type": "object"}
	a.listed.Store(t.Name, args.InputSchema())
	fill := ownDefaults(t)
	mcp.AddTool(a.server, &loose, func(ctx context.Context, req *mcp.CallToolRequest, _ json.RawMessage) (*mcp.CallToolResult, Out, error) {
		return serve(ctx, a, req, true, func(ctx context.Context) (*mcp.CallToolResult, Out, error) {
			in, res, err := args.Decode(ctx, fill(req.Params.Arguments))
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

// AddTool registers on a's server a tool with a raw handler that may call
// runtime.Elicit: it is (*mcp.Server).AddTool with the adapter's wrapping,
// except that a tool with no InputSchema gets {"type":"object"} (the go-sdk
// requires one). It panics as AddTool does.
func (a *Adapter) AddTool(t *mcp.Tool, h mcp.ToolHandler) {
	a.mustRegister("gosdk.Adapter.AddTool", t, h == nil)
	a.listed.Delete(t.Name)
	if t.InputSchema == nil {
		cp := *t
		cp.InputSchema = map[string]any{"type": "object"}
		t = &cp
	}
	a.server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, _, err := serve(ctx, a, req, false, func(ctx context.Context) (*mcp.CallToolResult, struct{}, error) {
			res, err := h(ctx, req)
			return res, struct{}{}, err
		})
		return res, err
	})
}

// callOf returns the call of req that the handler's ctx carries: the
// client's version and capabilities, its way to ask in a session, and the
// adapter's telemetry. begin gives it its round trip on 2026-07-28.
func (a *Adapter) callOf(req *mcp.CallToolRequest) *adapter.Call {
	c := &adapter.Call{Version: req.ProtocolVersion(), Timeout: a.timeout, Tel: a.tel}
	if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
		c.Declared, c.Form, c.URL = true, caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
	}
	c.Capabilities = capabilitiesOf(req.ClientCapabilities())
	return c
}

// begin gives call c of req its way to ask: in the session, or on
// 2026-07-28 through the round trip.
func (a *Adapter) begin(c *adapter.Call, req *mcp.CallToolRequest) error {
	if !adapter.IsInputRequired(c.Version) {
		c.Send = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			return askSession(ctx, req, params)
		}
		c.SendRequest = func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			return sendSession(ctx, req, method, params)
		}
		return nil
	}
	// Every response goes back to JSON: the runtime decodes each by the
	// method its key was asked with (sealed in the state), whatever type
	// the go-sdk guessed from its shape.
	responses := make(map[string]json.RawMessage, len(req.Params.InputResponses))
	for k, v := range req.Params.InputResponses {
		if v == nil {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q]: %v", k, err)}
		}
		if string(raw) != "null" {
			responses[k] = raw
		}
	}
	run, err := adapter.Begin(a.states, req.Params.Name, req.Params.Arguments, req.Params.RequestState, responses)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	c.Run = run
	return nil
}

// end turns a run that asked for input into the input_required result,
// whatever the handler returned, and a missing capability on a 2026-07-28
// request into -32021. Both nil: the handler's own result stands. ctx
// holds the call's span.
func end(ctx context.Context, c *adapter.Call, herr error) (*mcp.CallToolResult, error) {
	if c.Run == nil {
		return nil, nil
	}
	asked, state, err := c.Run.End(ctx, c.Tel)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if len(asked) > 0 {
		reqs := make(mcp.InputRequestMap, len(asked))
		for _, r := range asked {
			p, err := inputRequest(r)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			reqs[r.Key] = p
		}
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}, nil
	}
	if rpc := adapter.MissingCapability(c.Version, herr); rpc != nil {
		return nil, &jsonrpc.Error{Code: int64(rpc.Code), Message: rpc.Message, Data: rpc.Data}
	}
	return nil, nil
}

// clientError is the runtime's error for a request the client answered
// with a JSON-RPC error, or err wrapped.
func clientError(err error) error {
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return &runtime.ClientError{Code: int(werr.Code), Message: werr.Message, Data: werr.Data}
	}
	return fmt.Errorf("elicit: %w", err)
}

// elicitParams are the runtime's elicitation/create params as the go-sdk's.
func elicitParams(raw json.RawMessage) (*mcp.ElicitParams, error) {
	p, err := adapter.ParseParams(raw)
	if err != nil {
		return nil, err
	}
	ep := &mcp.ElicitParams{Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if len(p.RequestedSchema) > 0 {
		ep.RequestedSchema = p.RequestedSchema
	}
	return ep, nil
}

// askSession sends elicitation/create with params in the session of req
// and returns the client's result as JSON.
func askSession(ctx context.Context, req *mcp.CallToolRequest, raw json.RawMessage) (json.RawMessage, error) {
	if req.Session == nil {
		return nil, fmt.Errorf("%w: the request has no session to ask in", runtime.ErrElicitUnsupported)
	}
	params, err := elicitParams(raw)
	if err != nil {
		return nil, err
	}
	got := &captured{}
	res, err := req.Session.Elicit(context.WithValue(ctx, captureKey{}, got), params)
	if got.res != nil {
		res, err = got.res, nil // the SDK's own content check was skipped; ours follows
	}
	if err != nil {
		return nil, clientError(err)
	}
	if res == nil {
		return nil, fmt.Errorf("%w: no result", runtime.ErrElicitMalformed)
	}
	raw, err = json.Marshal(res)
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
