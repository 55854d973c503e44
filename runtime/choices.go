package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// Choice is one option of a run-time choices field: Value is what the
// answer carries, Title what the user sees ("" shows Value).
type Choice struct {
	Value string
	Title string
}

// WithChoices gives the options of the form's run-time choices field
// property (a field tagged elicit:"choices": a single choice for a string
// field, a multi-select for a []string one) for this Elicit[T] call:
//
//	//elicit:form
//	type CommitForm struct {
//		Files []string `json:"files" elicit:"choices" validate:"min=1"`
//	}
//
//	form, err := runtime.Elicit[CommitForm](ctx, "Commit which files?",
//		runtime.WithChoices("files", runtime.Choice{Value: "a.go", Title: "a.go (modified)"}))
//
// The schema is assembled for the client's protocol version and checked
// by the same subset checker as every other schema before anything is
// sent: an empty list, a repeated value, a property that is not a choices
// field (or not in the form) and a choices field left without
// WithChoices are errors matching ErrElicitSchemaInvalid. Titles ride
// as oneOf/anyOf {const, title} where the version has them and as
// enumNames on 2025-06-18 (a multi-select needs 2025-11-25, as always).
// An answer outside the choices is a *ContentError naming the property.
//
// On 2026-07-28 the handler runs again with the answer: pass the same
// choices on that run. The question is identified by what it asks, so
// when the choices changed between the runs (a file appeared, say) the
// client is asked again with the new ones.
func WithChoices(property string, choices ...Choice) ElicitOption {
	return func(o *elicitOptions) {
		o.choices = append(o.choices, choiceSet{property: property, choices: choices})
	}
}

// WithDefaults prefills the form of this Elicit[T] call from form, a T
// (or a non-nil *T): a field counts as given when its value is not the
// zero value of its type, or, for a pointer field, when it is not nil
// (so *bool can give false). The schema carries each given value as the
// property's default where the client's protocol version can (booleans
// from 2025-06-18; strings, numbers, choices and multi-selects from
// 2025-11-25), and the answer gets it when the client leaves the property
// out, on every version; a given property is therefore optional, as with
// a default in the struct tag. A value of another type than the form is an
// error matching ErrElicitSchemaInvalid, as is a default the property's
// schema refuses (one outside the call's choices, say).
func WithDefaults(form any) ElicitOption {
	return func(o *elicitOptions) { o.defaults, o.hasDefaults = form, true }
}

type choiceSet struct {
	property string
	choices  []Choice
}

// PrepareElicit readies one Elicit[T] call for a client on protocol
// version: the input-request key (WithKey or the form's), the
// requestedSchema with the call's WithChoices and WithDefaults applied,
// and the function that decodes the client's raw result into a T (as
// DecodeAnswer, plus the call's defaults and choices). It gives
// ErrElicitUnsupported when the version cannot carry T and
// ErrElicitSchemaInvalid for bad options. For adapters; handlers call
// Elicit[T].
func PrepareElicit[T any, P interface {
	*T
	formimpl.Form
}](version string, opts ...ElicitOption) (key string, schema json.RawMessage, decode func(result json.RawMessage) (T, error), err error) {
	var v T
	d := P(&v).ElicitForm()
	if schema, err = FormSchema(d, version); err != nil {
		return "", nil, nil, err
	}
	o := elicitOptions{key: d.Key}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if len(o.choices) == 0 && !o.hasDefaults && len(d.Choices) == 0 {
		return o.key, schema, DecodeAnswer[T, P], nil // a static form: its generated schema as it is
	}
	dyn, err := newDynamicForm(d, reflect.TypeFor[T](), version, &o)
	if err != nil {
		return "", nil, nil, err
	}
	return o.key, dyn.schema, func(result json.RawMessage) (T, error) { return decodeDynamic[T, P](dyn, result) }, nil
}

// dynamicForm is one call's form: its schema, the defaults to fill in and
// the choices to check the answer against.
type dynamicForm struct {
	schema   json.RawMessage
	defaults map[string]json.RawMessage // by property: the call's given values
	choices  map[string]any             // the choices properties' schemas, to check answers with
}

// newDynamicForm builds the call's schema from the form's newest one:
// options and defaults go in with the newest version's keywords, then the
// checker checks it and Downgrade rewrites it for version, as for a
// hand-built schema.
func newDynamicForm(d *formimpl.Descriptor, form reflect.Type, version string, o *elicitOptions) (*dynamicForm, error) {
	name := formName(d)
	invalid := func(property, format string, args ...any) error {
		return newSchemaError(version, []subset.Violation{{Property: property, Message: fmt.Sprintf(format, args...)}})
	}
	order, m, err := newestSchema(d)
	if err != nil {
		return nil, invalid("", "form %s: %v", name, err)
	}
	props, _ := m["properties"].(map[string]any)
	dyn := &dynamicForm{choices: map[string]any{}}
	for _, cs := range o.choices {
		p, _ := props[cs.property].(map[string]any)
		switch {
		case p == nil:
			return nil, invalid(cs.property, "form %s has no property %q for WithChoices", name, cs.property)
		case !slices.Contains(d.Choices, cs.property):
			return nil, invalid(cs.property, "property %q of form %s is not a run-time choices field: tag its field elicit:\"choices\" and run go generate", cs.property, name)
		case dyn.choices[cs.property] != nil:
			return nil, invalid(cs.property, "WithChoices(%q) is given more than once", cs.property)
		}
		setChoices(p, cs.choices)
		dyn.choices[cs.property] = p
	}
	for _, prop := range d.Choices {
		if dyn.choices[prop] == nil {
			return nil, invalid(prop, "form %s: run-time choices field %q has no choices: pass runtime.WithChoices(%q, ...) to this call", name, prop, prop)
		}
	}
	if o.hasDefaults {
		if dyn.defaults, err = givenValues(o.defaults, form); err != nil {
			return nil, invalid("", "WithDefaults: %v", err)
		}
		for prop, raw := range dyn.defaults {
			p, _ := props[prop].(map[string]any)
			if p == nil {
				delete(dyn.defaults, prop) // a field the form leaves out (json:"-")
				continue
			}
			var val any
			if err := json.Unmarshal(raw, &val); err != nil {
				return nil, invalid(prop, "WithDefaults: %v", err)
			}
			p["default"] = val
			// As for a default in the struct tag: the property is
			// optional, and the answer gets the default when it is left
			// out (clients that check an answer against the schema, such
			// as the official Go SDK's, refuse one without a required
			// property).
			m["required"] = slices.DeleteFunc(slices.Clone(asStrings(m["required"])), func(r string) bool { return r == prop })
		}
		if req := asStrings(m["required"]); len(req) == 0 {
			delete(m, "required")
		}
	}
	down, vs := subset.Downgrade(m, version)
	if len(vs) > 0 {
		if vs[0].Feature != "" {
			return nil, unsupportedf("form %s on protocol %s: %s", name, version, vs[0].String())
		}
		return nil, newSchemaError(version, vs)
	}
	if dyn.schema, err = marshalOrdered(down, order); err != nil {
		return nil, invalid("", "form %s: %v", name, err)
	}
	return dyn, nil
}

// asStrings is a decoded JSON array of strings ("required").
func asStrings(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// newestSchema decodes the form's schema for the newest version it has,
// with its property order.
func newestSchema(d *formimpl.Descriptor) ([]string, map[string]any, error) {
	for i := len(d.Variants) - 1; i >= 0; i-- {
		raw := d.Variants[i].Schema
		if raw == nil {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, nil, err
		}
		var ordered struct{ Properties orderedKeys }
		if err := json.Unmarshal(raw, &ordered); err != nil {
			return nil, nil, err
		}
		return ordered.Properties, m, nil
	}
	return nil, nil, fmt.Errorf("no schema in its descriptor")
}

// orderedKeys decodes the keys of a JSON object in their order.
type orderedKeys []string

func (k *orderedKeys) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		*k = append(*k, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// setChoices gives the property p its options: enum (untitled) or oneOf
// for a single choice, items with enum or anyOf for a multi-select.
func setChoices(p map[string]any, choices []Choice) {
	titled := slices.ContainsFunc(choices, func(c Choice) bool { return c.Title != "" })
	values := make([]any, len(choices))
	titles := make([]any, len(choices))
	for i, c := range choices {
		values[i] = c.Value
		title := c.Title
		if title == "" {
			title = c.Value
		}
		titles[i] = map[string]any{"const": c.Value, "title": title}
	}
	switch {
	case p["type"] == "array" && titled:
		p["items"] = map[string]any{"anyOf": titles}
	case p["type"] == "array":
		p["items"] = map[string]any{"type": "string", "enum": values}
	case titled:
		p["oneOf"] = titles
	default:
		p["enum"] = values
	}
}

// givenValues returns the JSON of each given field of v (a form value or
// a non-nil pointer to one) by property name: the fields whose value is
// not zero, and pointer fields that are not nil.
func givenValues(v any, form reflect.Type) (map[string]json.RawMessage, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, fmt.Errorf("got a nil, the form is %v: pass a value of the form", form)
	}
	if rv.Kind() == reflect.Pointer && rv.Type().Elem() == form {
		if rv.IsNil() {
			return nil, fmt.Errorf("a nil *%s", form.Name())
		}
		rv = rv.Elem()
	}
	if rv.Type() != form {
		return nil, fmt.Errorf("got a %v, the form is %v: pass a value of the form", typeOf(v), form)
	}
	out := map[string]json.RawMessage{}
	if err := appendGiven(out, rv, 0); err != nil {
		return nil, err
	}
	return out, nil
}

func typeOf(v any) any {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v)
}

// appendGiven walks the fields of struct value rv as encoding/json names
// them (embedded structs flattened).
func appendGiven(out map[string]json.RawMessage, rv reflect.Value, depth int) error {
	t := rv.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _ := sf.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		fv := rv.Field(i)
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct && depth < 8 {
			if err := appendGiven(out, fv, depth+1); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() || fv.IsZero() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		raw, err := json.Marshal(fv.Interface())
		if err != nil {
			return fmt.Errorf("field %s: %v", sf.Name, err)
		}
		out[name] = raw
	}
	return nil
}

// marshalOrdered writes a schema with its properties in order.
func marshalOrdered(m map[string]any, order []string) (json.RawMessage, error) {
	props, _ := m["properties"].(map[string]any)
	b := []byte(`{"type":"object","properties":{`)
	for i, name := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
		p, err := json.Marshal(props[name])
		if err != nil {
			return nil, err
		}
		b = append(b, p...)
	}
	b = append(b, '}')
	if req, ok := m["required"]; ok {
		r, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"required":`...), r...)
	}
	return append(b, '}'), nil
}

// decodeDynamic decodes a result of a call with run-time choices or
// defaults: the defaults fill the properties the answer leaves out, the
// generated decoder checks what it knows, and the choices properties are
// checked against the call's choices. Every problem is reported at once.
func decodeDynamic[T any, P interface {
	*T
	formimpl.Form
}](dyn *dynamicForm, result json.RawMessage) (T, error) {
	var zero T
	content, err := ElicitOutcome(result)
	if err != nil {
		return zero, err
	}
	var members map[string]json.RawMessage
	if len(content) > 0 && string(content) != "null" {
		if err := json.Unmarshal(content, &members); err != nil {
			return zero, fmt.Errorf("%w: content is not an object: %v", ErrElicitMalformed, err)
		}
	}
	filled := bytes.TrimRight(bytes.Clone(content), " \t\r\n")
	if len(members) == 0 {
		filled = []byte("{")
	} else {
		filled = append(filled[:len(filled)-1], ',') // the closing brace
	}
	for prop, raw := range dyn.defaults {
		if _, ok := members[prop]; !ok {
			filled = append(appendJSONString(filled, prop), ':')
			filled = append(append(filled, raw...), ',')
		}
	}
	filled[len(filled)-1] = '}'
	if string(filled) == "}" {
		filled = []byte("{}")
	}
	var v T
	derr := P(&v).ElicitDecode(filled)
	var problems []Problem
	if ce, ok := derr.(*ContentError); ok {
		problems = ce.Problems
	} else if derr != nil {
		return zero, derr
	}
	for prop, schema := range dyn.choices {
		raw, ok := members[prop]
		if !ok || slices.ContainsFunc(problems, func(p Problem) bool { return p.Property == prop }) {
			continue
		}
		var val any
		if json.Unmarshal(raw, &val) != nil {
			continue // the decoder reported it
		}
		one := map[string]any{"properties": map[string]any{prop: schema}}
		for _, vi := range subset.ValidateContent(one, map[string]any{prop: val}) {
			problems = append(problems, Problem{Property: vi.Property, Message: vi.Message})
		}
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(i, j int) bool { return problems[i].Property < problems[j].Property })
		return zero, &ContentError{Problems: problems}
	}
	return v, nil
}
