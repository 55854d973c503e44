package runtime

// What the adapters to other server libraries (runtime/gosdk,
// runtime/mcpgo) use of the runtime beyond what a handler calls: an
// adapter puts its call into the handler's ctx (runtime/internal/callctx),
// so Elicit[T] and the rest work there unchanged, and decodes the
// arguments of its typed tools with a ToolArgs.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// elicitResult is what elicitOutcome reads of an ElicitResult.
type elicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
}

// elicitOutcome maps the result a client answered an elicitation/create
// with to the content of an accept (nil or null when it sent none) or to
// the outcome error: ErrElicitDeclined, ErrElicitCanceled,
// ErrElicitMalformed (not an ElicitResult, unknown action, content not an
// object). A URL-mode (form false) accept carries no content, so none is
// checked.
func elicitOutcome(raw json.RawMessage, form bool) (json.RawMessage, error) {
	var r elicitResult
	var ok bool
	if r.Action, r.Content, ok = decodeElicitResultFast(raw); !ok {
		slow := new(elicitResult) // its own: what encoding/json is handed escapes, r need not
		if err := roundtrip.StrictUnmarshal(raw, slow); err != nil {
			return nil, fmt.Errorf("%w: result is not an elicitation result: %v", ErrElicitMalformed, err)
		}
		r = *slow
	}
	switch r.Action {
	case "accept":
		if !form {
			return nil, nil
		}
		if len(r.Content) > 0 && r.Content[0] != '{' && string(r.Content) != "null" {
			return nil, fmt.Errorf("%w: content must be an object", ErrElicitMalformed)
		}
		return r.Content, nil
	case "decline":
		return nil, ErrElicitDeclined
	case "cancel":
		return nil, ErrElicitCanceled
	case "":
		return nil, fmt.Errorf("%w: result has no action", ErrElicitMalformed)
	default:
		return nil, fmt.Errorf("%w: unknown action %q", ErrElicitMalformed, clip(r.Action))
	}
}

// DecodeAnswer turns the ElicitResult a client answered the generated form
// T with into a T, decoded and validated by the generated code: what
// Elicit[T] does once the answer is there (a handler's test may call it
// on a recorded answer). The errors are Elicit[T]'s: ErrElicitDeclined,
// ErrElicitCanceled, ErrElicitMalformed, and a *ContentError naming each
// failing property; with an error the value is T's zero value.
func DecodeAnswer[T any, P interface {
	*T
	formimpl.Form
}](result json.RawMessage) (T, error) {
	var v T
	content, err := elicitOutcome(result, true)
	if err != nil {
		return v, err
	}
	if len(content) == 0 || string(content) == "null" {
		content = []byte("{}")
	}
	if err := P(&v).ElicitDecode(content); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// formName names the form in errors: "bgp.PeerForm", or its bare
// name in code generated before the descriptor had its package.
func formName(d *formimpl.Descriptor) string {
	if d.Package == "" {
		return d.Name
	}
	return d.Package + "." + d.Name
}

// FormSchema is the generated requestedSchema of form d for protocol
// version, or ErrElicitUnsupported when the form has none for it (the
// version is unknown, or it cannot express the form: the error says why).
func FormSchema(d *formimpl.Descriptor, version string) (json.RawMessage, error) {
	v, err := formVariant(d, version)
	return v.Schema, err
}

// formVariant is form d as protocol version sees it: its requestedSchema
// and the optional properties left out of it (Variant.Dropped), or
// FormSchema's error.
func formVariant(d *formimpl.Descriptor, version string) (formimpl.Variant, error) {
	if d == nil {
		return formimpl.Variant{}, unsupportedf("no form descriptor: pass the one the generated ElicitForm method returns")
	}
	variant, ok := d.Lookup(version)
	switch {
	case !ok:
		return formimpl.Variant{}, unsupportedf("form %s has no schema for protocol %s", formName(d), version)
	case variant.Schema == nil:
		return formimpl.Variant{}, unsupportedf("form %s: %s", formName(d), variant.Unsupported)
	}
	return variant, nil
}

// elicitOptionsOf applies opts (nil ones are skipped) to the defaults: the
// key is the last WithKey's, else defaultKey (the form's Descriptor.Key).
func elicitOptionsOf(defaultKey string, opts []ElicitOption) elicitOptions {
	return optionsOf(defaultKey, opts, ElicitOption.applyToElicit)
}

// checkForm reports why a client on version, which declared form
// elicitation or not (canForm), cannot be asked with a form, if it cannot.
func checkForm(version string, canForm bool) error {
	switch {
	case !hasFormElicitation(version):
		return unsupportedf("protocol %s has no elicitation", version)
	case !canForm:
		return &MissingCapabilityError{Mode: "form"}
	}
	return nil
}

// MissingCapabilityError is the ErrElicitUnsupported of a client that did
// not declare what it would be asked with: the elicitation mode Mode
// ("form" or "url"), or, with Capability "sampling" or "roots", that
// capability (Mode "tools" for sampling with tools). On a 2026-07-28
// request a handler that returns it fails the call with its RPCError,
// -32021 naming the capability.
type MissingCapabilityError struct {
	Mode string
	// Capability is the client capability missing: "" (elicitation),
	// "sampling" or "roots".
	Capability string
}

func (e *MissingCapabilityError) capability() string {
	if e.Capability == "" {
		return "elicitation"
	}
	return e.Capability
}

func (e *MissingCapabilityError) Error() string {
	switch c := e.capability(); {
	case c == "elicitation":
		return fmt.Sprintf("%s: the client did not declare %s elicitation", ErrElicitUnsupported.Error(), e.Mode)
	case e.Mode != "":
		return fmt.Sprintf("%s: the client did not declare %s.%s", ErrElicitUnsupported.Error(), c, e.Mode)
	default:
		return fmt.Sprintf("%s: the client did not declare %s", ErrElicitUnsupported.Error(), c)
	}
}

// Is makes errors.Is(err, ErrElicitUnsupported) true.
func (e *MissingCapabilityError) Is(target error) bool { return target == ErrElicitUnsupported }

// RPCError is the -32021 error of the 2026-07-28 protocol, with
// data.requiredCapabilities naming the capability (and mode).
func (e *MissingCapabilityError) RPCError() *RPCError {
	c, what := e.capability(), e.capability()
	required := map[string]any{}
	if e.Mode != "" {
		required[e.Mode] = map[string]any{}
		what += " (" + e.Mode + ")"
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{c: required}})
	return &RPCError{Code: CodeMissingCapability, Message: "missing required client capability: " + what, Data: data}
}

// ToolArgs decodes the arguments of an adapter's typed tool as AddTool
// does: with the generated decoder when *In is a generated form, else as
// In's JSON Schema says (see AddTool); with AskMissing among its options,
// the required arguments a call left out are asked for first. Make it with
// NewToolArgs.
type ToolArgs[In any] struct {
	tool   string
	schema json.RawMessage
	decode argsDecoder[In]
	ask    *missingAsker
}

// NewToolArgs returns the ToolArgs of the tool named tool, whose own
// inputSchema is schema (nil when it has none), with AddTool's opts. It
// fails, as AddTool panics, on AskMissing among opts for an In that is not
// a generated form.
func NewToolArgs[In any](tool string, schema json.RawMessage, opts ...ToolOption) (*ToolArgs[In], error) {
	t := Tool{Name: tool, InputSchema: schema}
	return newToolArgs[In](&t, opts)
}

// newToolArgs is NewToolArgs for tool t, whose empty InputSchema it sets
// to In's (the arguments decoder does; the asker then reads it).
func newToolArgs[In any](t *Tool, opts []ToolOption) (*ToolArgs[In], error) {
	decode := newArgsDecoder[In](t)
	ask, err := toolAsker[In](t, opts)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	return &ToolArgs[In]{tool: t.Name, schema: t.InputSchema, decode: decode, ask: ask}, nil
}

// InputSchema is the inputSchema to list for the tool: its own, else the
// one AddTool would list for In.
func (t *ToolArgs[In]) InputSchema() json.RawMessage {
	if t == nil {
		return nil
	}
	return t.schema
}

// Asks reports whether the tool asks for the arguments a call left out
// (AskMissing applies to it).
func (t *ToolArgs[In]) Asks() bool { return t != nil && t.ask != nil }

// Decode turns a call's arguments raw into an In for the handler. With a
// non-nil result the call is answered with it (an isError result: the
// arguments are wrong, or missing and not given by the user) and the
// handler does not run; an error (ErrInputRequired on 2026-07-28 once the
// question is recorded) is the call's. ctx is the handler's: missing
// arguments are asked for in the call it belongs to, as ElicitSchema asks.
func (t *ToolArgs[In]) Decode(ctx context.Context, raw json.RawMessage) (In, *CallToolResult, error) {
	var in In
	if t == nil || t.decode == nil {
		return in, nil, errors.New("elicit: ToolArgs was not made by NewToolArgs: make it with runtime.NewToolArgs")
	}
	err := t.decode(raw, &in)
	if err == nil {
		return in, nil, nil
	}
	if t.ask == nil {
		return in, argsErrorResult(t.tool, err), nil
	}
	in = *new(In) // the failed decode may have set fields
	res, err := t.ask.fill(ctx, raw, err, func(raw json.RawMessage) error { in = *new(In); return t.decode(raw, &in) })
	if res != nil || err != nil {
		var zero In
		return zero, res, err
	}
	return in, nil, nil
}
