package runtime

// The kit for adapters to other MCP server libraries (see the package doc,
// "Adapters to other server libraries"). An adapter's Elicit[T] runs
// CheckForm, FormSchema, then AskAndDecode with a function that asks with
// its library (a session: elicitation/create on the call's stream) or
// through the input_required round trip under ElicitKey (2026-07-28):
// AskAndDecode decodes with DecodeAnswer and re-asks as WithReask allows.
// On 2026-07-28 it answers a *MissingCapabilityError with its RPCError.
// An adapter's typed AddTool decodes the arguments with a ToolArgs (made by
// NewToolArgs), which asks for the missing ones under AskMissing.

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// ElicitOutcome maps the result a client answered a form-mode
// elicitation/create with to the content of an accept (nil or null when it
// sent none) or to the outcome error: ErrElicitDeclined, ErrElicitCanceled,
// ErrElicitMalformed (not an ElicitResult, unknown action, content not an
// object).
func ElicitOutcome(result json.RawMessage) (content json.RawMessage, err error) {
	return elicitOutcome(result, true)
}

// elicitOutcome is ElicitOutcome; a URL-mode (form false) accept carries no
// content, so none is checked.
func elicitOutcome(raw json.RawMessage, form bool) (json.RawMessage, error) {
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	var ok bool
	if r.Action, r.Content, ok = decodeElicitResultFast(raw); !ok {
		if err := roundtrip.StrictUnmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("%w: result is not an elicitation result: %v", ErrElicitMalformed, err)
		}
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
// Elicit[T] does once the answer is there. The errors are ElicitOutcome's
// and a *ContentError naming each failing property; with an error the
// value is T's zero value.
func DecodeAnswer[T any, P interface {
	*T
	formimpl.Form
}](result json.RawMessage) (T, error) {
	var v T
	content, err := ElicitOutcome(result)
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

// formName names the form in errors: "booking.PeerForm", or its bare
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

// ElicitKey is the input-request key of an Elicit[T] call: the last WithKey
// among opts (nil ones are skipped), else defaultKey (the form's
// Descriptor.Key).
func ElicitKey(defaultKey string, opts ...ElicitOption) string {
	return elicitOptionsOf(defaultKey, opts).key
}

// elicitOptionsOf applies opts (nil ones are skipped) to the defaults.
func elicitOptionsOf(defaultKey string, opts []ElicitOption) elicitOptions {
	o := elicitOptions{key: defaultKey}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// CheckForm reports why a client cannot be asked with a form, if it cannot:
// version has no form elicitation (ErrElicitUnsupported), or the client did
// not declare it (*MissingCapabilityError). declared tells whether it sent
// capabilities.elicitation at all, form and url whether that names those
// modes: from 2025-11-25 on, {} means form only and {url:{}} means URL only.
func CheckForm(version string, declared, form, url bool) error {
	return checkForm(version, elicitCapsOf(declared, form, url).form)
}

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
// not declare the elicitation mode (Mode "form" or "url") it would be asked
// in. On a 2026-07-28 request a handler that returns it fails the call with
// its RPCError, -32021 naming the capability.
type MissingCapabilityError struct{ Mode string }

func (e *MissingCapabilityError) Error() string {
	return fmt.Sprintf("%s: the client did not declare %s elicitation", ErrElicitUnsupported.Error(), e.Mode)
}

// Is makes errors.Is(err, ErrElicitUnsupported) true.
func (e *MissingCapabilityError) Is(target error) bool { return target == ErrElicitUnsupported }

// RPCError is the -32021 error of the 2026-07-28 protocol, with
// data.requiredCapabilities naming the mode.
func (e *MissingCapabilityError) RPCError() *RPCError {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"elicitation": map[string]any{e.Mode: map[string]any{}}}})
	return &RPCError{Code: CodeMissingCapability, Message: "missing required client capability: elicitation (" + e.Mode + ")", Data: data}
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
// inputSchema is schema (nil when it has none), with AddTool's opts. The
// error says why an AskMissing among opts does nothing (In is not a
// generated form); the ToolArgs is usable either way.
func NewToolArgs[In any](tool string, schema json.RawMessage, opts ...ToolOption) (*ToolArgs[In], error) {
	t := Tool{Name: tool, InputSchema: schema}
	ta := &ToolArgs[In]{tool: tool, decode: newArgsDecoder[In](&t)}
	ta.schema = t.InputSchema
	var err error
	ta.ask, err = toolAsker[In](tool, opts)
	return ta, err
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
// handler does not run; an error (runtime.ErrInputRequired on 2026-07-28
// once the question is recorded) is the call's. The client speaks
// version; unsupported is CheckForm's verdict on it (nil when it can be
// asked a form); ask puts the form question under key and returns the
// client's raw ElicitResult, as AskAndDecode's ask does.
func (t *ToolArgs[In]) Decode(raw json.RawMessage, version string, unsupported error,
	ask func(key, message string, schema json.RawMessage) (json.RawMessage, error)) (In, *CallToolResult, error) {
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
	res, err := t.ask.fillWith(raw, err, func(raw json.RawMessage) error { in = *new(In); return t.decode(raw, &in) },
		unsupported == nil, func(message string, schema map[string]any) (map[string]any, error) {
			return askSchema(version, func() error { return unsupported }, message, schema, 0,
				func(message string, schema json.RawMessage) (json.RawMessage, error) {
					return ask(missingKey, message, schema)
				})
		})
	if res != nil || err != nil {
		var zero In
		return zero, res, err
	}
	return in, nil, nil
}
