package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-elicit/elicit/internal/formcore"
)

// ToolOption adjusts how AddTool serves one tool.
type ToolOption func(*toolOptions)

type toolOptions struct {
	askMissing bool
	message    string
}

// AskMissing makes a tool whose arguments type is a generated form ask the
// user for the required arguments a call left out, before the handler
// runs, with message (a default names the tool when it is ""):
//
//	runtime.AddTool(srv, tool, execute, runtime.AskMissing("Which command should run?"))
//
// The tool's inputSchema (the form's, when the tool has none of its own)
// lists the arguments it asks for as optional, their descriptions ending
// "Asked for when missing.", so that a client that enforces required (a UI
// client disables its call button) can call without them; the handler
// still gets them, or does not run.
//
// The question is the argument form restricted to the missing required
// properties (their schema as the client's protocol version has it); the
// arguments the caller gave are kept, and the answers join them before the
// generated decoder checks the whole. A required argument given as null,
// or as "" where the form refuses "" (minLength), counts as left out. On 2026-07-28 the question is an input_required
// round (key "missing_arguments") before the handler first runs.
//
// When the client cannot be asked (no form elicitation, or a missing
// property its protocol version cannot carry) the call gets the isError
// result "missing required argument: command" ("missing required
// arguments: a, b" for several). Arguments with other problems too, and
// answers that do not decode, get the argument error naming every failing
// property, as without AskMissing. Decline and cancel give the isError
// results "the user declined to answer" and "the user canceled the
// request". In each of these the handler does not run.
// For an arguments type that is not a generated form AddTool panics (see
// "Set-up mistakes panic" in the package doc).
func AskMissing(message string) ToolOption {
	return func(o *toolOptions) { o.askMissing, o.message = true, message }
}

// missingAsker asks for the missing required arguments of one tool.
type missingAsker struct {
	tool     string
	message  string
	required []string       // the form's required properties
	schema   map[string]any // the form's newest requestedSchema
}

// missingKey is the input-request key of AskMissing's question on 2026-07-28.
const missingKey = "missing_arguments"

// newMissingAsker returns the asker for a tool whose arguments are the
// generated form d, or an error saying why it cannot ask.
func newMissingAsker(tool, message string, d *formcore.Descriptor) (*missingAsker, error) {
	raw, err := FormSchema(d, Version20260728)
	if err != nil {
		return nil, err
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("decoding the form's schema: %w", err)
	}
	a := &missingAsker{tool: tool, message: message, schema: schema}
	if l, ok := schema["required"].([]any); ok {
		for _, r := range l {
			if s, ok := r.(string); ok {
				a.required = append(a.required, s)
			}
		}
	}
	if a.message == "" {
		a.message = fmt.Sprintf("The tool %q needs more arguments.", tool)
	}
	return a, nil
}

// fill is called when the arguments raw did not decode (argErr): it asks
// for the missing required ones and decodes the whole into in. It returns
// (nil, nil) when in is ready for the handler, a result to answer the call
// with instead, or ErrInputRequired (the question is asked on 2026-07-28).
func (a *missingAsker) fill(ctx context.Context, raw json.RawMessage, argErr error, decode func(json.RawMessage) error) (*CallToolResult, error) {
	return a.fillWith(raw, argErr, decode, ClientSupportsElicit(ctx), func(message string, schema map[string]any) (map[string]any, error) {
		return ElicitSchema(ctx, message, schema, WithKey(missingKey))
	})
}

// fillWith is fill for a client that canAsk a form question, asked with
// ask (ElicitSchema's outcomes).
func (a *missingAsker) fillWith(raw json.RawMessage, argErr error, decode func(json.RawMessage) error,
	canAsk bool, ask func(message string, schema map[string]any) (map[string]any, error)) (*CallToolResult, error) {
	given := map[string]json.RawMessage{}
	if !isAbsent(raw) && json.Unmarshal(raw, &given) != nil {
		return argsErrorResult(a.tool, argErr), nil
	}
	var missing []string
	for _, name := range a.required {
		v, ok := given[name]
		if v = bytes.TrimSpace(v); !ok || string(v) == "null" || string(v) == `""` {
			missing = append(missing, name)
			delete(given, name)
		}
	}
	if len(missing) == 0 || !onlyMissing(given, missing, decode) {
		return argsErrorResult(a.tool, argErr), nil
	}
	if !canAsk {
		return missingResult(missing), nil
	}
	values, err := ask(a.message, a.restricted(missing))
	var ce *ContentError
	switch {
	case errors.Is(err, ErrInputRequired):
		return nil, err
	case errors.Is(err, ErrElicitDeclined):
		return ErrorResult("the user declined to answer"), nil
	case errors.Is(err, ErrElicitCanceled):
		return ErrorResult("the user canceled the request"), nil
	case errors.Is(err, ErrElicitUnsupported):
		return missingResult(missing), nil
	case errors.As(err, &ce):
		return argsErrorResult(a.tool, err), nil
	case err != nil:
		return nil, err
	}
	for _, name := range missing {
		if v, ok := values[name]; ok {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("encoding the answer for %q: %w", name, err)
			}
			given[name] = b
		}
	}
	merged, err := json.Marshal(given)
	if err != nil {
		return nil, fmt.Errorf("encoding the arguments: %w", err)
	}
	if err := decode(merged); err != nil {
		return argsErrorResult(a.tool, err), nil
	}
	return nil, nil
}

// onlyMissing reports whether the given arguments (the missing ones left
// out) fail only for the missing ones being absent: the rest is fine, so
// asking is worth it.
func onlyMissing(given map[string]json.RawMessage, missing []string, decode func(json.RawMessage) error) bool {
	raw, err := json.Marshal(given)
	if err != nil {
		return false
	}
	var ce *ContentError
	if !errors.As(decode(raw), &ce) || ce.more > 0 {
		return false
	}
	for _, p := range ce.Problems {
		if p.Message != "is required" || !slices.Contains(missing, p.Property) {
			return false
		}
	}
	return true
}

// restricted is the argument form with only the missing properties, all
// required.
func (a *missingAsker) restricted(missing []string) map[string]any {
	props, _ := a.schema["properties"].(map[string]any)
	keep := make(map[string]any, len(missing))
	req := make([]any, len(missing))
	for i, name := range missing {
		keep[name] = props[name]
		req[i] = name
	}
	return map[string]any{"type": "object", "properties": keep, "required": req}
}

// missingResult is the answer to a call whose missing required arguments
// cannot be asked for: the seed's "missing required argument: command".
func missingResult(missing []string) *CallToolResult {
	if len(missing) == 1 {
		return ErrorResult("missing required argument: %s", missing[0])
	}
	return ErrorResult("missing required arguments: %s", strings.Join(missing, ", "))
}

// toolAsker is the missingAsker opts ask for, or nil; the error says why an
// AskMissing among them does nothing. Called after newArgsDecoder: when t's
// inputSchema is the form's (newArgsDecoder set it), it lists the
// properties asked for as optional (a client that enforces required, as UI
// clients do, can then call without them), their descriptions saying they
// are asked for; the form's decoder still requires them, which is what
// makes the call ask.
func toolAsker[In any](t *Tool, opts []ToolOption) (*missingAsker, error) {
	var o toolOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if !o.askMissing {
		return nil, nil
	}
	f, ok := any(new(In)).(formcore.Form)
	if !ok {
		return nil, errors.New("AskMissing needs arguments of a generated form type: mark the arguments struct //elicit:form and run go generate, or leave AskMissing out")
	}
	a, err := newMissingAsker(t.Name, o.message, f.ElicitForm())
	if err != nil {
		return nil, fmt.Errorf("AskMissing cannot ask for this form: %w", err)
	}
	if bytes.Equal(t.InputSchema, formArgsSchema[In](t.Name)) {
		schema, err := askedOptional(t.InputSchema, a.required)
		if err != nil {
			return nil, fmt.Errorf("AskMissing cannot ask for this form: %w", err)
		}
		t.InputSchema = schema
	}
	return a, nil
}

// askedSuffix ends the description of a property AskMissing asks for.
const askedSuffix = "Asked for when missing."

// askedOptional is the form's inputSchema raw with the properties asked
// leaves out of required, their descriptions saying they are asked for.
func askedOptional(raw json.RawMessage, asked []string) (json.RawMessage, error) {
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("decoding the form's schema: %w", err)
	}
	props, _ := schema["properties"].(map[string]any)
	var keep []any
	if l, ok := schema["required"].([]any); ok {
		for _, r := range l {
			if s, ok := r.(string); !ok || !slices.Contains(asked, s) {
				keep = append(keep, r)
			}
		}
	}
	for _, name := range asked {
		p, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		if d, _ := p["description"].(string); d != "" {
			p["description"] = strings.TrimRight(d, " ") + " " + askedSuffix
		} else {
			p["description"] = askedSuffix
		}
	}
	if len(keep) == 0 {
		delete(schema, "required")
	} else {
		schema["required"] = keep
	}
	return json.Marshal(schema)
}
