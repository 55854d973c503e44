package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

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
// enumNames on 2025-06-18. A multi-select needs 2025-11-25, as always: a
// required one makes the form unsupported on 2025-06-18, an optional one
// is left out of that version's form (see Dropped).
// An answer outside the choices is a *ContentError naming the property.
//
// On 2026-07-28 the handler runs again with the answer: pass the same
// choices on that run. The question is identified by what it asks, so
// when the choices changed between the runs (a file appeared, say) the
// client is asked again with the new ones.
func WithChoices(property string, choices ...Choice) ElicitOption {
	return func(o *elicitOptions) {
		f := o.formOptions()
		f.choices = append(f.choices, choiceSet{property: property, choices: choices})
	}
}

// WithDefaults prefills the form of this Elicit[T] call from form, a T
// (or a non-nil *T): a field counts as given when its value is not the
// zero value of its type, or, for a pointer field, when it is not nil
// (so *bool can give false). The schema carries each given value as the
// property's default where the client's protocol version can (booleans
// from 2025-06-18; strings, numbers, choices and multi-selects from
// 2025-11-25), and the answer gets it when the client leaves the property
// out. Where the version shows the default the property is optional, as
// with a default in the struct tag; where it cannot (a string on
// 2025-06-18) the property stays required, so the user is asked for a
// value rather than given one they never saw. A value of another type than the form is an
// error matching ErrElicitSchemaInvalid, as is a default the property's
// schema refuses (one outside the call's choices, say).
func WithDefaults(form any) ElicitOption {
	return func(o *elicitOptions) {
		f := o.formOptions()
		f.defaults, f.hasDefaults = form, true
	}
}

// formOptions are a call's WithChoices and WithDefaults. They live apart
// from elicitOptions so that a call without them carries a smaller struct.
type formOptions struct {
	choices     []choiceSet // in call order
	defaults    any
	hasDefaults bool
}

func (o *elicitOptions) formOptions() *formOptions {
	if o.form == nil {
		o.form = &formOptions{}
	}
	return o.form
}

type choiceSet struct {
	property string
	choices  []Choice
}

// FormCall is one Elicit[T] call made ready for a client's protocol
// version by PrepareElicit: what to send, and how to read the answer. For
// adapters; handlers call Elicit[T].
type FormCall[T any, P interface {
	*T
	formimpl.Form
}] struct {
	// Key is the input-request key on 2026-07-28: WithKey's, or the form's.
	Key string
	// Schema is the requestedSchema, with the call's WithChoices and
	// WithDefaults applied.
	Schema json.RawMessage

	version string
	variant formimpl.Variant // the generated variant for version: what it leaves out
	reasks  int              // WithReask
	dyn     *dynamicForm     // nil for a static form
}

// Decode reads the client's raw elicitation result into a T, as
// DecodeAnswer does, with the call's defaults filling what the answer left
// out and its choices checked.
func (c FormCall[T, P]) Decode(result json.RawMessage) (T, error) {
	if err := c.variant.CheckDropped(result); err != nil {
		var zero T
		return zero, err
	}
	if c.dyn == nil {
		return DecodeAnswer[T, P](result)
	}
	return decodeDynamic[T, P](c.dyn, result)
}

// PrepareElicit readies one Elicit[T] call for a client on protocol
// version. It gives ErrElicitUnsupported when the version cannot carry T
// and ErrElicitSchemaInvalid for bad options. For adapters; handlers call
// Elicit[T].
func PrepareElicit[T any, P interface {
	*T
	formimpl.Form
}](version string, opts ...ElicitOption) (FormCall[T, P], error) {
	var v T
	d := P(&v).ElicitForm()
	variant, err := formVariant(d, version)
	if err != nil {
		return FormCall[T, P]{}, err
	}
	o := elicitOptionsOf(d.Key, opts)
	if o.form == nil && len(d.Choices) == 0 {
		return FormCall[T, P]{Key: o.key, Schema: variant.Schema, version: version, variant: variant, reasks: o.reasks}, nil // a static form: its generated schema as it is
	}
	dyn, err := dynamicFormFor(d, reflect.TypeFor[T](), version, o.formOptions())
	if err != nil {
		return FormCall[T, P]{}, err
	}
	return FormCall[T, P]{Key: o.key, Schema: dyn.schema, version: version, variant: variant, reasks: o.reasks, dyn: dyn}, nil
}

// dynamicForm is one call's form: its schema, the defaults to fill in and
// the choices to check the answer against.
type dynamicForm struct {
	schema   json.RawMessage
	defaults map[string]json.RawMessage // by property: the call's given values
	choices  map[string]any             // the choices properties' schemas, to check answers with
}

// newDynamicForm builds the call's schema. The generated variant for
// version was checked at build time; only the properties the call changes
// are built again, from the newest variant's, then checked and rewritten
// for version by the subset checker (Downgrade), as a hand-built schema
// would be. The others keep their generated bytes.
func newDynamicForm(d *formimpl.Descriptor, given map[string]json.RawMessage, version string, o *formOptions) (*dynamicForm, error) {
	name := formName(d)
	invalid := func(property, format string, args ...any) error {
		return invalidOption(version, property, format, args...)
	}
	ver, err := layoutOf(d, version)
	if err != nil {
		return nil, invalid("", "form %s: %v", name, err)
	}
	newest, err := layoutOf(d, d.Variants[len(d.Variants)-1].Version)
	if err != nil {
		return nil, invalid("", "form %s: %v", name, err)
	}
	changed := map[string]any{} // property name → its schema, newest keywords
	prop := func(name string) map[string]any {
		if p, ok := changed[name].(map[string]any); ok {
			return p
		}
		raw, ok := newest.props[name]
		if !ok {
			return nil
		}
		var p map[string]any
		if json.Unmarshal(raw, &p) != nil {
			return nil
		}
		changed[name] = p
		return p
	}
	dyn := &dynamicForm{choices: map[string]any{}}
	for _, cs := range o.choices {
		p := prop(cs.property)
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
		dyn.defaults = given
		for name, raw := range dyn.defaults {
			p := prop(name)
			if p == nil {
				delete(dyn.defaults, name) // a field the form leaves out (json:"-")
				continue
			}
			var val any
			if err := json.Unmarshal(raw, &val); err != nil {
				return nil, invalid(name, "WithDefaults: %v", err)
			}
			p["default"] = val
		}
	}
	for name := range changed {
		if _, asked := ver.props[name]; !asked {
			// The version's form leaves it out (Variant.Dropped): its
			// choices and default are checked above, not sent.
			delete(changed, name)
		}
	}
	var down map[string]any
	var vs []subset.Violation
	if len(changed) > 0 {
		down, vs = subset.Downgrade(map[string]any{"type": "object", "properties": changed}, version)
	}
	if len(vs) > 0 {
		if vs[0].Feature != "" {
			return nil, unsupportedf("form %s on protocol %s: %s", name, version, vs[0].String())
		}
		return nil, newSchemaError(version, vs)
	}
	downProps, _ := down["properties"].(map[string]any)
	b := make([]byte, 0, len(ver.schema)+256)
	b = append(b, `{"type":"object","properties":{`...)
	for i, property := range ver.order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, property), ':')
		p, ok := downProps[property]
		if !ok {
			b = append(b, ver.props[property]...)
			continue
		}
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, invalid(property, "form %s: %v", name, err)
		}
		b = append(b, raw...)
	}
	b = append(b, '}')
	// A property the call gave a default the version can show is optional,
	// as with a default in the struct tag: the answer gets it when the
	// client leaves it out (clients that check an answer against the
	// schema, such as the official Go SDK's, refuse one without a required
	// property). Where the version cannot show it (a string or number on
	// 2025-06-18) the property stays required: the user is asked for it
	// rather than given a value they never saw.
	sep := byte('[')
	for _, r := range ver.required {
		if p, ok := downProps[r].(map[string]any); ok {
			if _, shown := p["default"]; shown {
				continue
			}
		}
		if sep == '[' {
			b = append(b, `,"required"`...)
			b = append(b, ':')
		}
		b = appendJSONString(append(b, sep), r)
		sep = ','
	}
	if sep == ',' {
		b = append(b, ']')
	}
	dyn.schema = append(b, '}')
	return dyn, nil
}

// dynamicFormFor returns the call's form: the one built last for d and
// version when the call's choices and defaults are the same (a 2026-07-28
// handler asks again on every run, a tool on every call), else a new one
// (newDynamicForm), kept for the next call. A form is immutable once built;
// one per form and version is kept.
func dynamicFormFor(d *formimpl.Descriptor, form reflect.Type, version string, o *formOptions) (*dynamicForm, error) {
	var given map[string]json.RawMessage
	if o.hasDefaults {
		var err error
		if given, err = givenValues(o.defaults, form); err != nil {
			return nil, invalidOption(version, "", "WithDefaults: %v", err)
		}
	}
	key := optionsKey(o.choices, given)
	lk := layoutKey{d, version}
	if c, ok := lastForms.Load(lk); ok && c.(*builtForm).key == key {
		return c.(*builtForm).dyn, nil
	}
	dyn, err := newDynamicForm(d, given, version, o)
	if err == nil {
		lastForms.Store(lk, &builtForm{key: key, dyn: dyn})
	}
	return dyn, err
}

// lastForms holds the form built last for each descriptor and version.
var lastForms sync.Map // layoutKey → *builtForm

type builtForm struct {
	key string // optionsKey of the options it was built with
	dyn *dynamicForm
}

// optionsKey is a call's choices and defaults as one string, each part
// length-prefixed so that no two different options give the same key.
func optionsKey(choices []choiceSet, given map[string]json.RawMessage) string {
	var b []byte
	part := func(s string) { b = append(strconv.AppendInt(b, int64(len(s)), 10), ':'); b = append(b, s...) }
	for _, cs := range choices {
		part(cs.property)
		b = strconv.AppendInt(b, int64(len(cs.choices)), 10)
		for _, c := range cs.choices {
			part(c.Value)
			part(c.Title)
		}
	}
	b = append(b, '|')
	names := make([]string, 0, len(given))
	for n := range given {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		part(n)
		part(string(given[n]))
	}
	return string(b)
}

// invalidOption is the ErrElicitSchemaInvalid error of a call's options.
func invalidOption(version, property, format string, args ...any) error {
	return newSchemaError(version, []subset.Violation{{Property: property, Message: fmt.Sprintf(format, args...)}})
}

// layout is a generated variant's schema taken apart: its property names
// in order, each property's schema and the required names.
type layout struct {
	schema   []byte
	order    []string
	props    map[string]json.RawMessage
	required []string
}

type layoutKey struct {
	d       *formimpl.Descriptor
	version string
}

// layouts caches the layout of each descriptor's variants: descriptors
// are generated package variables, so the cache is bounded by the forms
// of the program.
var layouts sync.Map // layoutKey → *layout

// layoutOf returns the layout of d's variant for version.
func layoutOf(d *formimpl.Descriptor, version string) (*layout, error) {
	key := layoutKey{d, version}
	if l, ok := layouts.Load(key); ok {
		return l.(*layout), nil
	}
	v, ok := d.Lookup(version)
	if !ok || v.Schema == nil {
		return nil, fmt.Errorf("no schema for protocol %s", version)
	}
	var parsed struct {
		Properties orderedProps `json:"properties"`
		Required   []string     `json:"required"`
	}
	if err := json.Unmarshal(v.Schema, &parsed); err != nil {
		return nil, err
	}
	l := &layout{schema: v.Schema, order: parsed.Properties.order, props: parsed.Properties.raw, required: parsed.Required}
	layouts.Store(key, l)
	return l, nil
}

// orderedProps decodes a JSON object of schemas keeping its key order.
type orderedProps struct {
	order []string
	raw   map[string]json.RawMessage
}

func (o *orderedProps) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	o.raw = map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.order = append(o.order, name)
		o.raw[name] = v
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
	more := 0
	if ce, ok := derr.(*ContentError); ok {
		problems, more = ce.Problems, ce.more
	} else if derr != nil {
		return zero, derr
	}
	for prop, schema := range dyn.choices {
		raw, ok := members[prop]
		if !ok || hasProblem(problems, prop) {
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
		return zero, &ContentError{Problems: problems, more: more}
	}
	return v, nil
}
