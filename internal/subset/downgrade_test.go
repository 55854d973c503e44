package subset

import (
	"encoding/json"
	"reflect"
	"testing"
)

// canon re-encodes a value as JSON so maps built differently compare equal.
func canon(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

func TestDowngrade(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // for 2025-06-18
	}{
		{"plain stays", form(`"a":{"type":"string","minLength":1}`), form(`"a":{"type":"string","minLength":1}`)},
		{"$schema dropped",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`,
			form(`"a":{"type":"string"}`)},
		{"defaults dropped, boolean kept",
			form(`"s":{"type":"string","default":"x"},"n":{"type":"number","default":1.5},"i":{"type":"integer","default":2},"b":{"type":"boolean","default":true},"e":{"type":"string","enum":["a"],"default":"a"},"l":{"type":"string","enum":["a"],"enumNames":["A"],"default":"a"}`),
			form(`"s":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean","default":true},"e":{"type":"string","enum":["a"]},"l":{"type":"string","enum":["a"],"enumNames":["A"]}`)},
		{"titled single-select to enumNames",
			form(`"c":{"type":"string","title":"Color","description":"d","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"}`),
			form(`"c":{"type":"string","title":"Color","description":"d","enum":["r","g"],"enumNames":["Red","Green"]}`)},
		{"required kept",
			`{"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := decode(t, tt.in)
			before := canon(t, in)
			got, vs := Downgrade(in, V2025_06_18)
			if len(vs) != 0 {
				t.Fatalf("violations %q", strs(vs))
			}
			if g, w := canon(t, got), canon(t, decode(t, tt.want)); g != w {
				t.Errorf("got  %s\nwant %s", g, w)
			}
			if vs := Check(got, V2025_06_18); len(vs) != 0 {
				t.Errorf("result is not valid for 2025-06-18: %q", strs(vs))
			}
			if canon(t, in) != before {
				t.Error("Downgrade modified its input")
			}
			// Newer versions get an equal copy.
			for _, v := range []string{V2025_11_25, V2026_07_28} {
				same, vs := Downgrade(in, v)
				if len(vs) != 0 || canon(t, same) != before {
					t.Errorf("%s: got %s, %q", v, canon(t, same), strs(vs))
				}
			}
		})
	}
}

func TestDowngradeCopies(t *testing.T) {
	in := map[string]any{"type": "object", "properties": map[string]any{
		"c": map[string]any{"type": "string", "enum": []string{"a", "b"}},
	}}
	out, vs := Downgrade(in, V2025_11_25)
	if len(vs) != 0 {
		t.Fatal(strs(vs))
	}
	out["properties"].(map[string]any)["c"].(map[string]any)["enum"].([]any)[0] = "z"
	if in["properties"].(map[string]any)["c"].(map[string]any)["enum"].([]string)[0] != "a" {
		t.Error("copy shares memory with the input")
	}
}

func TestDowngradeNoEquivalent(t *testing.T) {
	in := decode(t, form(`"b":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}},"a":{"type":"array","items":{"type":"string","enum":["x"]}},"c":{"type":"string"}`))
	got, vs := Downgrade(in, V2025_06_18)
	if got != nil {
		t.Errorf("want nil schema, got %v", got)
	}
	want := []Violation{
		{Path: "/properties/a", Property: "a", Feature: FeatureMultiSelect, Since: V2025_11_25, Message: "multi-select has no equivalent before protocol 2025-11-25"},
		{Path: "/properties/b", Property: "b", Feature: FeatureMultiSelect, Since: V2025_11_25, Message: "multi-select has no equivalent before protocol 2025-11-25"},
	}
	if !reflect.DeepEqual(vs, want) {
		t.Errorf("got %+v\nwant %+v", vs, want)
	}
}

func TestDowngradeBadInput(t *testing.T) {
	ok := decode(t, form(`"a":{"type":"string"}`))
	for _, tt := range []struct {
		schema  map[string]any
		version string
		want    string
	}{
		{ok, V2025_03_26, "protocol 2025-03-26 has no form elicitation: it needs 2025-06-18 or later"},
		{ok, "1999-01-01", `unknown protocol version "1999-01-01": known versions are "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"`},
		{decode(t, form(`"a":{"type":"string","pattern":"x"}`)), V2025_06_18, `/properties/a/pattern: keyword "pattern" is not allowed on a string property: elicitation schemas have no pattern (check it on the server instead)`},
	} {
		got, vs := Downgrade(tt.schema, tt.version)
		if got != nil || len(vs) != 1 || vs[0].String() != tt.want {
			t.Errorf("%s: got %v, %q; want %q", tt.version, got, strs(vs), tt.want)
		}
	}
}
