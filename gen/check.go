package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-elicit/elicit/internal/subset"
)

// Check runs the project's one subset checker on every form's schema. What
// the newest protocol version rejects is a diagnostic at the field; what
// only an older version lacks is downgraded when the checker knows an
// equivalent, and otherwise that version's variant is marked unsupported.
// It fills form.Variants.
func Check(forms []*Form) []Diagnostic {
	// Forms are independent: each fills only its own Variants.
	per := make([][]Diagnostic, len(forms))
	parallel(len(forms), runtime.GOMAXPROCS(0), func(i int) { per[i] = checkForm(forms[i]) })
	var diags []Diagnostic
	for _, ds := range per {
		diags = append(diags, ds...)
	}
	return diags
}

func checkForm(form *Form) []Diagnostic {
	if len(form.Fields) == 0 {
		return nil // Build reported it, naming the form
	}
	m, err := schemaMap(form)
	if err != nil {
		return []Diagnostic{{form.Pos, fmt.Sprintf("form %s: %v", form.Name, err)}}
	}
	var diags []Diagnostic
	versions := subset.FormVersions
	newest := versions[len(versions)-1]
	for _, v := range subset.Check(m, newest) {
		diags = append(diags, Diagnostic{form.posOf(v.Property), violationMessage(form, v)})
	}
	if len(diags) > 0 {
		return diags
	}
	order := form.propertyOrder()
	form.Variants = form.Variants[:0]
	for _, ver := range versions {
		down, vs := subset.Downgrade(m, ver)
		if len(vs) > 0 {
			form.Variants = append(form.Variants, Variant{Version: ver, Unsupported: unsupported(vs)})
			continue
		}
		b, err := marshalSchema(down, order)
		if err != nil {
			return []Diagnostic{{form.Pos, fmt.Sprintf("form %s: marshalling the %s schema: %v", form.Name, ver, err)}}
		}
		form.Variants = append(form.Variants, Variant{Version: ver, Schema: b})
	}
	return nil
}

// schemaMap is the model's schema as decoded JSON, the checker's input.
func schemaMap(form *Form) (map[string]any, error) {
	raw, err := json.Marshal(form.Schema)
	if err != nil {
		return nil, fmt.Errorf("marshalling the schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decoding the schema: %w", err)
	}
	return m, nil
}

func violationMessage(form *Form, v subset.Violation) string {
	msg := v.Message
	if v.Property != "" {
		if f := form.field(v.Property); f != nil {
			msg = "field " + f.GoName + ": " + msg
		}
	}
	return msg
}

// unsupported says why a version cannot carry the form.
func unsupported(vs []subset.Violation) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		var p string
		switch {
		case v.Feature != "" && v.Property != "":
			p = fmt.Sprintf("%s (property %q)", v.Feature, v.Property)
		case v.Feature != "":
			p = v.Feature
		case v.Property != "":
			p = fmt.Sprintf("property %q: %s", v.Property, v.Message)
		default:
			p = v.Message
		}
		if v.Since != "" {
			p += " needs protocol " + v.Since
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

func (form *Form) field(property string) *Field {
	for _, f := range form.Fields {
		if f.Name == property {
			return f
		}
	}
	return nil
}

// posOf maps a violation's property back to its field.
func (form *Form) posOf(property string) token.Pos {
	if f := form.field(property); f != nil {
		return f.Pos
	}
	return form.Pos
}

func (form *Form) propertyOrder() []string {
	order := make([]string, len(form.Fields))
	for i, f := range form.Fields {
		order[i] = f.Name
	}
	return order
}

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
		keys = append(keys, rest...)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			if root && k == "properties" {
				if err := writeProperties(buf, x[k], order); err != nil {
					return err
				}
				continue
			}
			if err := writeValue(buf, x[k], nil, false); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
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
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
		buf.WriteByte(':')
		if err := writeValue(buf, props[k], nil, false); err != nil {
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

// formatNumber is used in messages.
func formatNumber(n json.Number) string {
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(n)
}

// SortDiagnostics orders diagnostics by file name, line and column, then
// message, so every driver (elicitgen, elicitvet) lists them the same way
// whatever order the files were loaded in.
func SortDiagnostics(fset *token.FileSet, ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Pos != ds[j].Pos {
			return sourceLess(fset, ds[i].Pos, ds[j].Pos)
		}
		return ds[i].Message < ds[j].Message
	})
}
