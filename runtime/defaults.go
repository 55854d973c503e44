package runtime

import (
	"encoding/json"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/internal/subset"
)

// propertyDefault is one property's default for a form's schema: its JSON
// property name and its value as JSON.
type propertyDefault struct {
	Property string
	Value    json.RawMessage
}

// schemaWithDefaults returns schema, a requestedSchema for protocol version
// (a generated variant, or one built for it), with each of defaults set as
// its property's "default" in place of one it had. Everything keeps its
// order: a client shows the properties in the order they come. A default the
// version cannot carry (before 2025-11-25, only booleans have one) or for a
// property the schema lacks is left out, and the result passes the subset
// checker for version; when it would not (a value of the wrong type),
// schema is returned unchanged, since a default is only a pre-fill hint.
func schemaWithDefaults(schema []byte, version string, defaults []propertyDefault) []byte {
	if len(defaults) == 0 {
		return schema
	}
	out := make([]byte, 0, len(schema)+64*len(defaults))
	last := 0
	set := 0
	_, ok := roundtrip.EachMember(schema, 0, func(key, props []byte) bool {
		if string(key) != "properties" || len(props) == 0 || props[0] != '{' {
			return true
		}
		_, ok := roundtrip.EachMember(props, 0, func(name, prop []byte) bool {
			v, found := defaultFor(defaults, string(name))
			if !found || !canDefault(prop, version) {
				return true
			}
			at := offsetIn(schema, prop)
			out = append(out, schema[last:at]...)
			out = appendWithDefault(out, prop, v)
			last = at + len(prop)
			set++
			return true
		})
		return ok
	})
	if !ok || set == 0 {
		return schema
	}
	out = append(out, schema[last:]...)
	if len(subset.CheckJSON(out, version)) > 0 {
		return schema
	}
	return out
}

// offsetIn is where sub, a slice of b (EachMember's values are), starts
// in b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }

func defaultFor(defaults []propertyDefault, name string) (json.RawMessage, bool) {
	for _, d := range defaults {
		if d.Property == name {
			return d.Value, true
		}
	}
	return nil, false
}

// canDefault reports whether version lets property schema prop carry a
// default: 2025-11-25 and later every kind, 2025-06-18 only booleans.
func canDefault(prop []byte, version string) bool {
	if version >= Version20251125 {
		return true
	}
	boolean := false
	roundtrip.EachMember(prop, 0, func(key, value []byte) bool {
		if string(key) == "type" {
			s, _ := roundtrip.StringValue(value)
			boolean = s == "boolean"
			return false
		}
		return true
	})
	return boolean
}

// appendWithDefault appends the property schema prop (an object) with its
// "default" member, if any, replaced by one holding v, at the end.
func appendWithDefault(dst, prop []byte, v json.RawMessage) []byte {
	dst = append(dst, '{')
	n := 0
	roundtrip.EachMember(prop, 0, func(key, value []byte) bool {
		if string(key) == "default" {
			return true
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = roundtrip.AppendString(dst, key)
		dst = append(dst, ':')
		dst = append(dst, value...)
		n++
		return true
	})
	if n > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"default":`...)
	dst = append(dst, v...)
	return append(dst, '}')
}
