package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// keyOrder is the order keys appear in generated schemas: what a reader
// looks for first. Keys not listed follow, sorted.
var keyOrder = []string{
	"$schema", "type", "const", "title", "description", "format",
	"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems",
	"items", "enum", "enumNames", "oneOf", "anyOf", "default",
	"properties", "required",
}

// marshalSchema writes a schema as compact JSON with a fixed key order and
// the properties in field order, so output is deterministic and reads like
// the struct.
func marshalSchema(m map[string]any, order []string) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeValue(&buf, m, order, true); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeValue(buf *bytes.Buffer, v any, order []string, root bool) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for _, k := range keyOrder {
			if _, ok := x[k]; ok {
				keys = append(keys, k)
			}
		}
		var rest []string
		for k := range x {
			if !slices.Contains(keyOrder, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		return writeObject(buf, x, append(keys, rest...), order, root)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeValue(buf, e, nil, false); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, x)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func writeProperties(buf *bytes.Buffer, v any, order []string) error {
	props, ok := v.(map[string]any)
	if !ok {
		return writeValue(buf, v, nil, false)
	}
	keys := make([]string, 0, len(props))
	for _, k := range order {
		if _, ok := props[k]; ok {
			keys = append(keys, k)
		}
	}
	for k := range props {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("the checker returned an unknown property %q", k)
		}
	}
	return writeObject(buf, props, keys, nil, false)
}

// writeObject writes the keys of x in the order given; at the root, the
// "properties" value is written in field order.
func writeObject(buf *bytes.Buffer, x map[string]any, keys, order []string, root bool) error {
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		var err error
		if root && k == "properties" {
			err = writeProperties(buf, x[k], order)
		} else {
			err = writeValue(buf, x[k], nil, false)
		}
		if err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeString writes s as a JSON string without HTML escaping, so the
// literal in generated code reads as the user wrote it.
func writeString(buf *bytes.Buffer, s string) {
	if plainJSON(s) {
		buf.WriteByte('"')
		buf.WriteString(s)
		buf.WriteByte('"')
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// plainJSON reports whether s is printable ASCII that JSON writes as is
// between quotes, as almost every key and name is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
