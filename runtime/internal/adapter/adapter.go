// Package adapter is what elicit's adapters to other MCP server libraries
// (runtime/gosdk, runtime/mcpgo) share and is not tied to either library:
// the body of their Elicit[T], and their 2026-07-28 round trip (a Run, whose
// requestState is sealed by internal/roundtrip under the adapters' own
// label). Each adapter keeps only the translation to its library's types.
package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// stateLabel keeps the adapters' requestState ciphertexts apart from the
// runtime's and from any other use of the same key.
const stateLabel = "elicit/adapter/requestState/v1"

// toolsCall is the method every adapted round trip belongs to.
const toolsCall = "tools/call"

// NotAdapted is runtime.ErrNoCall with an adapter's fix: how to register
// a tool through it.
func NotAdapted(fix string) error {
	return fmt.Errorf("%w; and register the tool through the adapter (%s)", runtime.ErrNoCall, fix)
}

// CallFrom returns the *C an adapter's tool wrapper stored in ctx under
// key: the adapted call ctx belongs to, or notAdapted (a nil ctx, or one of
// no adapted call).
func CallFrom[C any](ctx context.Context, key any, notAdapted error) (*C, error) {
	if ctx == nil {
		return nil, notAdapted
	}
	c, _ := ctx.Value(key).(*C)
	if c == nil {
		return nil, notAdapted
	}
	return c, nil
}

// IsInputRequired reports whether version v is served by the input_required
// round trip (2026-07-28 and later).
func IsInputRequired(v string) bool { return v >= runtime.Version20260728 }

// HasElicitMode reports whether version v has the elicitation "mode" field.
func HasElicitMode(v string) bool { return v >= runtime.Version20251125 }

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

// formParams are the elicitation/create params a run records.
type formParams struct {
	Mode            string          `json:"mode"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ask returns the raw ElicitResult for the next ask of key, or records the
// request and returns runtime.ErrInputRequired.
func (r *Run) ask(key, message string, schema json.RawMessage) (json.RawMessage, error) {
	params, err := json.Marshal(formParams{Mode: "form", Message: message, RequestedSchema: schema})
	if err != nil {
		return nil, fmt.Errorf("elicit: encoding the request: %w", err)
	}
	if ans, ok := r.run.Ask(key, params); ok {
		return ans, nil
	}
	return nil, runtime.ErrInputRequired
}

// Request is one form elicitation a run asked for, to put into the library's
// input_required result under Key.
type Request struct {
	Key     string
	Message string
	Schema  json.RawMessage
}

// End returns what the run asked for, in order, and the requestState to
// send with them; no requests (and no state) when the run asked nothing
// new, and the handler's own result stands.
func (r *Run) End() ([]Request, string, error) {
	asked := r.run.Requests()
	if len(asked) == 0 {
		return nil, "", nil
	}
	reqs := make([]Request, len(asked))
	for i, a := range asked {
		var p formParams
		if err := json.Unmarshal(a.Params, &p); err != nil {
			return nil, "", fmt.Errorf("elicit: reading back request %q: %w", a.Key, err)
		}
		reqs[i] = Request{Key: a.Key, Message: p.Message, Schema: p.RequestedSchema}
	}
	state, err := r.codec.SealRun(r.call, r.run)
	if err != nil {
		return nil, "", fmt.Errorf("sealing requestState: %w", err)
	}
	return reqs, state, nil
}

// Caller is what an adapter knows of the client of one tool call.
type Caller struct {
	// Version is the request's protocol version.
	Version string
	// Unsupported is runtime.CheckForm's verdict on the client: nil when it
	// can be asked with a form.
	Unsupported error
	// Run is the call's round trip on a 2026-07-28 request, else nil.
	Run *Run
	// Send asks in an initialized session (elicitation/create with mode "form"
	// where the version has it) and returns the client's raw ElicitResult.
	Send func(message string, schema json.RawMessage) (json.RawMessage, error)
}

// Elicit is the body of an adapter's Elicit[T]: check the client, pick the
// form's schema for its version, ask (through the round trip or Send) and
// decode the answer, re-asking as runtime.WithReask allows, with
// runtime.Elicit's outcomes.
func Elicit[T any, P interface {
	*T
	formimpl.Form
}](c Caller, message string, opts ...runtime.ElicitOption) (T, error) {
	var zero T
	if c.Unsupported != nil {
		return zero, c.Unsupported
	}
	fc, err := runtime.PrepareElicit[T, P](c.Version, opts...)
	if err != nil {
		return zero, err
	}
	ask := c.Send
	if c.Run != nil {
		ask = func(message string, schema json.RawMessage) (json.RawMessage, error) {
			return c.Run.ask(fc.Key, message, schema)
		}
	}
	return fc.Ask(message, ask)
}

// CanElicit is the body of an adapter's CanElicit[T]: nil when the client
// can be asked T, else why not (runtime.CanElicit's errors).
func CanElicit[T any, P interface {
	*T
	formimpl.Form
}](c Caller) error {
	_, _, err := formFor[T, P](c)
	return err
}

// formFor checks the client and returns form T's descriptor and its schema
// for the client's version.
func formFor[T any, P interface {
	*T
	formimpl.Form
}](c Caller) (*formimpl.Descriptor, formimpl.Variant, error) {
	if c.Unsupported != nil {
		return nil, formimpl.Variant{}, c.Unsupported
	}
	var v T
	d := P(&v).ElicitForm()
	if _, err := runtime.FormSchema(d, c.Version); err != nil {
		return nil, formimpl.Variant{}, err
	}
	variant, _ := d.Lookup(c.Version) // FormSchema found it
	return d, variant, nil
}

// Dropped is runtime.Dropped for the client c: the optional properties of
// T its protocol version is not asked, or nil.
func Dropped[T any, P interface {
	*T
	formimpl.Form
}](c Caller) []string {
	_, variant, err := formFor[T, P](c)
	if err != nil {
		return nil
	}
	return slices.Clone(variant.Dropped)
}

// CtxError is the context's error with its cause, when there is one.
func CtxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("%w: %w", err, cause)
	}
	return err
}

// Args is the body of an adapter's typed tool before its handler runs:
// t.Decode for client c, the questions asked through the round trip or
// Send. The result, when not nil, answers the call instead of the handler.
func Args[In any](t *runtime.ToolArgs[In], c Caller, raw json.RawMessage) (In, *runtime.CallToolResult, error) {
	return t.Decode(raw, c.Version, c.Unsupported, func(key, message string, schema json.RawMessage) (json.RawMessage, error) {
		switch {
		case c.Run != nil:
			return c.Run.ask(key, message, schema)
		case c.Send == nil:
			return nil, fmt.Errorf("%w: the call has no way to ask", runtime.ErrElicitUnsupported)
		}
		return c.Send(message, schema)
	})
}

// ResultText is the text of a result Args answered a call with (one text
// item, isError), for the adapter's own result type.
func ResultText(r *runtime.CallToolResult) string {
	var b []string
	for _, c := range r.Content {
		b = append(b, c.Text)
	}
	return strings.Join(b, "\n")
}
