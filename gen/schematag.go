package gen

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/go-elicit/elicit/internal/subset"
)

// splitOnUnescapedCommas splits a jsonschema tag as invopop does: a comma
// preceded by a backslash is part of the value.
func splitOnUnescapedCommas(tag string) []string {
	parts := strings.Split(tag, ",")
	out := []string{parts[0]}
	for _, p := range parts[1:] {
		last := out[len(out)-1]
		if last != "" && last[len(last)-1] == '\\' {
			out[len(out)-1] = last[:len(last)-1] + "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// jsonschema tag keys invopop understands that elicitation schemas cannot
// carry; reported as unsupported rather than unknown.
var unsupportedSchemaKeys = map[string]string{
	"pattern":          "elicitation schemas do not allow pattern",
	"type":             "the type comes from the Go type",
	"anchor":           "elicitation schemas allow no anchors",
	"oneof_required":   "elicitation schemas allow no oneOf",
	"anyof_required":   "elicitation schemas allow no anyOf",
	"oneof_ref":        "elicitation schemas allow no $ref",
	"anyof_ref":        "elicitation schemas allow no $ref",
	"oneof_type":       "elicitation schemas allow one type per property",
	"anyof_type":       "elicitation schemas allow one type per property",
	"multipleOf":       "elicitation schemas do not allow multipleOf",
	"exclusiveMinimum": "elicitation schemas do not allow exclusiveMinimum",
	"exclusiveMaximum": "elicitation schemas do not allow exclusiveMaximum",
	"readOnly":         "elicitation schemas do not allow readOnly",
	"writeOnly":        "elicitation schemas do not allow writeOnly",
	"example":          "elicitation schemas do not allow examples",
	"uniqueItems":      "elicitation schemas do not allow uniqueItems",
	"nullable":         "elicitation schemas allow no null type; leave the property optional instead",
}

// schemaTag applies a jsonschema tag, with invopop's meaning, reporting
// every key invopop would drop silently.
func (b *builder) schemaTag(f *fieldModel, tag string) {
	if tag == "" {
		return
	}
	s := f.Schema
	seen := map[string]bool{}
	var enum []string
	var defaults []string
	for i, part := range splitOnUnescapedCommas(tag) {
		if part == "" {
			if i == 0 {
				continue // invopop's first element may be empty: `jsonschema:",title=x"`
			}
			b.errorf(f.Pos, "field %s: empty element in jsonschema tag", f.GoName)
			continue
		}
		key, val, hasVal := strings.Cut(part, "=")
		if why, ok := unsupportedSchemaKeys[key]; ok {
			b.errorf(f.Pos, "field %s: jsonschema tag key %q is not supported: %s", f.GoName, key, why)
			continue
		}
		if !hasVal {
			switch key {
			case "required":
				f.Required = true
			case "-":
			default:
				if slices.Contains(knownSchemaKeys, key) {
					b.errorf(f.Pos, "field %s: malformed jsonschema tag element %q: want %s=value", f.GoName, part, key)
				} else {
					b.errorf(f.Pos, "field %s: unknown jsonschema tag key %q%s", f.GoName, key, subset.DidYouMean(key, knownSchemaKeys))
				}
			}
			continue
		}
		if !slices.Contains(knownSchemaKeys, key) {
			b.errorf(f.Pos, "field %s: unknown jsonschema tag key %q%s", f.GoName, key, subset.DidYouMean(key, knownSchemaKeys))
			continue
		}
		if seen[key] && key != "enum" && !(key == "default" && f.Kind == kindMultiSelect) {
			b.errorf(f.Pos, "field %s: jsonschema tag key %q given more than once", f.GoName, key)
			continue
		}
		seen[key] = true
		switch key {
		case "title":
			s.Title = val
		case "description":
			s.Description = val
		case "minLength", "maxLength", "minItems", "maxItems":
			want := kindString
			if strings.HasSuffix(key, "Items") {
				want = kindMultiSelect
			}
			if !b.wantKind(f, key, want) {
				continue
			}
			n, ok := b.parseCount(f, key, val)
			if !ok {
				continue
			}
			switch key {
			case "minLength":
				s.MinLength, f.MinLength = n, n
			case "maxLength":
				s.MaxLength, f.MaxLength = n, n
			case "minItems":
				s.MinItems, f.MinItems = n, n
			default:
				s.MaxItems, f.MaxItems = n, n
			}
		case "minimum", "maximum":
			if !b.wantKind(f, key, kindInt, kindUint, kindFloat) {
				continue
			}
			num, ok := b.parseBound(f, key, val)
			if !ok {
				continue
			}
			if key == "minimum" {
				s.Minimum, f.Minimum = num, &num
			} else {
				s.Maximum, f.Maximum = num, &num
			}
		case "format":
			if !b.wantKind(f, key, kindString, kindTime) {
				continue
			}
			if f.Kind == kindTime && val != "date-time" && val != "date" {
				b.errorf(f.Pos, "field %s: format %q does not fit time.Time: use \"date-time\" or \"date\"", f.GoName, val)
				continue
			}
			if formats := subset.Formats(); !slices.Contains(formats, val) {
				b.errorf(f.Pos, "field %s: unknown format %q: elicitation allows %s%s", f.GoName, val, strings.Join(formats, ", "), subset.DidYouMean(val, formats))
				continue
			}
			s.Format, f.Format = val, val
		case "enum":
			if f.Choices {
				b.errorf(f.Pos, "field %s: enum tag on a field tagged elicit:%q: give the choices at the call with runtime.WithChoices, or remove the elicit tag", f.GoName, choicesTagValue)
				continue
			}
			if f.Kind == kindEnum || f.Kind == kindMultiSelect {
				b.errorf(f.Pos, "field %s: enum tag on a field of enum type %s: its constants are the members", f.GoName, f.Enum.Type.Obj().Name())
				continue
			}
			if f.Kind != kindString {
				b.errorf(f.Pos, "field %s: enum applies to string fields, not %s", f.GoName, b.typeString(f.Type))
				continue
			}
			if val == "" {
				b.errorf(f.Pos, "field %s: empty enum member: clients cannot show an empty choice; remove it, and make the field optional with omitempty for \"no choice\"", f.GoName)
				continue
			}
			enum = append(enum, val)
		case "default":
			defaults = append(defaults, val)
		}
	}
	if len(enum) > 0 {
		e := &enumModel{}
		for _, v := range enum {
			e.Members = append(e.Members, enumMember{Value: v})
		}
		f.Kind, f.Enum = kindEnum, e
		for _, v := range enum {
			s.Enum = append(s.Enum, v)
		}
	}
	if len(defaults) > 0 {
		b.setDefault(f, defaults)
	}
}

// knownSchemaKeys are the jsonschema tag keys a form may use, in the order
// "did you mean" prefers them.
var knownSchemaKeys = []string{
	"title", "description", "enum", "default", "minLength", "maxLength",
	"format", "minimum", "maximum", "minItems", "maxItems", "required",
}

func kindName(k fieldKind) string {
	switch k {
	case kindString:
		return "string"
	case kindInt, kindUint:
		return "integer"
	case kindFloat:
		return "number"
	case kindBool:
		return "boolean"
	case kindEnum:
		return "enum"
	case kindMultiSelect:
		return "multi-select"
	case kindTime:
		return "time.Time"
	}
	return "unknown"
}

func (b *builder) wantKind(f *fieldModel, key string, kinds ...fieldKind) bool {
	for _, k := range kinds {
		if f.Kind == k {
			return true
		}
	}
	var names []string
	for _, k := range kinds {
		if n := kindName(k); len(names) == 0 || names[len(names)-1] != n {
			names = append(names, n)
		}
	}
	b.errorf(f.Pos, "field %s: %s applies to %s fields, not to %s fields", f.GoName, key, strings.Join(names, " or "), kindName(f.Kind))
	return false
}

func (b *builder) parseCount(f *fieldModel, key, val string) (*uint64, bool) {
	n, err := strconv.ParseUint(val, 10, 64)
	if err != nil || n > 1<<53 {
		b.errorf(f.Pos, "field %s: %s %q is not a non-negative integer", f.GoName, key, val)
		return nil, false
	}
	return &n, true
}

// parseBound parses minimum/maximum, checking that it fits the Go type: a
// bound an integer field cannot reach is a mistake.
func (b *builder) parseBound(f *fieldModel, key, val string) (json.Number, bool) {
	if _, err := strconv.ParseFloat(val, 64); err != nil || !json.Valid([]byte(val)) {
		b.errorf(f.Pos, "field %s: %s %q is not a number", f.GoName, key, val)
		return "", false
	}
	switch f.Kind {
	case kindInt:
		iv, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			b.errorf(f.Pos, "field %s: %s %q is not an integer (the field is %s)", f.GoName, key, val, b.typeString(f.Type))
			return "", false
		}
		lo, hi := intRange(f.Bits)
		if iv < lo || iv > hi {
			b.errorf(f.Pos, "field %s: %s %s is out of the range of %s", f.GoName, key, val, b.typeString(f.Type))
			return "", false
		}
	case kindUint:
		uv, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			b.errorf(f.Pos, "field %s: %s %q is not a non-negative integer (the field is %s)", f.GoName, key, val, b.typeString(f.Type))
			return "", false
		}
		if uv > uintMax(f.Bits) {
			b.errorf(f.Pos, "field %s: %s %s is out of the range of %s", f.GoName, key, val, b.typeString(f.Type))
			return "", false
		}
	case kindFloat:
		if f.Bits == 32 {
			if _, err := strconv.ParseFloat(val, 32); err != nil {
				b.errorf(f.Pos, "field %s: %s %s is out of the range of float32", f.GoName, key, val)
				return "", false
			}
		}
	}
	return json.Number(val), true
}

func intRange(bits int) (int64, int64) {
	switch bits {
	case 8:
		return -1 << 7, 1<<7 - 1
	case 16:
		return -1 << 15, 1<<15 - 1
	case 32:
		return -1 << 31, 1<<31 - 1
	}
	return -1 << 63, 1<<63 - 1
}

func uintMax(bits int) uint64 {
	if bits == 64 {
		return 1<<64 - 1
	}
	return 1<<uint(bits) - 1
}

// setDefault parses default= values by the field's kind, as invopop does,
// but reports values invopop would drop.
func (b *builder) setDefault(f *fieldModel, vals []string) {
	s := f.Schema
	if f.Kind != kindMultiSelect && len(vals) > 1 {
		b.errorf(f.Pos, "field %s: jsonschema tag key \"default\" given more than once", f.GoName)
		return
	}
	v := vals[0]
	switch f.Kind {
	case kindString, kindEnum:
		s.Default, f.Default = v, v
	case kindTime:
		b.errorf(f.Pos, "field %s: default is not supported on time.Time fields", f.GoName)
	case kindBool:
		switch v {
		case "true":
			s.Default, f.Default = true, true
		case "false":
			s.Default, f.Default = false, false
		default:
			b.errorf(f.Pos, "field %s: default %q is not a boolean", f.GoName, v)
		}
	case kindInt, kindUint, kindFloat:
		if _, err := strconv.ParseFloat(v, 64); err != nil || !json.Valid([]byte(v)) {
			b.errorf(f.Pos, "field %s: default %q is not a number", f.GoName, v)
			return
		}
		ok := true
		switch f.Kind {
		case kindInt:
			iv, err := strconv.ParseInt(v, 10, 64)
			lo, hi := intRange(f.Bits)
			ok = err == nil && iv >= lo && iv <= hi
		case kindUint:
			uv, err := strconv.ParseUint(v, 10, 64)
			ok = err == nil && uv <= uintMax(f.Bits)
		}
		if !ok {
			b.errorf(f.Pos, "field %s: default %s does not fit %s", f.GoName, v, b.typeString(f.Type))
			return
		}
		s.Default, f.Default = json.Number(v), json.Number(v)
	case kindMultiSelect:
		list := make([]any, len(vals))
		strs := make([]string, len(vals))
		for i, x := range vals {
			list[i], strs[i] = x, x
		}
		s.Default, f.Default = list, strs
	}
}

// formatNumber is used in messages.
func formatNumber(n json.Number) string {
	if f, err := strconv.ParseFloat(string(n), 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return string(n)
}
