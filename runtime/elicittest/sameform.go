package elicittest

import (
	"encoding/json"
	"reflect"
)

// sameForm reports whether the requestedSchema got asks the same form as
// want, the form's generated schema for the version: equal JSON but for
// the properties' defaults, which a handler may set per call and a re-ask
// (runtime.WithReask) fills with what the user already gave right.
func sameForm(want, got []byte) bool {
	var w, g map[string]any
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil {
		return jsonEqual(want, got)
	}
	dropDefaults(w)
	dropDefaults(g)
	return reflect.DeepEqual(w, g)
}

func dropDefaults(schema map[string]any) {
	props, _ := schema["properties"].(map[string]any)
	for _, p := range props {
		if m, ok := p.(map[string]any); ok {
			delete(m, "default")
		}
	}
}
