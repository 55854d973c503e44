package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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

// Adapter adds typed elicitation to one mcp-go server. Make it with New or
// NewMiddleware: the middleware of an Adapter made otherwise fails every
// tool call with an error saying so.
type Adapter struct {
	server *server.MCPServer
	states *roundtrip.Codec
}

// New returns the adapter for s and installs its tool middleware on s
// ((*server.MCPServer).Use), so every tool's handler may call Elicit. The
// zero Options are usable. It fails on a nil server and on a bad
// RequestStateKeys entry.
func New(s *server.MCPServer, opts Options) (*Adapter, error) {
	if s == nil {
		return nil, errors.New("elicit: mcpgo.New needs a server: pass the *server.MCPServer made by server.NewMCPServer")
	}
	a, err := NewMiddleware(opts)
	if err != nil {
		return nil, err
	}
	a.server = s
	s.Use(a.Middleware)
	return a, nil
}

// NewMiddleware returns an adapter that is not installed yet, for servers
// built with server.WithToolHandlerMiddleware(a.Middleware). The zero
// Options are usable. It fails only on a bad RequestStateKeys entry.
func NewMiddleware(opts Options) (*Adapter, error) {
	states, err := adapter.NewCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	if err != nil {
		return nil, err
	}
	return &Adapter{states: states}, nil
}

// errNotAdapted is runtime.ErrNoCall with this adapter's fix.
var errNotAdapted = adapter.NotAdapted("mcpgo.New installs its middleware; or server.WithToolHandlerMiddleware(a.Middleware) with mcpgo.NewMiddleware")

// errNoAdapter is what the middleware of an Adapter made neither by New nor
// by NewMiddleware returns.
var errNoAdapter = errors.New("elicit: this mcpgo.Adapter was not made by mcpgo.New or mcpgo.NewMiddleware: make it with one of them")

type callKey struct{}

// call is what one run of a tool handler keeps in its context.
type call struct {
	srv *server.MCPServer
	run *adapter.Run // on a 2026-07-28 request
}

// callFrom returns the call ctx belongs to, or runtime.ErrNoCall with the
// fix.
func callFrom(ctx context.Context) (*call, error) {
	return adapter.CallFrom[call](ctx, callKey{}, errNotAdapted)
}

// Middleware is the tool middleware New installs: it gives the handler what
// Elicit needs and, on a 2026-07-28 request, turns a run that asked for
// input into the input_required result, whatever the handler returned.
// Its handler fails with an error, instead of running next, when next is
// nil or a was made neither by New nor by NewMiddleware.
func (a *Adapter) Middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch {
		case a == nil || a.states == nil:
			return nil, errNoAdapter
		case next == nil:
			return nil, fmt.Errorf("elicit: tool %q has a nil handler: give it a server.ToolHandlerFunc", req.Params.Name)
		case ctx == nil:
			return nil, errors.New("elicit: mcpgo: the tool handler was called with a nil context")
		}
		c := &call{srv: server.ServerFromContext(ctx)}
		if c.srv == nil {
			c.srv = a.server
		}
		if !server.IsModernRequest(ctx) {
			return next(context.WithValue(ctx, callKey{}, c), req)
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
		c.run = run
		res, herr := next(context.WithValue(ctx, callKey{}, c), req)
		asked, state, err := run.End()
		switch {
		case err != nil:
			return nil, err
		case len(asked) == 0:
			return res, herr
		}
		reqs := make(mcp.InputRequests, len(asked))
		for _, r := range asked {
			reqs[r.Key] = mcp.NewElicitationInputRequest(mcp.ElicitationParams{
				Mode: mcp.ElicitationModeForm, Message: r.Message, RequestedSchema: r.Schema,
			})
		}
		return &mcp.CallToolResult{
			Result:               mcp.Result{ResultType: mcp.ResultTypeInputRequired},
			MultiRoundTripResult: mcp.MultiRoundTripResult{InputRequests: reqs, RequestState: state},
		}, nil
	}
}

// rawArguments is the arguments as sent, for the requestState binding.
func rawArguments(req mcp.CallToolRequest) []byte {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	raw, _ := json.Marshal(req.Params.Arguments)
	return raw
}

// ClientSupportsElicit reports whether the caller of the tool call ctx
// belongs to can be asked with a form: its protocol version has form
// elicitation and it declared the capability (on 2026-07-28 in this
// request's _meta). False for a ctx of no call under the adapter's
// middleware. Check it (or CanElicit[T], which also checks the form) first
// and fall back to a plain tool error, so a client without it never waits
// on a question.
func ClientSupportsElicit(ctx context.Context) bool {
	if _, err := callFrom(ctx); err != nil {
		return false
	}
	return checkClient(ctx) == nil
}

func checkClient(ctx context.Context) error {
	version := server.RequestProtocolVersion(ctx)
	var caps *mcp.ClientCapabilities
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		caps = info.ClientCapabilities
	} else if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok && s != nil {
		c := s.GetClientCapabilities()
		caps = &c
	}
	var declared, form, url bool
	if caps != nil && caps.Elicitation != nil {
		declared, form, url = true, caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
	}
	return runtime.CheckForm(version, declared, form, url)
}

// caller is what the adapter knows of the client of call c, whose context
// is ctx.
func (c *call) caller(ctx context.Context) adapter.Caller {
	return adapter.Caller{Version: server.RequestProtocolVersion(ctx), Unsupported: checkClient(ctx), Run: c.run}
}

// CanElicit reports whether the form T can be asked of the caller of the
// tool call ctx belongs to: nil, or why not, as runtime.CanElicit
// (runtime.ErrElicitUnsupported: no capability, or the version cannot
// express T; runtime.ErrNoCall: ctx belongs to no call under the adapter's
// middleware).
func CanElicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) error {
	c, err := callFrom(ctx)
	if err != nil {
		return err
	}
	return adapter.CanElicit[T, P](c.caller(ctx))
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
	return adapter.Dropped[T, P](c.caller(ctx))
}

// Elicit asks the user of the tool call ctx belongs to to fill in the
// generated form T and returns the answer decoded and validated into a T. It
// compiles only for forms elicitgen generated code for; ctx is the
// handler's (or derived from it), under the adapter's middleware
// (runtime.ErrNoCall otherwise). The outcomes are runtime.Elicit's: nil on
// accept, otherwise runtime.ErrElicitDeclined, runtime.ErrElicitCanceled, a
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

// callerIn is c.caller that asks in the session of ctx (the handler's).
func (c *call) callerIn(ctx context.Context) adapter.Caller {
	caller := c.caller(ctx)
	caller.Send = func(message string, schema json.RawMessage) (json.RawMessage, error) {
		return askSession(ctx, c.srv, caller.Version, message, schema)
	}
	return caller
}

// AddTool registers on s a tool whose handler gets its arguments decoded
// into an In, as runtime.AddTool does: with the generated decoder when *In
// is a generated form, else as In's JSON Schema says; arguments that do not
// decode get an isError result naming every failing property, and h does
// not run. t's inputSchema is listed as given; a t with none (no
// properties, no RawInputSchema) lists In's. opts are runtime.AddTool's:
// with runtime.AskMissing and a generated form In, the required arguments a
// call left out are asked for first (see runtime.AskMissing). s must run
// the adapter's middleware (New, or NewMiddleware's Middleware): without it
// a call is answered as for a client that cannot be asked. A nil server registers nothing; a nil
// h registers a tool whose calls fail with an error saying so.
func AddTool[In any](s *server.MCPServer, t mcp.Tool, h func(ctx context.Context, req mcp.CallToolRequest, in In) (*mcp.CallToolResult, error), opts ...runtime.ToolOption) {
	if s == nil {
		return
	}
	var own json.RawMessage
	switch {
	case t.RawInputSchema != nil:
		own = t.RawInputSchema
	case len(t.InputSchema.Properties) > 0 || len(t.InputSchema.Required) > 0:
		own, _ = json.Marshal(t.InputSchema)
	}
	args, _ := runtime.NewToolArgs[In](t.Name, own, opts...)
	if own == nil {
		t.InputSchema, t.RawInputSchema = mcp.ToolInputSchema{}, args.InputSchema()
	}
	s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if h == nil {
			return nil, fmt.Errorf("elicit: tool %q was registered with a nil handler: give mcpgo.AddTool a handler", t.Name)
		}
		var caller adapter.Caller
		if c, err := callFrom(ctx); err == nil {
			caller = c.callerIn(ctx)
		} else {
			caller.Unsupported = err
		}
		in, res, err := adapter.Args(args, caller, rawArguments(req))
		switch {
		case res != nil:
			return mcp.NewToolResultError(adapter.ResultText(res)), nil
		case err != nil:
			return nil, err
		}
		return h(ctx, req, in)
	})
}

// askSession sends elicitation/create in a session and returns the
// client's result as JSON.
func askSession(ctx context.Context, srv *server.MCPServer, version, message string, schema json.RawMessage) (json.RawMessage, error) {
	if srv == nil {
		return nil, errNotAdapted
	}
	params := mcp.ElicitationParams{Message: message, RequestedSchema: schema}
	if adapter.HasElicitMode(version) {
		params.Mode = mcp.ElicitationModeForm
	}
	res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params:  params,
	})
	switch {
	case ctx.Err() != nil:
		return nil, adapter.CtxError(ctx)
	case errors.Is(err, server.ErrNoActiveSession), errors.Is(err, server.ErrElicitationNotSupported):
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitUnsupported, err)
	case err != nil:
		return nil, fmt.Errorf("elicit: %w", err)
	case res == nil:
		return nil, fmt.Errorf("%w: no result", runtime.ErrElicitMalformed)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitMalformed, err)
	}
	return raw, nil
}
