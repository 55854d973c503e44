package subset

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// decode parses a JSON object with UseNumber, failing the test on error.
func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	m, v, ok := decodeSchema([]byte(s))
	if !ok {
		t.Fatalf("bad test JSON %s: %s", s, v)
	}
	return m
}

// form wraps property schemas (a JSON object body) into a requestedSchema.
func form(props string) string {
	return `{"type":"object","properties":{` + props + `}}`
}

func strs(vs []Violation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

func TestCheckAcceptsEveryShape(t *testing.T) {
	// Shapes valid since 2025-06-18.
	base := []string{
		form(`"s":{"type":"string"}`),
		form(`"s":{"type":"string","title":"Name","description":"Your name","minLength":1,"maxLength":10}`),
		form(`"s":{"type":"string","minLength":0,"maxLength":0}`),
		form(`"s":{"type":"string","minLength":3,"maxLength":3}`),
		form(`"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"d":{"type":"string","format":"date"},"t":{"type":"string","format":"date-time"}`),
		form(`"n":{"type":"number","minimum":-1.5,"maximum":2.25}`),
		form(`"n":{"type":"number","minimum":1e300}`),
		form(`"i":{"type":"integer","title":"Count","minimum":0,"maximum":10}`),
		form(`"i":{"type":"integer","minimum":1.0,"maximum":1}`),
		form(`"b":{"type":"boolean"}`),
		form(`"b":{"type":"boolean","title":"OK?","description":"d","default":false}`),
		form(`"c":{"type":"string","enum":["red","green","blue"]}`),
		form(`"c":{"type":"string","title":"Color","enum":["r","g"],"enumNames":["Red","Green"]}`),
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":[]}`,
		form(`"a/b~c":{"type":"string"}`),
		form(`"名前":{"type":"string","title":"お名前"}`),
	}
	// Shapes valid since 2025-11-25.
	later := []string{
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`,
		form(`"s":{"type":"string","default":"bob"}`),
		form(`"s":{"type":"string","minLength":2,"maxLength":5,"default":"héllo"}`),
		form(`"s":{"type":"string","format":"email","default":"a@example.com"}`),
		form(`"n":{"type":"number","minimum":0,"maximum":1,"default":0.5}`),
		form(`"i":{"type":"integer","default":3}`),
		form(`"i":{"type":"integer","default":3.0}`),
		form(`"c":{"type":"string","enum":["a","b"],"default":"b"}`),
		form(`"c":{"type":"string","enum":["a","b"],"enumNames":["A","B"],"default":"a"}`),
		form(`"c":{"type":"string","title":"T","description":"D","oneOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}],"default":"a"}`),
		form(`"m":{"type":"array","items":{"type":"string","enum":["a","b","c"]}}`),
		form(`"m":{"type":"array","title":"T","description":"D","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]},"default":["a","c"]}`),
		form(`"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]},"default":[]}`),
		form(`"m":{"type":"array","minItems":0,"maxItems":0,"items":{"anyOf":[{"const":"a","title":"A"}]}}`),
	}
	for _, version := range FormVersions {
		for _, s := range base {
			if vs := CheckJSON([]byte(s), version); len(vs) != 0 {
				t.Errorf("%s: %s: unexpected %q", version, s, strs(vs))
			}
		}
	}
	for _, version := range []string{V2025_11_25, V2026_07_28} {
		for _, s := range later {
			if vs := CheckJSON([]byte(s), version); len(vs) != 0 {
				t.Errorf("%s: %s: unexpected %q", version, s, strs(vs))
			}
		}
	}
}

func TestCheckVersionGates(t *testing.T) {
	tests := []struct {
		schema  string
		path    string
		feature string
	}{
		{`{"$schema":"x","type":"object","properties":{"a":{"type":"string"}}}`, "/$schema", FeatureSchemaKeyword},
		{form(`"s":{"type":"string","default":"x"}`), "/properties/s/default", FeatureStringDefault},
		{form(`"n":{"type":"number","default":1}`), "/properties/n/default", FeatureNumberDefault},
		{form(`"i":{"type":"integer","default":1}`), "/properties/i/default", FeatureNumberDefault},
		{form(`"c":{"type":"string","enum":["a"],"default":"a"}`), "/properties/c/default", FeatureEnumDefault},
		{form(`"c":{"type":"string","enum":["a"],"enumNames":["A"],"default":"a"}`), "/properties/c/default", FeatureEnumDefault},
		{form(`"c":{"type":"string","oneOf":[{"const":"a","title":"A"}]}`), "/properties/c", FeatureTitledSingle},
		{form(`"m":{"type":"array","items":{"type":"string","enum":["a"]}}`), "/properties/m", FeatureMultiSelect},
		{form(`"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`), "/properties/m", FeatureMultiSelect},
	}
	for _, tt := range tests {
		vs := CheckJSON([]byte(tt.schema), V2025_06_18)
		if len(vs) != 1 {
			t.Errorf("%s: want exactly one violation, got %q", tt.schema, strs(vs))
			continue
		}
		v := vs[0]
		if v.Path != tt.path || v.Feature != tt.feature || v.Since != V2025_11_25 {
			t.Errorf("%s: got %+v, want path %q feature %q since %s", tt.schema, v, tt.path, tt.feature, V2025_11_25)
		}
		if !strings.Contains(v.Message, "needs protocol 2025-11-25 or later") {
			t.Errorf("%s: message %q does not say which version", tt.schema, v.Message)
		}
		for _, later := range []string{V2025_11_25, V2026_07_28} {
			if vs := CheckJSON([]byte(tt.schema), later); len(vs) != 0 {
				t.Errorf("%s on %s: unexpected %q", tt.schema, later, strs(vs))
			}
		}
	}
}

func TestCheckVersions(t *testing.T) {
	ok := form(`"a":{"type":"string"}`)
	for _, tt := range []struct {
		version, feature, want string
	}{
		{"", "", `unknown protocol version ""`},
		{"2024-11-05", "", `unknown protocol version "2024-11-05": known versions are "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"`},
		{"latest", "", `unknown protocol version "latest"`},
		{V2025_03_26, FeatureForm, "protocol 2025-03-26 has no form elicitation: it needs 2025-06-18 or later"},
	} {
		vs := CheckJSON([]byte(ok), tt.version)
		if len(vs) != 1 || !strings.HasPrefix(vs[0].Message, tt.want) || vs[0].Feature != tt.feature || vs[0].Path != "" {
			t.Errorf("version %q: got %+v, want %q", tt.version, vs, tt.want)
		}
	}
	if vs := CheckJSON([]byte(ok), V2025_03_26); vs[0].Since != V2025_06_18 {
		t.Errorf("2025-03-26: Since = %q", vs[0].Since)
	}
	if !Known(V2026_07_28) || Known("2026-01-01") || HasForm(V2025_03_26) || !HasForm(V2025_06_18) || HasForm("x") {
		t.Error("Known/HasForm disagree with the version list")
	}
	if !reflect.DeepEqual(FormVersions, Versions[1:]) {
		t.Error("FormVersions must be Versions without 2025-03-26")
	}
}

// TestCheckViolations lists schemas with what Check must say about them,
// as "path: message" prefixes, in order.
func TestCheckViolations(t *testing.T) {
	tests := []struct {
		name    string
		version string // default 2025-11-25
		schema  string
		want    []string
	}{
		// Root.
		{"empty object", "", `{}`, []string{
			`missing "type": requestedSchema must have "type": "object"`,
			`missing "properties": a form needs at least one property`}},
		{"root type array", "", `{"type":"array","properties":{"a":{"type":"string"}}}`, []string{`/type: type must be "object", not "array"`}},
		{"root type not string", "", `{"type":1,"properties":{"a":{"type":"string"}}}`, []string{`/type: type must be "object", not a number`}},
		{"properties not object", "", `{"type":"object","properties":[]}`, []string{`/properties: properties must be an object, not an array`}},
		{"empty properties", "", `{"type":"object","properties":{}}`, []string{`/properties: form has no properties`}},
		{"root title", "", `{"type":"object","title":"T","properties":{"a":{"type":"string"}}}`, []string{
			`/title: keyword "title" is not allowed at the root: requestedSchema allows only "type", "properties", "required" and "$schema"`}},
		{"root additionalProperties", "", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}`, []string{
			`/additionalProperties: keyword "additionalProperties" is not allowed at the root`}},
		{"root $defs", "", `{"type":"object","$defs":{},"properties":{"a":{"type":"string"}}}`, []string{
			`/$defs: keyword "$defs" is not allowed at the root: references are not allowed`}},
		{"$schema not string", "", `{"$schema":1,"type":"object","properties":{"a":{"type":"string"}}}`, []string{`/$schema: $schema must be a string, not a number`}},
		{"required not array", "", `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`, []string{
			`/required: required must be an array of property names, not a string`}},
		{"required entries", "", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","b",1,"a"]}`, []string{
			`/required/1: required property "b" is not defined in properties`,
			`/required/2: required entries must be property names, not a number`,
			`/required/3: "a" is listed twice in required`}},

		// Property shapes.
		{"property not object", "", form(`"a":"string"`), []string{`/properties/a: property schema must be an object, not a string`}},
		{"empty name", "", form(`"":{"type":"string"}`), []string{`/properties/: property name must not be empty`}},
		{"missing type", "", form(`"a":{"title":"A"}`), []string{`/properties/a: missing "type"`}},
		{"missing type with $ref", "", form(`"a":{"$ref":"#/$defs/x"}`), []string{
			`/properties/a: missing "type": references ($ref) are not allowed`,
			`/properties/a/$ref: keyword "$ref" is not allowed on a property: references are not allowed, write every property inline`}},
		{"missing type with anyOf", "", form(`"a":{"anyOf":[{"type":"string"},{"type":"null"}]}`), []string{
			`/properties/a: missing "type": a property has exactly one type, not a combination`,
			`/properties/a/anyOf: keyword "anyOf" is not allowed on a property: combinators are not allowed`}},
		{"nullable type list", "", form(`"a":{"type":["string","null"]}`), []string{
			`/properties/a/type: type must be one string, not a list: nullable and union types are not allowed`}},
		{"type not string", "", form(`"a":{"type":true}`), []string{`/properties/a/type: type must be a string, not a boolean`}},
		{"nested object", "", form(`"a":{"type":"object","properties":{"b":{"type":"string"}}}`), []string{
			`/properties/a/properties: keyword "properties" is not allowed on a property: nested objects are not allowed`,
			`/properties/a/type: type "object" is not allowed: nested objects are not allowed`}},
		{"null type", "", form(`"a":{"type":"null"}`), []string{`/properties/a/type: type "null" is not allowed`}},
		{"unknown type", "", form(`"a":{"type":"date"}`), []string{
			`/properties/a/type: unknown type "date": must be "string", "number", "integer", "boolean", "array"`}},
		{"pattern", "", form(`"a":{"type":"string","pattern":"^a"}`), []string{
			`/properties/a/pattern: keyword "pattern" is not allowed on a string property: elicitation schemas have no pattern`}},
		{"unknown keyword", "", form(`"a":{"type":"string","placeholder":"x"}`), []string{
			`/properties/a/placeholder: keyword "placeholder" is not allowed on a string property`}},
		{"allOf on string", "", form(`"a":{"type":"string","allOf":[]}`), []string{
			`/properties/a/allOf: keyword "allOf" is not allowed on a string property: combinators are not allowed`}},
		{"const", "", form(`"a":{"type":"string","const":"x"}`), []string{
			`/properties/a/const: keyword "const" is not allowed on a string property: use enum or oneOf for fixed values`}},
		{"minimum on string", "", form(`"a":{"type":"string","minimum":1}`), []string{
			`/properties/a/minimum: keyword "minimum" is not allowed on a string property: it applies only to number and integer properties`}},
		{"minLength on number", "", form(`"a":{"type":"number","minLength":1}`), []string{
			`/properties/a/minLength: keyword "minLength" is not allowed on a number property: it applies only to plain string properties`}},
		{"format on enum", "", form(`"a":{"type":"string","enum":["x"],"format":"email"}`), []string{
			`/properties/a/format: keyword "format" is not allowed on an enum property`}},
		{"exclusiveMinimum", "", form(`"a":{"type":"integer","exclusiveMinimum":1}`), []string{
			`/properties/a/exclusiveMinimum: keyword "exclusiveMinimum" is not allowed on an integer property: only minimum and maximum bound a number`}},
		{"enum on number", "", form(`"a":{"type":"number","enum":[1,2]}`), []string{
			`/properties/a/enum: keyword "enum" is not allowed on a number property: options need "type": "string"`}},
		{"enumNames without enum", "", form(`"a":{"type":"string","enumNames":["A"]}`), []string{
			`/properties/a/enumNames: keyword "enumNames" is not allowed on a string property: enumNames needs "enum"`}},
		{"enum and oneOf", "", form(`"a":{"type":"string","enum":["a"],"oneOf":[{"const":"a","title":"A"}]}`), []string{
			`/properties/a/oneOf: keyword "oneOf" is not allowed on an enum property: use either enum or oneOf, not both`}},
		{"items on string", "", form(`"a":{"type":"string","items":{}}`), []string{
			`/properties/a/items: keyword "items" is not allowed on a string property: it applies only to multi-select arrays`}},
		{"title not string", "", form(`"a":{"type":"string","title":1,"description":null}`), []string{
			`/properties/a/description: description must be a string, not null`,
			`/properties/a/title: title must be a string, not a number`}},

		// Values.
		{"negative minLength", "", form(`"a":{"type":"string","minLength":-1}`), []string{`/properties/a/minLength: minLength must be a non-negative integer, not -1`}},
		{"fractional maxLength", "", form(`"a":{"type":"string","maxLength":2.5}`), []string{`/properties/a/maxLength: maxLength must be a non-negative integer, not 2.5`}},
		{"string maxLength", "", form(`"a":{"type":"string","maxLength":"5"}`), []string{`/properties/a/maxLength: maxLength must be a non-negative integer, not "5"`}},
		{"minLength > maxLength", "", form(`"a":{"type":"string","minLength":5,"maxLength":3}`), []string{`/properties/a/minLength: minLength 5 is greater than maxLength 3`}},
		{"minimum > maximum", "", form(`"asn":{"type":"integer","minimum":5,"maximum":3}`), []string{`/properties/asn/minimum: minimum 5 is greater than maximum 3`}},
		{"no integer in range", "", form(`"a":{"type":"integer","minimum":1.2,"maximum":1.8}`), []string{`/properties/a/minimum: no integer lies between minimum 1.2 and maximum 1.8`}},
		{"minimum not number", "", form(`"a":{"type":"number","minimum":"0","maximum":true}`), []string{
			`/properties/a/maximum: maximum must be a number, not a boolean`,
			`/properties/a/minimum: minimum must be a number, not a string`}},
		{"unknown format", "", form(`"a":{"type":"string","format":"hostname"}`), []string{
			`/properties/a/format: unknown format "hostname": must be one of "email", "uri", "date", "date-time"`}},
		{"format not string", "", form(`"a":{"type":"string","format":1}`), []string{`/properties/a/format: format must be a string, not a number`}},
		{"empty enum", "", form(`"a":{"type":"string","enum":[]}`), []string{`/properties/a/enum: enum must not be empty`}},
		{"enum not array", "", form(`"a":{"type":"string","enum":"a"}`), []string{`/properties/a/enum: enum must be an array of strings, not a string`}},
		{"enum members", "", form(`"a":{"type":"string","enum":["a","",1,"a",null]}`), []string{
			`/properties/a/enum/1: enum members must not be empty strings`,
			`/properties/a/enum/2: enum members must be strings, not a number`,
			`/properties/a/enum/3: "a" is listed twice in enum`,
			`/properties/a/enum/4: enum members must be strings, not null`}},
		{"enumNames length", "", form(`"a":{"type":"string","enum":["a","b","c"],"enumNames":["A","B"]}`), []string{
			`/properties/a/enumNames: enumNames has 2 entries but enum has 3`}},
		{"enumNames members", "", form(`"a":{"type":"string","enum":["a","b"],"enumNames":["",2]}`), []string{
			`/properties/a/enumNames/0: enumNames entries must not be empty`,
			`/properties/a/enumNames/1: enumNames entries must be strings, not a number`}},
		{"enumNames not array", "", form(`"a":{"type":"string","enum":["a"],"enumNames":{}}`), []string{
			`/properties/a/enumNames: enumNames must be an array of strings, not an object`}},
		{"empty oneOf", "", form(`"a":{"type":"string","oneOf":[]}`), []string{`/properties/a/oneOf: oneOf must not be empty`}},
		{"oneOf not array", "", form(`"a":{"type":"string","oneOf":{"const":"a"}}`), []string{`/properties/a/oneOf: oneOf must be an array of {"const", "title"} options, not an object`}},
		{"oneOf entries", "", form(`"a":{"type":"string","oneOf":["a",{"const":"b"},{"title":"C"},{"const":"b","title":""},{"const":1,"title":2,"description":"x"},{"const":"","title":"E"}]}`), []string{
			`/properties/a/oneOf/0: options must be objects with "const" and "title", not a string`,
			`/properties/a/oneOf/1: option needs "title"`,
			`/properties/a/oneOf/2: option needs "const"`,
			`/properties/a/oneOf/3/const: const "b" is listed twice in oneOf`,
			`/properties/a/oneOf/3/title: title must not be empty`,
			`/properties/a/oneOf/4/const: const must be a string, not a number`,
			`/properties/a/oneOf/4/description: keyword "description" is not allowed in an option`,
			`/properties/a/oneOf/4/title: title must be a string, not a number`,
			`/properties/a/oneOf/5/const: const must not be an empty string`}},

		// Multi-select.
		{"array without items", "", form(`"m":{"type":"array"}`), []string{
			`/properties/m: multi-select arrays need "items"`}},
		{"items not object", "", form(`"m":{"type":"array","items":"string"}`), []string{`/properties/m/items: items must be an object, not a string`}},
		{"items number", "", form(`"m":{"type":"array","items":{"type":"number"}}`), []string{
			`/properties/m/items: multi-select items need "enum" (or "anyOf" with titled options)`,
			`/properties/m/items/type: multi-select items must have type "string", not "number"`}},
		{"items without type", "", form(`"m":{"type":"array","items":{"enum":["a"]}}`), []string{
			`/properties/m/items: multi-select items need "type": "string"`}},
		{"items extra key", "", form(`"m":{"type":"array","items":{"type":"string","enum":["a"],"minLength":1}}`), []string{
			`/properties/m/items/minLength: keyword "minLength" is not allowed in multi-select items`}},
		{"titled items with type", "", form(`"m":{"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"A"}]}}`), []string{
			`/properties/m/items/type: keyword "type" is not allowed in titled multi-select items`}},
		{"items empty enum", "", form(`"m":{"type":"array","items":{"type":"string","enum":[]}}`), []string{`/properties/m/items/enum: enum must not be empty`}},
		{"items anyOf dup", "", form(`"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"a","title":"B"}]}}`), []string{
			`/properties/m/items/anyOf/1/const: const "a" is listed twice in anyOf`}},
		{"minItems > maxItems", "", form(`"m":{"type":"array","minItems":2,"maxItems":1,"items":{"type":"string","enum":["a","b"]}}`), []string{
			`/properties/m/minItems: minItems 2 is greater than maxItems 1`}},
		{"minItems > options", "", form(`"m":{"type":"array","minItems":3,"items":{"type":"string","enum":["a","b"]}}`), []string{
			`/properties/m/minItems: minItems 3 is greater than the number of options (2)`}},
		{"negative maxItems", "", form(`"m":{"type":"array","maxItems":-1,"items":{"type":"string","enum":["a"]}}`), []string{
			`/properties/m/maxItems: maxItems must be a non-negative integer, not -1`}},
		{"nested array", "", form(`"m":{"type":"array","items":{"type":"array","items":{"type":"string","enum":["a"]}}}`), []string{
			`/properties/m/items: multi-select items need "enum"`,
			`/properties/m/items/items: keyword "items" is not allowed in multi-select items`,
			`/properties/m/items/type: multi-select items must have type "string", not "array"`}},

		// Defaults.
		{"string default type", "", form(`"a":{"type":"string","default":1}`), []string{`/properties/a/default: default must be a string, not a number`}},
		{"string default too short", "", form(`"a":{"type":"string","minLength":3,"default":"ab"}`), []string{`/properties/a/default: default "ab" must be at least 3 characters`}},
		{"string default too long", "", form(`"a":{"type":"string","maxLength":1,"default":"ab"}`), []string{`/properties/a/default: default "ab" must be at most 1 character`}},
		{"string default format", "", form(`"a":{"type":"string","format":"email","default":"bob"}`), []string{`/properties/a/default: default "bob" must be an email address`}},
		{"number default type", "", form(`"a":{"type":"number","default":"1"}`), []string{`/properties/a/default: default must be a finite number, not a string`}},
		{"integer default fraction", "", form(`"a":{"type":"integer","default":1.5}`), []string{`/properties/a/default: default 1.5 must be an integer`}},
		{"number default below", "", form(`"a":{"type":"number","minimum":1,"default":0}`), []string{`/properties/a/default: default 0 must be at least 1`}},
		{"number default above", "", form(`"a":{"type":"number","maximum":1,"default":2}`), []string{`/properties/a/default: default 2 must be at most 1`}},
		{"boolean default type", "", form(`"a":{"type":"boolean","default":"true"}`), []string{`/properties/a/default: default must be a boolean, not a string`}},
		{"enum default member", "", form(`"a":{"type":"string","enum":["x"],"default":"y"}`), []string{`/properties/a/default: default "y" is not one of the options`}},
		{"enum default type", "", form(`"a":{"type":"string","enum":["x"],"default":1}`), []string{`/properties/a/default: default must be a string, not a number`}},
		{"oneOf default member", "", form(`"a":{"type":"string","oneOf":[{"const":"x","title":"X"}],"default":"X"}`), []string{`/properties/a/default: default "X" is not one of the options`}},
		{"multi default type", "", form(`"m":{"type":"array","items":{"type":"string","enum":["a"]},"default":"a"}`), []string{`/properties/m/default: default must be an array of strings, not a string`}},
		{"multi default member", "", form(`"m":{"type":"array","items":{"type":"string","enum":["a"]},"default":["a","b"]}`), []string{`/properties/m/default: default item 1 ("b") must be one of "a"`}},
		{"multi default repeat", "", form(`"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"default":["a","a"]}`), []string{`/properties/m/default: default item 1 repeats "a"`}},
		{"multi default count", "", form(`"m":{"type":"array","minItems":1,"items":{"type":"string","enum":["a"]},"default":[]}`), []string{`/properties/m/default: default must have at least 1 item`}},
		{"multi default non-string", "", form(`"m":{"type":"array","items":{"type":"string","enum":["a"]},"default":[1]}`), []string{`/properties/m/default: default item 0 must be a string, not a number`}},

		// Everything on 2025-06-18 at once: each gate plus a plain error.
		{"2025-06-18 gates", V2025_06_18, `{"$schema":"x","type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"array","items":{"type":"string","enum":["a"]}},"c":{"type":"string","minLength":-1}}}`, []string{
			`/$schema: $schema needs protocol 2025-11-25 or later`,
			`/properties/a/default: string default needs protocol 2025-11-25 or later`,
			`/properties/b: multi-select needs protocol 2025-11-25 or later`,
			`/properties/c/minLength: minLength must be a non-negative integer, not -1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version := tt.version
			if version == "" {
				version = V2025_11_25
			}
			got := strs(CheckJSON([]byte(tt.schema), version))
			if len(got) != len(tt.want) {
				t.Fatalf("got %d violations, want %d:\n got  %q\n want %q", len(got), len(tt.want), got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("violation %d:\n got  %q\n want %q...", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestCheckViolationFields(t *testing.T) {
	vs := CheckJSON([]byte(`{"type":"object","properties":{"a/b":{"type":"string","minLength":-1}},"required":["zz"],"extra":1}`), V2025_11_25)
	want := []Violation{
		{Path: "/extra", Message: vs[0].Message},
		{Path: "/properties/a~1b/minLength", Property: "a/b", Message: "minLength must be a non-negative integer, not -1"},
		{Path: "/required/0", Property: "zz", Message: `required property "zz" is not defined in properties`},
	}
	if !reflect.DeepEqual(vs, want) {
		t.Fatalf("got %+v\nwant %+v", vs, want)
	}
	for _, v := range vs {
		if v.Feature != "" || v.Since != "" {
			t.Errorf("%v: Feature/Since set on a plain violation", v)
		}
		if m := v.Message; m == "" || strings.HasSuffix(m, ".") || strings.ToLower(m[:1]) != m[:1] {
			t.Errorf("message %q: must be lowercase without a final period", m)
		}
	}
}

// TestCheckListsAllSorted builds a schema with many independent errors and
// checks that every one is reported, sorted by path, and the same every run.
func TestCheckListsAllSorted(t *testing.T) {
	s := `{"type":"object","zeta":1,"alpha":2,"properties":{
		"p1":{"type":"string","minLength":-1},
		"p2":{"type":"integer","minimum":3,"maximum":1},
		"p3":{"type":"string","enum":[]},
		"p4":{"type":"object"},
		"p5":{"type":"string","format":"phone"},
		"p6":{"type":["string","null"]},
		"p7":{"type":"boolean","default":"yes"},
		"p8":{"type":"string","pattern":"x"}
	},"required":["p1","nope"]}`
	first := CheckJSON([]byte(s), V2025_11_25)
	if len(first) != 11 {
		t.Fatalf("want 11 violations, got %d: %q", len(first), strs(first))
	}
	if !sort.SliceIsSorted(first, func(i, j int) bool { return first[i].Path < first[j].Path }) {
		t.Errorf("not sorted by path: %q", strs(first))
	}
	for range 20 {
		if again := CheckJSON([]byte(s), V2025_11_25); !reflect.DeepEqual(first, again) {
			t.Fatalf("not deterministic:\n%q\n%q", strs(first), strs(again))
		}
	}
}

func TestCheckHandBuiltGoValues(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "minLength": 1, "maxLength": uint8(20)},
			"age":   map[string]any{"type": "integer", "minimum": int64(0), "maximum": float32(150), "default": 30},
			"color": map[string]any{"type": "string", "enum": []string{"r", "g"}, "enumNames": []string{"Red", "Green"}, "default": "r"},
			"size":  map[string]any{"type": "string", "oneOf": []map[string]any{{"const": "s", "title": "Small"}}},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b"}}, "default": []string{"a"}},
		},
		"required": []string{"name"},
	}
	if vs := Check(schema, V2025_11_25); len(vs) != 0 {
		t.Fatalf("unexpected %q", strs(vs))
	}
	bad := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n": map[string]any{"type": "number", "minimum": math.NaN(), "maximum": math.Inf(1)},
			"s": map[string]any{"type": "string", "enum": []string{"a", "a"}},
			"x": map[string]any{"type": "string", "title": struct{}{}},
		},
		"required": []string{"s", "s"},
	}
	got := strs(Check(bad, V2025_11_25))
	want := []string{
		"/properties/n/maximum: maximum must be a finite number",
		"/properties/n/minimum: minimum must be a finite number",
		`/properties/s/enum/1: "a" is listed twice in enum`,
		"/properties/x/title: title must be a string, not an unsupported value",
		`/required/1: "s" is listed twice in required`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if vs := Check(nil, V2025_11_25); len(vs) != 2 {
		t.Errorf("nil schema: got %q", strs(vs))
	}
}

func TestCheckJSONMalformed(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{``, "malformed JSON: empty input"},
		{`{`, "malformed JSON: unexpected EOF"},
		{`{"type":"object"} {}`, "malformed JSON: unexpected data after the schema"},
		{`{"type":"object"} x`, "malformed JSON: unexpected data after the schema"},
		{`[]`, "schema must be a JSON object, not an array"},
		{`null`, "schema must be a JSON object, not null"},
		{`"x"`, "schema must be a JSON object, not a string"},
		{`{"type":}`, "malformed JSON: invalid character"},
	} {
		vs := CheckJSON([]byte(tt.in), V2025_11_25)
		if len(vs) != 1 || !strings.HasPrefix(vs[0].Message, tt.want) || vs[0].Path != "" {
			t.Errorf("%q: got %q, want %q", tt.in, strs(vs), tt.want)
		}
	}
	// Big numbers survive UseNumber decoding.
	if vs := CheckJSON([]byte(form(`"a":{"type":"integer","minimum":12345678901234567890}`)), V2025_11_25); len(vs) != 0 {
		t.Errorf("big number: %q", strs(vs))
	}
	if vs := CheckJSON([]byte(form(`"a":{"type":"number","minimum":1e400}`)), V2025_11_25); len(vs) != 1 {
		t.Errorf("out-of-range number: %q", strs(vs))
	}
}

func TestValidateError(t *testing.T) {
	if err := Validate(decode(t, form(`"a":{"type":"string"}`)), V2025_06_18); err != nil {
		t.Fatalf("valid schema: %v", err)
	}
	err := Validate(decode(t, form(`"a":{"type":"string","minLength":-1}`)), V2025_06_18)
	var se *SchemaError
	if !errors.Is(err, ErrInvalidSchema) || !errors.As(err, &se) || len(se.Violations) != 1 {
		t.Fatalf("got %v", err)
	}
	const want = "requestedSchema is not valid for protocol 2025-06-18: /properties/a/minLength: minLength must be a non-negative integer, not -1"
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err.Error(), want)
	}
}

func TestViolationString(t *testing.T) {
	if got := (Violation{Message: "m"}).String(); got != "m" {
		t.Errorf("root: %q", got)
	}
	if got := (Violation{Path: "/properties/asn/minimum", Message: "minimum 5 is greater than maximum 3"}).String(); got != "/properties/asn/minimum: minimum 5 is greater than maximum 3" {
		t.Errorf("got %q", got)
	}
}

// TestConformanceFixtures checks the shapes the official conformance suite's
// elicitation tools send (test_elicitation, sep1034 defaults, sep1330 enums).
func TestConformanceFixtures(t *testing.T) {
	basic := `{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`
	defaults := `{"type":"object","properties":{
		"name":{"type":"string","description":"User name","default":"John Doe"},
		"age":{"type":"integer","description":"User age","default":30},
		"score":{"type":"number","description":"User score","default":95.5},
		"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","description":"Verification status","default":true}}}`
	enums := `{"type":"object","properties":{
		"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
		"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"}]},
		"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
		"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},
		"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"}]}}}}`
	for _, v := range FormVersions {
		if vs := CheckJSON([]byte(basic), v); len(vs) != 0 {
			t.Errorf("basic on %s: %q", v, strs(vs))
		}
	}
	for _, s := range []string{defaults, enums} {
		if vs := CheckJSON([]byte(s), V2025_11_25); len(vs) != 0 {
			t.Errorf("%q", strs(vs))
		}
	}
	answer := map[string]any{
		"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
		"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"},
	}
	if vs := ValidateContent(decode(t, enums), answer); len(vs) != 0 {
		t.Errorf("enum answer: %q", strs(vs))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(defaults), &m); err != nil {
		t.Fatal(err)
	}
	if vs := Check(m, V2025_11_25); len(vs) != 0 {
		t.Errorf("float64-decoded defaults: %q", strs(vs))
	}
}
