package gosdk

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
// that elicit through it (AddTool, Adapter.AddTool or Adapter.Handler).
type Adapter struct {
	server *mcp.Server
	states *roundtrip.Codec
}

// New returns the adapter for s and installs on s the sending middleware
// that lets Elicit validate answers itself (see the package doc). opts may
// be nil. It fails only on a bad RequestStateKeys entry.
func New(s *mcp.Server, opts *Options) (*Adapter, error) {
	if s == nil {
		return nil, errors.New("elicit: gosdk.New needs a server")
	}
	if opts == nil {
		opts = &Options{}
	}
	states, err := adapter.NewCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	if err != nil {
		return nil, err
	}
	s.AddSendingMiddleware(captureAnswers)
	return &Adapter{server: s, states: states}, nil
}

// Server is the go-sdk server the adapter was made for.
func (a *Adapter) Server() *mcp.Server { return a.server }

// AddTool registers a typed tool whose handler may call Elicit; it is
// mcp.AddTool with the adapter's wrapping.
func AddTool[In, Out any](a *Adapter, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(a.server, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var zero Out
		c, err := a.begin(req)
		if err != nil {
			return nil, zero, err
		}
		res, out, herr := h(context.WithValue(ctx, callKey{}, c), req, in)
		if ir, err := c.end(herr); ir != nil || err != nil {
			return ir, zero, err
		}
		return res, out, herr
	})
}

// AddTool registers a tool with a raw handler that may call Elicit.
func (a *Adapter) AddTool(t *mcp.Tool, h mcp.ToolHandler) { a.server.AddTool(t, a.Handler(h)) }

// Handler wraps a raw tool handler so that it may call Elicit, for
// registering it by hand with (*mcp.Server).AddTool.
func (a *Adapter) Handler(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, err := a.begin(req)
		if err != nil {
			return nil, err
		}
		res, herr := h(context.WithValue(ctx, callKey{}, c), req)
		if ir, err := c.end(herr); ir != nil || err != nil {
			return ir, err
		}
		return res, herr
	}
}

type callKey struct{}

// call is what one run of an adapted handler keeps in its context.
type call struct {
	req *mcp.CallToolRequest
	run *adapter.Run // on a 2026-07-28 request
}

func (a *Adapter) begin(req *mcp.CallToolRequest) (*call, error) {
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

// ClientSupportsElicit reports whether the caller can be asked with a form:
// its protocol version has form elicitation and it declared the capability
// (on 2026-07-28 in this request's _meta). Check it first and fall back to
// a plain tool error, so a client without it never waits on a question.
func ClientSupportsElicit(req *mcp.CallToolRequest) bool {
	return checkClient(req) == nil
}

func checkClient(req *mcp.CallToolRequest) error {
	version := req.ProtocolVersion()
	var declared, form, url bool
	if caps := req.ClientCapabilities(); caps != nil && caps.Elicitation != nil {
		declared, form, url = true, caps.Elicitation.Form != nil, caps.Elicitation.URL != nil
	}
	return runtime.CheckForm(version, declared, form, url)
}

// Elicit asks the caller's user to fill in the generated form T and returns
// the answer decoded and validated into a T. It compiles only for forms
// elicitgen generated code for, and works only in a handler registered
// through an Adapter. The outcomes are runtime.Elicit's: nil on accept,
// otherwise runtime.ErrElicitDeclined, runtime.ErrElicitCanceled, a
// *runtime.ContentError, runtime.ErrElicitUnsupported, ... (errors.Is).
//
// On a 2026-07-28 request the first run returns runtime.ErrInputRequired:
// return at once (returning the error is fine); the adapter answers the call
// with input_required and the handler runs again, from the top, when the
// client retries with the answer.
func Elicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context, req *mcp.CallToolRequest, message string, opts ...runtime.ElicitOption) (T, error) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || req == nil || c.req != req {
		var zero T
		return zero, adapter.ErrNotAdapted
	}
	version := req.ProtocolVersion()
	return adapter.Elicit[T, P](adapter.Caller{
		Version:     version,
		Unsupported: checkClient(req),
		Run:         c.run,
		Send: func(message string, schema json.RawMessage) (json.RawMessage, error) {
			return askSession(ctx, req, version, message, schema)
		},
	}, message, opts...)
}

// askSession sends elicitation/create in a session and returns the
// client's result as JSON.
func askSession(ctx context.Context, req *mcp.CallToolRequest, version, message string, schema json.RawMessage) (json.RawMessage, error) {
	if req.Session == nil {
		return nil, fmt.Errorf("%w: the request has no session", runtime.ErrNoCall)
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
