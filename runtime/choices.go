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

// ChoicesField names one run-time choices field of a generated form (a
// field tagged elicit:"choices"), for WithChoices. elicitgen declares one
// per such field, next to the form, named for the form and the Go field
// joined by an underscore: CommitForm_Files for the field Files of
// CommitForm. A misspelt name does not compile. The zero ChoicesField
// names no field (WithChoices then fails the call).
type ChoicesField = formimpl.ChoicesField

// WithChoices gives the options of the form's run-time choices field
// (a field tagged elicit:"choices": a single choice for a string field,
// a multi-select for a []string one) for this Elicit[T] call. field is
// the name elicitgen declared for it (see ChoicesField):
//
//	//elicit:form
//	type CommitForm struct {
//		Files []string `json:"files" elicit:"choices" validate:"min=1"`
//	}
//
//	form, err := runtime.Elicit[CommitForm](ctx, "Commit which files?",
//		runtime.WithChoices(CommitForm_Files, runtime.Choice{Value: "a.go", Title: "a.go (modified)"}))
//
// Only Elicit[T] takes it: ElicitSchema's schema carries its own enum, and
// ElicitURL has no form.
//
// The schema is assembled for the client's protocol version and checked
// by the same subset checker as every other schema before anything is
// sent: an empty list, a repeated value, a field given twice, a field of
// another form than the call's, the zero ChoicesField and a choices field
// left without WithChoices are errors matching ErrElicitSchemaInvalid.
// Titles ride
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
func WithChoices(field ChoicesField, choices ...Choice) ElicitOption {
	return &choicesOption{field: field, choices: choices}
}

type choicesOption choiceSet

func (c *choicesOption) applyToElicit(o elicitOptions) elicitOptions {
	f := o.formOptions()
	f.choices = append(f.choices, choiceSet(*c))
	return o
}

// WithDefaults prefills the form of this Elicit[T] call from form, a
// value of a generated form: a field counts as given when its value is
// not the zero value of its type, or, for a pointer field, when it is not
// nil (so *bool can give false). Only a generated form compiles here
// (WithDefaults(42) does not); a form other than the call's T compiles,
// since an option cannot name the T of the call it is passed to, but
// fails the call before anything is sent, with an error matching
// ErrElicitSchemaInvalid that names both forms. Only Elicit[T] takes it.
//
// The schema carries each given value as the
// property's default where the client's protocol version can (booleans
// from 2025-06-18; strings, numbers, dates, choices and multi-selects from
// 2025-11-25), and the answer gets it when the client leaves the property
// out. Where the version shows the default the property is optional, as
// with a default in the struct tag. Where it cannot (a string on
// 2025-06-18) the default is not used: a required property stays
// required, so the user is asked for a value rather than given one they
// never saw, and an answer without it is a *ContentError ("is required");
// an optional one left out keeps its zero value. A default the
// property's schema refuses (one outside the call's choices, say) is an
// error matching ErrElicitSchemaInvalid.
func WithDefaults[T any, P interface {
	*T
	formimpl.Form
}](form T) ElicitOption {
	return &defaultsOption{value: form, form: reflect.TypeFor[T]()}
}

type defaultsOption struct {
	value any // a T
	form  reflect.Type
}

func (d *defaultsOption) applyToElicit(o elicitOptions) elicitOptions {
	o.formOptions().defaults = d
	return o
}

// formOptions are a call's WithChoices and WithDefaults. They live apart
// from elicitOptions so that a call without them carries a smaller struct.
type formOptions struct {
	choices  []choiceSet     // in call order
	defaults *defaultsOption // nil without WithDefaults
	inline   [2]choiceSet    // choices' first array: most forms have one or two choices fields
}

func (o *elicitOptions) formOptions() *formOptions {
	if o.form == nil {
		o.form = &formOptions{}
		o.form.choices = o.form.inline[:0]
	}
	return o.form
}

type choiceSet struct {
	field   ChoicesField
	choices []Choice
}

// formCall is one Elicit[T] call made ready for a client's protocol
// version by prepareElicit: what to send, and how to read the answer.
type formCall[T any, P interface {
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
func (c formCall[T, P]) Decode(result json.RawMessage) (T, error) {
	if err := c.variant.CheckDropped(result); err != nil {
		var zero T
		return zero, err
	}
	if c.dyn == nil {
		return DecodeAnswer[T, P](result)
	}
	return decodeDynamic[T, P](c.dyn, result)
}

// prepareElicit readies one Elicit[T] call for a client on protocol
// version. It gives ErrElicitUnsupported when the version cannot carry T
// and ErrElicitSchemaInvalid for bad options.
func prepareElicit[T any, P interface {
	*T
	formimpl.Form
}](version string, opts ...ElicitOption) (formCall[T, P], error) {
	d := P(nil).ElicitForm() // generated methods do not read their receiver; a T would escape here
	variant, err := formVariant(d, version)
	if err != nil {
		return formCall[T, P]{}, err
	}
	o := elicitOptionsOf(d.Key, opts)
	if o.form == nil && len(d.Choices) == 0 {
		return formCall[T, P]{Key: o.key, Schema: variant.Schema, version: version, variant: variant, reasks: o.reasks}, nil // a static form: its generated schema as it is
	}
	dyn, err := dynamicFormFor(d, reflect.TypeFor[T](), version, o.formOptions())
	if err != nil {
		return formCall[T, P]{}, err
	}
	return formCall[T, P]{Key: o.key, Schema: dyn.schema, version: version, variant: variant, reasks: o.reasks, dyn: dyn}, nil
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
		property := cs.field.Property()
		p := prop(property)
		switch {
		case p == nil:
			return nil, invalid(property, "form %s has no property %q for WithChoices", name, property)
		case !slices.Contains(d.Choices, property):
			return nil, invalid(property, "property %q of form %s is not a run-time choices field: tag its field elicit:\"choices\" and run go generate", property, name)
		case dyn.choices[property] != nil:
			return nil, invalid(property, "WithChoices for %q is given more than once", property)
		}
		setChoices(p, cs.choices)
		dyn.choices[property] = p
	}
	for _, prop := range d.Choices {
		if dyn.choices[prop] == nil {
			return nil, invalid(prop, "form %s: run-time choices field %q has no choices: pass runtime.WithChoices(%s_<Field>, ...) to this call", name, prop, d.Name)
		}
	}
	if o.defaults != nil {
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
	for name := range dyn.defaults {
		// Only a default the client was shown fills an answer that leaves
		// its property out: one the version cannot show (a string on
		// 2025-06-18), or of a property its form leaves out, is not used.
		if p, ok := downProps[name].(map[string]any); ok {
			if _, shown := p["default"]; shown {
				continue
			}
		}
		delete(dyn.defaults, name)
	}
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
		if _, shown := dyn.defaults[r]; shown {
			continue
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
	for _, cs := range o.choices {
		switch f := cs.field.Form(); {
		case f == nil:
			return nil, invalidOption(version, "", "WithChoices: the zero ChoicesField names no field: pass the one elicitgen declared (%s_<Field>)", d.Name)
		case f != d:
			return nil, invalidOption(version, cs.field.Property(), "WithChoices: %q is a field of form %s, this call asks form %s", cs.field.Property(), formName(f), formName(d))
		}
	}
	var given map[string]json.RawMessage
	if o.defaults != nil {
		if o.defaults.form != form {
			return nil, invalidOption(version, "", "WithDefaults: got a %v, the form is %v: pass a value of the form", o.defaults.form, form)
		}
		var err error
		if given, err = givenValues(o.defaults.value); err != nil {
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
		part(cs.field.Property())
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

// givenValues returns the JSON of each given field of v, a form value, by
// property name: the fields whose value is not zero, and pointer fields
// that are not nil.
func givenValues(v any) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if err := appendGiven(out, reflect.ValueOf(v), 0); err != nil {
		return nil, err
	}
	return out, nil
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
	content, err := elicitOutcome(result, true)
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
