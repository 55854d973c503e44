package elicittest

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// asksForm reports whether schema, as a client received it, asks for form
// d whose schema for the client's version is want. What a call adds to the
// generated schema is not compared: defaults (runtime.WithDefaults, which
// also make their properties optional) and the options of run-time choices fields (runtime.WithChoices).
func asksForm(d *formimpl.Descriptor, want, schema []byte) bool {
	var a, b map[string]any
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(schema, &b) != nil {
		return false
	}
	// A property the call gave a default is optional: the asked schema may
	// require fewer properties, never others.
	req, _ := b["required"].([]any)
	if want, _ := a["required"].([]any); !slices.ContainsFunc(req, func(r any) bool { return !slices.Contains(want, r) }) {
		delete(a, "required")
		delete(b, "required")
	}
	for _, m := range []map[string]any{a, b} {
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			p, _ := p.(map[string]any)
			delete(p, "default")
			if slices.Contains(d.Choices, name) {
				for _, k := range []string{"enum", "enumNames", "oneOf", "items"} {
					delete(p, k)
				}
			}
		}
	}
	return reflect.DeepEqual(a, b)
}
