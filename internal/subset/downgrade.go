package subset

import "fmt"

// Downgrade returns a copy of a schema valid for V2025_11_25 expressed for
// version, and the schema unchanged (but copied) for 2025-11-25 and later.
//
// For 2025-06-18 it rewrites what has an equivalent and drops what is only a
// hint:
//
//   - a titled single-select (oneOf [{const, title}]) becomes enum + enumNames;
//   - the root "$schema" is dropped (2025-06-18 does not define it);
//   - string, number and enum defaults are dropped. A default is only a
//     pre-fill hint: the client still answers with every value, and the
//     server validates that answer, so a form without its defaults asks the
//     same question. Boolean defaults exist in 2025-06-18 and stay.
//
// Constructs with no equivalent (multi-select arrays on 2025-06-18) give
// violations with Feature and Since set, and a nil map; so do a schema that
// is not valid for 2025-11-25 (its Check violations) and a version without
// form elicitation. The copy is made of map[string]any and []any.
func Downgrade(schema map[string]any, version string) (map[string]any, []Violation) {
	out, _, vs := downgrade(schema, version, false)
	return out, vs
}

// DowngradeDropping is Downgrade, except that an optional property with no
// equivalent in version (a multi-select on 2025-06-18) is left out of the
// schema instead of refusing it: dropped names those properties, sorted.
// A required one still gives its violation and a nil map. The client of
// that version is not asked the property, so the answer never has it.
func DowngradeDropping(schema map[string]any, version string) (out map[string]any, dropped []string, vs []Violation) {
	return downgrade(schema, version, true)
}

func downgrade(schema map[string]any, version string, dropOptional bool) (map[string]any, []string, []Violation) {
	if v, ok := versionViolation(version); !ok {
		return nil, nil, []Violation{v}
	}
	if vs := Check(schema, V2025_11_25); len(vs) > 0 {
		return nil, nil, vs
	}
	out, _ := deepCopy(schema).(map[string]any)
	if rank(version) >= rank(V2025_11_25) {
		return out, nil, nil
	}
	// 2025-06-18: the only older version with forms.
	delete(out, "$schema")
	props, _ := out["properties"].(map[string]any)
	required := requiredNames(out)
	var vs []Violation
	var dropped []string
	for _, name := range sortedKeys(props) {
		p, _ := props[name].(map[string]any)
		switch kindOf(p) {
		case kindMulti:
			if dropOptional && !required[name] {
				delete(props, name)
				dropped = append(dropped, name)
				continue
			}
			vs = append(vs, Violation{
				Path: "/properties/" + pointerToken(name), Property: name,
				Feature: FeatureMultiSelect, Since: V2025_11_25,
				Message: fmt.Sprintf("multi-select has no equivalent before protocol %s", V2025_11_25),
			})
		case kindTitled:
			opts, _ := asList(p["oneOf"])
			enum := make([]any, 0, opts.Len())
			names := make([]any, 0, opts.Len())
			for i := range opts.Len() {
				o, _ := opts.At(i).(map[string]any)
				enum = append(enum, o["const"])
				names = append(names, o["title"])
			}
			delete(p, "oneOf")
			delete(p, "default")
			p["enum"] = enum
			p["enumNames"] = names
		case kindString, kindNumber, kindInteger, kindEnum:
			delete(p, "default")
		}
	}
	if len(vs) == 0 && len(dropped) > 0 && len(props) == 0 {
		// Nothing would be left to ask: the form is as unsupported as
		// when a required property has no equivalent.
		return downgrade(schema, version, false)
	}
	if len(vs) > 0 {
		return nil, nil, vs
	}
	return out, dropped, nil
}

// requiredNames is the set of names in a checked schema's "required".
func requiredNames(schema map[string]any) map[string]bool {
	l, _ := asList(schema["required"])
	names := make(map[string]bool, l.Len())
	for i := range l.Len() {
		if s, ok := l.At(i).(string); ok {
			names[s] = true
		}
	}
	return names
}

// deepCopy copies decoded JSON (and the hand-built shapes asList accepts)
// into fresh map[string]any and []any values.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	}
	if l, ok := asList(v); ok {
		out := make([]any, l.Len())
		for i := range l.Len() {
			out[i] = deepCopy(l.At(i))
		}
		return out
	}
	return v
}
