// Package adapter is what elicit's adapters to other MCP server libraries
// (runtime/gosdk, runtime/mcpgo) share and is not tied to either library:
// the call they put into a handler's context (Call, which runtime.Elicit
// and the rest ask through), and their 2026-07-28 round trip (a Run, whose
// requestState is sealed by internal/roundtrip under the adapters' own
// label). Each adapter keeps only the translation to its library's types.
package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
)

// stateLabel keeps the adapters' requestState ciphertexts apart from the
// runtime's and from any other use of the same key.
const stateLabel = "elicit/adapter/requestState/v1"

// toolsCall is the method every adapted round trip belongs to.
const toolsCall = "tools/call"

// IsInputRequired reports whether version v is served by the input_required
// round trip (2026-07-28 and later).
func IsInputRequired(v string) bool { return v >= runtime.Version20260728 }

// NewCodec returns the codec of an adapter's requestState: keys as in the
// adapters' Options.RequestStateKeys, ttl <= 0 meaning
// runtime.DefaultRequestStateTTL.
func NewCodec(keys [][]byte, ttl time.Duration) (*roundtrip.Codec, error) {
	if ttl <= 0 {
		ttl = runtime.DefaultRequestStateTTL
	}
	return roundtrip.NewCodec(keys, ttl, stateLabel)
}

// Run is one run of an adapted tool handler on a 2026-07-28 request.
type Run struct {
	codec *roundtrip.Codec
	call  roundtrip.Call
	run   *roundtrip.Run
}

// Begin starts the run of a 2026-07-28 tools/call of tool name with args (as
// sent). state is the echoed requestState, "" on a first request; responses
// are the inputResponses, raw ElicitResults by key. An error matches
// roundtrip.ErrInvalidState and its message starts "invalid requestState".
func Begin(codec *roundtrip.Codec, name string, args []byte, state string, responses map[string]json.RawMessage) (*Run, error) {
	r := &Run{codec: codec, call: roundtrip.Call{Method: toolsCall, Name: name, Args: args}}
	if state == "" { // nothing was asked: responses do not count
		r.run = roundtrip.NewRun()
		return r, nil
	}
	run, err := codec.Resume(state, r.call, responses)
	if err != nil {
		return nil, err
	}
	r.run = run
	return r, nil
}

// ask returns the raw ElicitResult for the next ask of key, or records the
// request (params, the elicitation/create params) and returns
// runtime.ErrInputRequired.
func (r *Run) ask(key string, params json.RawMessage) (json.RawMessage, error) {
	if ans, ok := r.run.Ask(key, params); ok {
		return ans, nil
	}
	return nil, runtime.ErrInputRequired
}

// request returns the raw result for the next ask of key with method
// (sampling/createMessage, roots/list), or records the request and returns
// runtime.ErrInputRequired; the method is sealed with the key.
func (r *Run) request(key, method string, params json.RawMessage) (json.RawMessage, error) {
	if ans, ok := r.run.AskMethod(key, method, params); ok {
		return ans, nil
	}
	return nil, runtime.ErrInputRequired
}

// Request is one input request a run asked for, to put into the library's
// input_required result under Key: Method is "" for an elicitation, whose
// Params are its elicitation/create params (form or URL mode), else
// "sampling/createMessage" or "roots/list" with that request's params.
type Request struct {
	Key    string
	Method string
	Params json.RawMessage
}

// End returns what the run asked for, in order, and the requestState to
// send with them; no requests (and no state) when the run asked nothing
// new, and the handler's own result stands. With telemetry tel, the span
// of the call in ctx is linked to the call's first round and notes its
// round and resultType, and the state carries what links the next round
// to the first (as the runtime's own 2026-07-28 calls do).
func (r *Run) End(ctx context.Context, tel *telemetry.T) ([]Request, string, error) {
	asked := r.run.Requests()
	if tel != nil {
		rounds := tel.ResumeRound(ctx, r.run.Telemetry())
		if len(asked) == 0 {
			tel.Round(ctx, r.run.Round(), "complete")
		} else {
			tel.Round(ctx, r.run.Round(), "input_required")
			r.run.SetTelemetry(tel.SealRound(ctx, rounds))
		}
	}
	if len(asked) == 0 {
		return nil, "", nil
	}
	reqs := make([]Request, len(asked))
	for i, a := range asked {
		reqs[i] = Request{Key: a.Key, Method: a.Method, Params: a.Params}
	}
	state, err := r.codec.SealRun(r.call, r.run)
	if err != nil {
		return nil, "", fmt.Errorf("sealing requestState: %w", err)
	}
	return reqs, state, nil
}

// ElicitTimeout is an adapter's Options.ElicitTimeout as the runtime reads
// its own: 0 is runtime.DefaultElicitTimeout, negative none.
func ElicitTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return runtime.DefaultElicitTimeout
	}
	return d
}

// Call is the call an adapter puts into its handler's context
// (callctx.With), so runtime.Elicit and the rest ask in it.
type Call struct {
	// Version is the request's protocol version.
	Version string
	// Declared, Form and URL are what the client declared: whether it sent
	// capabilities.elicitation at all, and whether that names each mode.
	Declared, Form, URL bool
	// Run is the call's round trip on a 2026-07-28 request, else nil.
	Run *Run
	// Send asks in an initialized session: it sends elicitation/create with
	// params and returns the client's raw ElicitResult (a JSON-RPC error
	// the client answered with as a *runtime.ClientError). Nil: the call
	// cannot ask in a session.
	Send func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Timeout is the adapter's elicitation timeout (0 or negative: none).
	Timeout time.Duration
	// Capabilities is the client's capabilities object as far as sampling
	// and roots go (runtime.Sample and ListRoots read it).
	Capabilities json.RawMessage
	// SendRequest sends another request than elicitation in an initialized
	// session: sampling/createMessage or roots/list with params, returning
	// the client's raw result. Nil: the call cannot send them in a session.
	SendRequest func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Tel is the adapter's telemetry (its Options.TracerProvider and
	// MeterProvider), nil for none.
	Tel *telemetry.T

	op *telemetry.Op // Start's, ended by Finish
}

var (
	_ callctx.Call      = (*Call)(nil)
	_ callctx.Requester = (*Call)(nil)
	_ callctx.Observed  = (*Call)(nil)
)

// Telemetry is the adapter's telemetry, which records the elicitations of
// the call.
func (c *Call) Telemetry() *telemetry.T { return c.Tel }

// Start starts the telemetry of the tools/call c serves, as the runtime
// records its own (telemetry.T.Start): r names the tool (Target), the
// session (SessionID, dropped on 2026-07-28 and over stdio) and what
// carries the trace context (Meta, Header: nil over stdio); its Method,
// Protocol and Stdio are set here. It returns
// the context the handler runs in. The span's parent is the span the
// library already put on ctx, else the trace context of r.Meta, else of
// r.Header. Without telemetry it returns ctx and records nothing.
func (c *Call) Start(ctx context.Context, r telemetry.Request) context.Context {
	if c.Tel == nil {
		return ctx
	}
	r.Method, r.Protocol = toolsCall, c.Version
	// Both libraries pass on the HTTP request's header, and none over
	// stdio, whose session has no id on the wire.
	r.Stdio = r.HTTP == nil && r.Header == nil
	if IsInputRequired(c.Version) || r.Stdio {
		r.SessionID = "" // mcp.session.id must not be set on 2026-07-28, nor over stdio
	}
	r.KeepParent = true // a span of the library's is the parent
	ctx, c.op = c.Tel.Start(ctx, r)
	return ctx
}

// Finish ends what Start started, with the call's outcome.
func (c *Call) Finish(o telemetry.Outcome) { c.op.End(o) }

// ProtocolVersion is the request's protocol version.
func (c *Call) ProtocolVersion() string { return c.Version }

// Elicitation is what the client declared.
func (c *Call) Elicitation() (declared, form, url bool) { return c.Declared, c.Form, c.URL }

// ElicitTimeout is the adapter's elicitation timeout.
func (c *Call) ElicitTimeout() time.Duration { return c.Timeout }

// Ask asks through the round trip on a 2026-07-28 request, else in the
// session.
func (c *Call) Ask(ctx context.Context, key string, params json.RawMessage) (json.RawMessage, error) {
	switch {
	case c.Run != nil:
		return c.Run.ask(key, params)
	case c.Send == nil:
		return nil, fmt.Errorf("%w: the call has no session to ask in", runtime.ErrElicitUnsupported)
	}
	return c.Send(ctx, params)
}

// Request sends a request of method through the round trip on a
// 2026-07-28 request, else in the session.
func (c *Call) Request(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error) {
	switch {
	case c.Run != nil:
		return c.Run.request(key, method, params)
	case c.SendRequest == nil:
		return nil, fmt.Errorf("%w: the call has no session to send %s in", runtime.ErrElicitUnsupported, method)
	}
	return c.SendRequest(ctx, method, params)
}

// ClientCapabilities is the client's capabilities object (Capabilities).
func (c *Call) ClientCapabilities() json.RawMessage { return c.Capabilities }

// ResultText is the text of a result a ToolArgs answered a call with (one
// text item, isError), for the adapter's own result type.
func ResultText(r *runtime.CallToolResult) string {
	var b []string
	for _, c := range r.Content {
		b = append(b, c.Text)
	}
	return strings.Join(b, "\n")
}

// MissingCapability is the JSON-RPC error of a handler that failed with a
// *runtime.MissingCapabilityError on a 2026-07-28 request (-32021, data
// naming the capability), for the adapter to answer the call with; nil for
// another error or version.
func MissingCapability(version string, herr error) *runtime.RPCError {
	var mc *runtime.MissingCapabilityError
	if !IsInputRequired(version) || !errors.As(herr, &mc) {
		return nil
	}
	return mc.RPCError()
}

// Params are the elicitation/create params the runtime asks with, read
// back for a library's own params type; RequestedSchema keeps its bytes (and
// so the order of its properties).
type Params struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitationId"`
}

// ParseParams reads params back.
func ParseParams(raw json.RawMessage) (Params, error) {
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return Params{}, fmt.Errorf("elicit: reading back the elicitation params: %w", err)
	}
	return p, nil
}

// Must panics, at registration, with "elicit: fn: " and err's text, when
// err is not nil (see "Set-up mistakes panic" in the runtime package doc).
func Must(fn string, err error) {
	if err != nil {
		panic("elicit: " + fn + ": " + strings.TrimPrefix(err.Error(), "elicit: "))
	}
}

// MustTool panics, at registration by fn, on a tool with no name or a nil
// handler (nilHandler), with the fix.
func MustTool(fn, name string, nilHandler bool) {
	switch {
	case name == "":
		Must(fn, errors.New("the tool has no name, so no client could call it: set its Name"))
	case nilHandler:
		Must(fn, fmt.Errorf("tool %q has a nil handler: pass the function that serves its calls", name))
	}
}
