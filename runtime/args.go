package runtime

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/go-elicit/elicit/internal/formcore"
)

// argsDecoder decodes the arguments of a typed tool into an In the way its
// inputSchema, as tools/list shows it, promises: a call whose arguments
// break it gets every failing property named, and the handler does not run.
//
//   - When In is a generated form (elicitgen -type, or //elicit:form) and
//     the tool has no inputSchema of its own, the form's generated schema
//     is the inputSchema and its generated decoder decodes the arguments:
//     types, required, enums, bounds, formats, unknown keys, validate tags.
//   - Otherwise the inputSchema (the tool's own, or else reflected from In
//     with invopop/jsonschema) is checked by a JSON Schema validator
//     (google/jsonschema-go, every keyword; the formats email, uri, date and
//     date-time are checked too), and then the arguments are decoded into In
//     (encoding/json, or In's generated decoder) and In's validate tags
//     checked.
//
// Errors name the property, as a *ContentError does.
type argsDecoder[In any] func(raw json.RawMessage, in *In) error

// newArgsDecoder returns In's decoder and sets t.InputSchema when it is
// empty. It panics when the inputSchema is not a JSON Schema that can be
// resolved: nothing could be checked against it.
func newArgsDecoder[In any](t *Tool) argsDecoder[In] {
	_, isForm := any(new(In)).(formcore.Form)
	if isForm && len(t.InputSchema) == 0 {
		return newFormArgsDecoder[In](t)
	}
	if len(t.InputSchema) == 0 {
		r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
		sch := r.Reflect(new(In))
		sch.Version = ""
		raw, err := json.Marshal(sch)
		if err != nil {
			panic(fmt.Sprintf("elicit: AddTool %q: reflecting input schema: %v", t.Name, err))
		}
		t.InputSchema = raw
	}
	schema, err := newArgsSchema(t.InputSchema)
	if err != nil {
		panic(fmt.Sprintf("elicit: AddTool %q: %v", t.Name, err))
	}
	if isForm {
		decode := newFormArgsDecoder[In](t)
		return func(raw json.RawMessage, in *In) error {
			problems := schema.checkArgs(raw)
			err := decode(raw, in)
			if problems == nil {
				return err
			}
			// Both say what they find: the schema's problems, and the
			// form's about other properties.
			var ce *ContentError
			if errors.As(err, &ce) {
				for _, p := range ce.Problems {
					if !slices.ContainsFunc(problems, func(q Problem) bool { return q.Property == p.Property }) {
						problems = append(problems, p)
					}
				}
				sortProblems(problems)
			}
			return &ContentError{Problems: problems}
		}
	}
	// validate tags are checked on the struct In is or points to.
	st := reflect.TypeFor[In]()
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	validated := st.Kind() == reflect.Struct && hasValidateTags(st)
	return func(raw json.RawMessage, in *In) error {
		if problems := schema.checkArgs(raw); problems != nil {
			return &ContentError{Problems: problems}
		}
		if err := decodeArgs(raw, in); err != nil {
			return err
		}
		if !validated {
			return nil
		}
		v := reflect.ValueOf(in).Elem()
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		return formcore.ValidationProblems(formcore.Validator().Struct(v.Interface()))
	}
}

// newFormArgsDecoder serves a generated form as a tool's arguments.
func newFormArgsDecoder[In any](t *Tool) argsDecoder[In] {
	if len(t.InputSchema) == 0 {
		t.InputSchema = formArgsSchema[In](t.Name)
	}
	return func(raw json.RawMessage, in *In) error {
		if isAbsent(raw) {
			raw = json.RawMessage("{}")
		}
		return any(in).(formcore.Form).ElicitDecode(raw)
	}
}

// formArgsSchema is the inputSchema of a tool whose arguments are the
// generated form *In: the form's schema, closed (additionalProperties
// false) as its decoder is.
func formArgsSchema[In any](tool string) json.RawMessage {
	d := any(new(In)).(formcore.Form).ElicitForm()
	schema, err := FormSchema(d, Version20251125)
	if err != nil || len(schema) < 2 || schema[0] != '{' {
		panic(fmt.Sprintf("elicit: AddTool %q: form %s as arguments: %v", tool, formName(d), err))
	}
	return slices.Concat([]byte(`{"additionalProperties":false,`), schema[1:])
}

// sortProblems puts an arguments error's problems in one order, by
// property, then message, in n log n however many.
func sortProblems(problems []Problem) {
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Property, b.Property), strings.Compare(a.Message, b.Message))
	})
}

func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// checkArgs is check for arguments that may be absent (no arguments: {}).
// It returns nil when they satisfy the schema, the problems sorted by
// property otherwise.
func (a *argsSchema) checkArgs(raw json.RawMessage) []Problem {
	if isAbsent(raw) {
		raw = json.RawMessage("{}")
	}
	problems := a.check(raw)
	if len(problems) == 0 {
		return nil
	}
	sortProblems(problems)
	return problems
}

// decodeArgs decodes the arguments object, checked against the schema
// already, into in with encoding/json, and words its errors by property.
func decodeArgs[In any](raw json.RawMessage, in *In) error {
	if isAbsent(raw) {
		raw = json.RawMessage("{}")
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(in); err != nil {
		return &ContentError{Problems: []Problem{argsProblem(err)}}
	}
	return nil
}

// argsProblem words an encoding/json error about the arguments.
func argsProblem(err error) Problem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return Problem{Message: "the arguments must be a JSON object"}
		}
		return Problem{Property: te.Field, Message: "must be " + jsonKind(te.Type)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return Problem{Message: "the arguments are not valid JSON: " + se.Error()}
	}
	return Problem{Message: strings.TrimPrefix(err.Error(), "json: ")}
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a " + t.String()
}

// hasValidateTags reports whether t, or a struct it holds, has validate tags.
func hasValidateTags(t reflect.Type) bool {
	return hasValidateTagsSeen(t, map[reflect.Type]bool{})
}

func hasValidateTagsSeen(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return false
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("validate"); ok || hasValidateTagsSeen(f.Type, seen) {
			return true
		}
	}
	return false
}

// argsErrorResult is the isError result of arguments that do not decode:
// every problem, by property, as a form's content errors read.
func argsErrorResult(tool string, err error) *CallToolResult {
	var ce *ContentError
	if !errors.As(err, &ce) {
		return ErrorResult("invalid arguments for tool %q: %v", tool, err)
	}
	return ErrorResult("invalid arguments for tool %q: %s", tool, ce.Detail())
}
