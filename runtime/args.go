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
// inputSchema, as tools/list shows it, promises: a tool's arguments are
// checked as strictly as a form's content.
//
//   - When In is a generated form (elicitgen -type, or //elicit:form), its
//     generated schema is the inputSchema and its generated decoder decodes
//     the arguments: types, required, enums, bounds, formats, unknown keys,
//     validate tags.
//   - Otherwise the schema is reflected from In (invopop/jsonschema) and the
//     arguments must be an object, hold every required property, name no
//     property the schema does not allow (additionalProperties false),
//     have the types of In's fields, and pass In's validate tags.
//
// Errors name the property, as a *ContentError does.
type argsDecoder[In any] func(raw json.RawMessage, in *In) error

// newArgsDecoder returns In's decoder and sets t.InputSchema when it is
// empty. A tool with its own InputSchema keeps it; In is then decoded
// leniently (only types), since the schema may not be In's.
func newArgsDecoder[In any](t *Tool) argsDecoder[In] {
	if _, ok := any(new(In)).(formcore.Form); ok {
		return newFormArgsDecoder[In](t)
	}
	if len(t.InputSchema) > 0 {
		return func(raw json.RawMessage, in *In) error { return decodeArgs(raw, in, argsRules{}) }
	}
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	sch := r.Reflect(new(In))
	sch.Version = ""
	raw, err := json.Marshal(sch)
	if err != nil {
		panic(fmt.Sprintf("elicit: AddTool %q: reflecting input schema: %v", t.Name, err))
	}
	t.InputSchema = raw
	rules := argsRules{required: slices.Clone(sch.Required)}
	if sch.AdditionalProperties != nil && reflect.DeepEqual(sch.AdditionalProperties, jsonschema.FalseSchema) && sch.Properties != nil {
		rules.known = map[string]bool{}
		for p := sch.Properties.Oldest(); p != nil; p = p.Next() {
			rules.known[p.Key] = true
		}
	}
	// validate tags are checked on the struct In is or points to.
	st := reflect.TypeFor[In]()
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	validated := st.Kind() == reflect.Struct && hasValidateTags(st)
	return func(raw json.RawMessage, in *In) error {
		if err := decodeArgs(raw, in, rules); err != nil {
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

// argsRules are what a reflected inputSchema says of the arguments object.
type argsRules struct {
	required []string        // properties that must be present and not null
	known    map[string]bool // the only properties allowed (exact names); nil: any
}

// newFormArgsDecoder serves a generated form as a tool's arguments.
func newFormArgsDecoder[In any](t *Tool) argsDecoder[In] {
	if len(t.InputSchema) == 0 {
		d := any(new(In)).(formcore.Form).ElicitForm()
		schema, err := FormSchema(d, Version20251125)
		if err != nil {
			panic(fmt.Sprintf("elicit: AddTool %q: form %s as arguments: %v", t.Name, formName(d), err))
		}
		t.InputSchema = schema
	}
	return func(raw json.RawMessage, in *In) error {
		if isAbsent(raw) {
			raw = json.RawMessage("{}")
		}
		return any(in).(formcore.Form).ElicitDecode(raw)
	}
}

func isAbsent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// decodeArgs decodes the arguments object into in with encoding/json, after
// checking its property names exactly as the schema has them (encoding/json
// would match "NOTE" to "note"): no unknown ones, every required one present
// and not null. It words encoding/json's errors by property.
func decodeArgs[In any](raw json.RawMessage, in *In, rules argsRules) error {
	if isAbsent(raw) {
		raw = json.RawMessage("{}")
	}
	var problems []Problem
	if len(rules.required) > 0 || rules.known != nil {
		var present map[string]json.RawMessage
		if json.Unmarshal(raw, &present) != nil {
			return &ContentError{Problems: []Problem{{Message: "the arguments must be a JSON object"}}}
		}
		for _, name := range rules.required {
			if v, ok := present[name]; !ok || string(bytes.TrimSpace(v)) == "null" {
				problems = append(problems, Problem{Property: name, Message: "is required"})
			}
		}
		if rules.known != nil {
			for name := range present {
				if !rules.known[name] {
					problems = append(problems, Problem{Property: name, Message: "is not an argument of this tool"})
				}
			}
		}
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(in); err != nil {
		problems = append(problems, argsProblem(err))
	}
	if len(problems) == 0 {
		return nil
	}
	// By property, then message: one order, in n log n however many.
	slices.SortFunc(problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Property, b.Property), strings.Compare(a.Message, b.Message))
	})
	return &ContentError{Problems: problems}
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
