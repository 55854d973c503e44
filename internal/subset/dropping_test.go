package subset

import (
	"reflect"
	"testing"
)

// An optional multi-select is left out of the 2025-06-18 schema and named;
// the rest is downgraded as Downgrade does, and newer versions keep it.
func TestDowngradeDroppingOptional(t *testing.T) {
	in := decode(t, `{"type":"object","properties":{`+
		`"notify":{"type":"array","items":{"type":"string","enum":["x","y"]}},`+
		`"extra":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}},`+
		`"name":{"type":"string","default":"n"}},"required":["name"]}`)
	got, dropped, vs := DowngradeDropping(in, V2025_06_18)
	if len(vs) > 0 {
		t.Fatalf("violations %q", strs(vs))
	}
	if want := []string{"extra", "notify"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	want := decode(t, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if vs := Check(got, V2025_06_18); len(vs) > 0 {
		t.Errorf("the reduced schema fails Check on 2025-06-18: %q", strs(vs))
	}
	if _, ok := in["properties"].(map[string]any)["notify"]; !ok {
		t.Error("DowngradeDropping modified its input")
	}
	for _, v := range []string{V2025_11_25, V2026_07_28} {
		same, dropped, vs := DowngradeDropping(in, v)
		if len(vs) > 0 || dropped != nil || !reflect.DeepEqual(same, in) {
			t.Errorf("%s: got %v, dropped %q, %q; want the input unchanged", v, same, dropped, strs(vs))
		}
	}
}

// A required multi-select still has no equivalent, and a form whose every
// property would be dropped is refused as well: nothing would be asked.
func TestDowngradeDroppingRefuses(t *testing.T) {
	multi := `{"type":"array","items":{"type":"string","enum":["x"]}}`
	for name, schema := range map[string]string{
		"required":     `{"type":"object","properties":{"a":` + multi + `,"b":{"type":"string"}},"required":["a"]}`,
		"nothing left": `{"type":"object","properties":{"a":` + multi + `}}`,
	} {
		got, dropped, vs := DowngradeDropping(decode(t, schema), V2025_06_18)
		want := []Violation{{Path: "/properties/a", Property: "a", Feature: FeatureMultiSelect, Since: V2025_11_25, Message: "multi-select has no equivalent before protocol 2025-11-25"}}
		if got != nil || dropped != nil || !reflect.DeepEqual(vs, want) {
			t.Errorf("%s: got %v, dropped %q, %+v; want %+v", name, got, dropped, vs, want)
		}
	}
}
