package runtime

// dropEmpty removes from the content of an accepted ElicitSchema answer
// every optional property that arrived empty ("" or null): form UIs send a
// field the user cleared that way, and it means "not given", as it does for
// generated forms (internal/formcore/empty.go). A required property stays,
// to be checked as sent.
func dropEmpty(schema, values map[string]any) {
	for name, v := range values {
		if (v == nil || v == "") && !isRequired(schema, name) {
			delete(values, name)
		}
	}
}

// isRequired reports whether schema's "required" ([]any as decoded, or
// []string as hand-built) names property.
func isRequired(schema map[string]any, property string) bool {
	switch req := schema["required"].(type) {
	case []string:
		for _, r := range req {
			if r == property {
				return true
			}
		}
	case []any:
		for _, r := range req {
			if r == property {
				return true
			}
		}
	}
	return false
}
