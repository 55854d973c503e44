package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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
	// TracerProvider and MeterProvider, when set, record every tools/call
	// of the server as runtime.Options' TracerProvider and MeterProvider
	// record the runtime's own: a SERVER span "tools/call NAME" and
	// mcp.server.operation.duration, and for each elicitation in it an
	// "elicit" span (a child of the call's) and the elicit.* metrics (see
	// "Telemetry" in the runtime package doc). The call's span is a child
	// of the span in the handler's context if there is one (mcp-go's own,
	// server.WithTracer, when it is an OpenTelemetry span), else of the
	// trace context in the request's params._meta, else in its HTTP
	// headers. mcp-go does not tell a handler the JSON-RPC id, so
	// jsonrpc.request.id is not set. Nil (the default) records nothing.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
}

// Adapter adds typed elicitation to one mcp-go server: the handler of every
// tool of that server may call runtime.Elicit and the rest. Make it with
// New.
type Adapter struct {
	server  *server.MCPServer
	states  *roundtrip.Codec
	timeout time.Duration
	tel     *telemetry.T // nil: no TracerProvider, no MeterProvider
}

// New returns the adapter for s and installs its tool middleware on s
// ((*server.MCPServer).Use), which puts each call into its handler's
// context: every tool of s, registered with AddTool or with s.AddTool, may
// call runtime.Elicit. The zero Options are usable. It panics on a nil
// server and on a RequestStateKeys entry that is not 32 bytes (see "Set-up
// mistakes panic" in the runtime package doc).
func New(s *server.MCPServer, opts Options) *Adapter {
	if s == nil {
		adapter.Must("mcpgo.New", errors.New("no server: pass the *server.MCPServer made by server.NewMCPServer"))
	}
	states, err := adapter.NewCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	adapter.Must("mcpgo.New", err)
	a := &Adapter{server: s, states: states, timeout: adapter.ElicitTimeout(opts.ElicitTimeout), tel: telemetry.New(opts.TracerProvider, opts.MeterProvider)}
	s.Use(a.middleware)
	return a
}

// middleware puts the call into the handler's context, records its
// telemetry and, on a 2026-07-28 request, turns a run that asked for input
// into the input_required result, whatever the handler returned.
func (a *Adapter) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch {
		case next == nil:
			return nil, fmt.Errorf("elicit: tool %q has a nil handler: give it a server.ToolHandlerFunc", req.Params.Name)
		case ctx == nil:
			return nil, errors.New("elicit: mcpgo: the tool handler was called with a nil context")
		}
		c := a.callOf(ctx)
		ctx = c.Start(ctx, telemetryRequest(ctx, req))
		res, err := a.serve(ctx, c, req, next)
		c.Finish(outcome(ctx, res, err))
		return res, err
	}
}

// serve runs next on the call c of req.
func (a *Adapter) serve(ctx context.Context, c *adapter.Call, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	if !server.IsModernRequest(ctx) {
		return next(callctx.With(ctx, c), req)
	}
	args := rawArguments(req)
	responses := make(map[string]json.RawMessage, len(req.Params.InputResponses))
	for k, v := range req.Params.InputResponses {
		raw, err := json.Marshal(v) // an undecoded response marshals to its raw JSON
		if err != nil || len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("inputResponses[%q] must be an object", k)
		}
		responses[k] = raw
	}
	run, err := adapter.Begin(a.states, req.Params.Name, args, req.Params.RequestState, responses)
	if err != nil {
		return nil, err
	}
	c.Run, c.Send, c.SendRequest = run, nil, nil
	res, herr := next(callctx.With(ctx, c), req)
	asked, state, err := run.End(ctx, c.Tel)
	switch {
	case err != nil:
		return nil, err
	case len(asked) == 0:
		return res, herr
	}
	reqs := make(mcp.InputRequests, len(asked))
	for _, r := range asked {
		ir, err := inputRequest(r)
		if err != nil {
			return nil, err
		}
		reqs[r.Key] = ir
	}
	return &mcp.CallToolResult{
		Result:               mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: reqs, RequestState: state},
	}, nil
}

// telemetryRequest is what the span of req (in ctx) is made of. Only a
// request that came over HTTP names its session: over stdio mcp-go's
// session id is not on the wire. mcp-go passes an empty header over
// stdio; a Streamable HTTP request has at least its Content-Type.
func telemetryRequest(ctx context.Context, req mcp.CallToolRequest) telemetry.Request {
	r := telemetry.Request{Target: req.Params.Name}
	if len(req.Header) > 0 {
		r.Header = req.Header
	}
	if req.Params.Meta != nil {
		r.Meta = telemetry.MetaOf(req.Params.Meta.AdditionalFields)
	}
	if s := server.ClientSessionFromContext(ctx); s != nil && r.Header != nil {
		r.SessionID = s.SessionID()
	}
	return r
}

// outcome is how mcp-go answers a call whose handler returned res and
// err: a handler's error is -32603 (but a URL elicitation required of a
// client before 2026-07-28, its own code), no result too.
func outcome(ctx context.Context, res *mcp.CallToolResult, err error) telemetry.Outcome {
	var url mcp.URLElicitationRequiredError
	var urlp *mcp.URLElicitationRequiredError
	switch {
	case err == nil && res == nil:
		return telemetry.Outcome{Code: mcp.INTERNAL_ERROR}
	case err == nil:
		return telemetry.Outcome{ToolError: res.IsError}
	case server.IsModernRequest(ctx):
	case errors.As(err, &url):
		return telemetry.Outcome{Code: url.JSONRPCError().Error.Code}
	case errors.As(err, &urlp) && urlp != nil:
		return telemetry.Outcome{Code: urlp.JSONRPCError().Error.Code}
	}
	return telemetry.Outcome{Code: mcp.INTERNAL_ERROR}
}

// callOf is the call of the request ctx belongs to: the client's version
// and capabilities and its way to ask in a session.
func (a *Adapter) callOf(ctx context.Context) *adapter.Call {
	c := &adapter.Call{Version: server.RequestProtocolVersion(ctx), Timeout: a.timeout, Tel: a.tel}
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok && s != nil {
		cc := s.GetClientCapabilities()
		caps = &cc
	}
	if caps != nil && caps.Elicitation != nil {
		c.Declared, c.Form, c.URL = true, caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		srv = a.server
	}
	c.Send = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		return askSession(ctx, srv, params)
	}
	c.Capabilities = capabilitiesOf(caps)
	c.SendRequest = func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		return sendSession(ctx, srv, method, params)
	}
	return c
}

// rawArguments is the arguments as sent, for the requestState binding.
func rawArguments(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	raw, _ := json.Marshal(req.Params.Arguments)
	return raw
}

// AddTool registers on a's server a tool whose handler gets its arguments
// decoded into an In, as runtime.AddTool does: with the generated decoder
// when *In is a generated form, else as In's JSON Schema says; arguments
// that do not decode get an isError result naming every failing property,
// and h does not run. t's inputSchema is listed as given; a t with none (no
// properties, no RawInputSchema) lists In's. opts are runtime.AddTool's:
// with runtime.AskMissing and a generated form In, the required arguments a
// call left out are asked for first (see runtime.AskMissing). It panics
// (see "Set-up mistakes panic" in the runtime package doc) on an Adapter
// not made by New, a tool with no name, a nil h, and runtime.AskMissing for
// an In that is not a generated form.
func AddTool[In any](a *Adapter, t mcp.Tool, h func(ctx context.Context, req mcp.CallToolRequest, in In) (*mcp.CallToolResult, error), opts ...runtime.ToolOption) {
	const fn = "mcpgo.AddTool"
	if a == nil || a.server == nil || a.states == nil {
		adapter.Must(fn, errors.New("the Adapter was not made by mcpgo.New: make it with mcpgo.New(server, mcpgo.Options{})"))
	}
	adapter.MustTool(fn, t.Name, h == nil)
	var own json.RawMessage
	switch {
	case t.RawInputSchema != nil:
		own = t.RawInputSchema
	case len(t.InputSchema.Properties) > 0 || len(t.InputSchema.Required) > 0:
		raw, err := json.Marshal(t.InputSchema)
		adapter.Must(fn, err)
		own = raw
	}
	args, err := runtime.NewToolArgs[In](t.Name, own, opts...)
	adapter.Must(fn, err)
	if own == nil {
		t.InputSchema, t.RawInputSchema = mcp.ToolInputSchema{}, args.InputSchema()
	}
	a.server.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, res, err := args.Decode(ctx, rawArguments(req))
		switch {
		case res != nil:
			return mcp.NewToolResultError(adapter.ResultText(res)), nil
		case err != nil:
			return nil, err
		}
		return h(ctx, req, in)
	})
}

// elicitationParams are the runtime's elicitation/create params as
// mcp-go's.
func elicitationParams(raw json.RawMessage) (mcp.ElicitationParams, error) {
	p, err := adapter.ParseParams(raw)
	if err != nil {
		return mcp.ElicitationParams{}, err
	}
	ep := mcp.ElicitationParams{Mode: p.Mode, Message: p.Message, URL: p.URL, ElicitationID: p.ElicitationID}
	if len(p.RequestedSchema) > 0 {
		ep.RequestedSchema = p.RequestedSchema
	}
	return ep, nil
}

// askSession sends elicitation/create with params in the session of ctx
// and returns the client's result as JSON.
func askSession(ctx context.Context, srv *server.MCPServer, raw json.RawMessage) (json.RawMessage, error) {
	params, err := elicitationParams(raw)
	if err != nil {
		return nil, err
	}
	res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params:  params,
	})
	switch {
	case errors.Is(err, server.ErrNoActiveSession), errors.Is(err, server.ErrElicitationNotSupported):
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitUnsupported, err)
	case err != nil:
		if ce := clientError(err); ce != nil {
			return nil, ce
		}
		return nil, fmt.Errorf("elicit: %w", err)
	case res == nil:
		return nil, fmt.Errorf("%w: no result", runtime.ErrElicitMalformed)
	}
	raw, err = json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitMalformed, err)
	}
	return raw, nil
}

// clientError is the *runtime.ClientError of an error mcp-go reports for a
// client that answered elicitation/create with a JSON-RPC error, or nil.
// mcp-go passes on no error value, only text: over HTTP "elicitation/create
// error CODE: MESSAGE", over stdio "elicitation request failed: MESSAGE"
// (no code: Code is 0).
func clientError(err error) *runtime.ClientError {
	text := err.Error()
	if rest, ok := strings.CutPrefix(text, string(mcp.MethodElicitationCreate)+" error "); ok {
		code, msg, ok := strings.Cut(rest, ": ")
		if n, cerr := strconv.Atoi(code); ok && cerr == nil {
			return &runtime.ClientError{Code: n, Message: msg}
		}
	}
	if msg, ok := strings.CutPrefix(text, "elicitation request failed: "); ok {
		return &runtime.ClientError{Message: msg}
	}
	return nil
}
