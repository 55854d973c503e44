package elicittest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// A form's question may differ from its generated schema, call by call,
// in three ways, and in no other: its defaults (a per-call prefill, or
// the valid answers of a re-ask), the members of its enums (choices given
// at the call: enum, enumNames, oneOf, and items' enum or anyOf), and
// optional properties left out because the client's version cannot carry
// them (a multi-select on 2025-06-18). Property names, types, titles,
// bounds, formats and which of the asked properties are required must be
// the form's, except that a property given a default at the call is
// optional.

// formSchemaFor returns the schema a question of form d on protocol is
// compared with: the form's for that version or, when the version cannot
// carry the form as generated (the runtime may still ask it, its optional
// properties left out), the form's newest schema.
func formSchemaFor(d *formimpl.Descriptor, protocol string) ([]byte, error) {
	schema, err := runtime.FormSchema(d, protocol)
	if err == nil {
		return schema, nil
	}
	if _, known := d.Lookup(protocol); known {
		for _, v := range slices.Backward(d.Variants) {
			if v.Schema != nil {
				return v.Schema, nil
			}
		}
	}
	return nil, err
}

// questionDiff says how the question's schema asked, on protocol, differs
// from form, the schema of the form called name, beyond what a call may
// change ("" when it asks that form).
func questionDiff(name, protocol string, form, asked []byte) string {
	var f, a map[string]any
	if err := json.Unmarshal(form, &f); err != nil || f == nil {
		return fmt.Sprintf("the %s's schema is not a JSON object", name)
	}
	if err := json.Unmarshal(asked, &a); err != nil || a == nil {
		return "its requestedSchema is not a JSON object"
	}
	if !reflect.DeepEqual(topLevel(f), topLevel(a)) {
		return fmt.Sprintf("its keywords besides properties and required are not the %s's", name)
	}
	fp, _ := f["properties"].(map[string]any)
	ap, _ := a["properties"].(map[string]any)
	fr, ar := stringSet(f["required"]), stringSet(a["required"])
	for _, p := range slices.Sorted(maps.Keys(ap)) {
		fs, ok := fp[p]
		switch {
		case !ok:
			return fmt.Sprintf("it asks for %q, which the %s does not have", p, name)
		case !reflect.DeepEqual(propertyShape(fs), propertyShape(ap[p])):
			return fmt.Sprintf("its %q is %s, the %s's is %s (enum members and defaults aside)", p, compactJSON(ap[p]), name, compactJSON(fs))
		case ar[p] && !fr[p]:
			return fmt.Sprintf("it requires %q, which the %s does not", p, name)
		case !ar[p] && fr[p] && !hasDefault(ap[p]):
			return fmt.Sprintf("it does not require %q, which the %s does (and gives no default)", p, name)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(fp)) {
		if _, ok := ap[p]; ok {
			continue
		}
		switch {
		case fr[p]:
			return fmt.Sprintf("it leaves out %q, which the %s requires", p, name)
		case carries(protocol, p, fp[p]):
			return fmt.Sprintf("it leaves out %q, which the %s has and %s can carry", p, name, protocol)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(ar)) {
		if _, ok := ap[p]; !ok {
			return fmt.Sprintf("it requires %q, which it does not ask for", p)
		}
	}
	return ""
}

// hasDefault reports whether the property schema p carries a default: a
// property given a default at the call (runtime.WithDefaults) is optional.
func hasDefault(p any) bool {
	m, _ := p.(map[string]any)
	_, ok := m["default"]
	return ok
}

// carries reports whether protocol can carry the property schema p, its
// enum members and default aside: the subset checker finds no feature in
// it that the version lacks.
func carries(protocol, name string, p any) bool {
	schema := map[string]any{"type": "object", "properties": map[string]any{name: propertyShape(p)}}
	for _, v := range subset.Check(schema, protocol) {
		if v.Feature != "" {
			return false
		}
	}
	return true
}

// topLevel is a schema without its properties and required.
func topLevel(schema map[string]any) map[string]any {
	m := maps.Clone(schema)
	delete(m, "properties")
	delete(m, "required")
	return m
}

// propertyShape is a property schema without what a call may change: its
// default and its enum members (the type of a multi-select's items is
// always string, and a titled one's anyOf carries none).
func propertyShape(p any) any {
	m, ok := p.(map[string]any)
	if !ok {
		return p
	}
	m = maps.Clone(m)
	for _, k := range []string{"default", "enum", "enumNames", "oneOf"} {
		delete(m, k)
	}
	if items, ok := m["items"].(map[string]any); ok {
		items = maps.Clone(items)
		for _, k := range []string{"enum", "anyOf", "type"} {
			delete(items, k)
		}
		m["items"] = items
	}
	return m
}

// stringSet is a JSON array of strings as a set (nil for anything else).
func stringSet(v any) map[string]bool {
	list, _ := v.([]any)
	set := make(map[string]bool, len(list))
	for _, s := range list {
		if s, ok := s.(string); ok {
			set[s] = true
		}
	}
	return set
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// onlyAsked drops from an object content the properties the question's
// schema does not ask for, as a client would not send them: Accept of a
// generated form answers a question that left an optional property out.
func onlyAsked(content json.RawMessage, schema json.RawMessage) json.RawMessage {
	var c map[string]json.RawMessage
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(content, &c) != nil || json.Unmarshal(schema, &s) != nil {
		return content
	}
	n := len(c)
	maps.DeleteFunc(c, func(k string, _ json.RawMessage) bool { _, asked := s.Properties[k]; return !asked })
	if len(c) == n {
		return content
	}
	out, err := json.Marshal(c)
	if err != nil {
		return content
	}
	return out
}
