package subset

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const contentSchema = `{"type":"object","properties":{
	"name":{"type":"string","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"born":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"ratio":{"type":"number","minimum":0,"maximum":1},
	"count":{"type":"integer","minimum":1,"maximum":10},
	"ok":{"type":"boolean"},
	"color":{"type":"string","enum":["red","green"]},
	"legacy":{"type":"string","enum":["a","b"],"enumNames":["A","B"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["x","y","z"]}},
	"picks":{"type":"array","items":{"anyOf":[{"const":"p","title":"P"},{"const":"q","title":"Q"}]}}
},"required":["name","count"]}`

func TestValidateContentAccepts(t *testing.T) {
	schema := decode(t, contentSchema)
	if vs := Check(schema, V2025_11_25); len(vs) != 0 {
		t.Fatalf("schema: %q", strs(vs))
	}
	for _, content := range []string{
		`{"name":"ab","count":1}`,
		`{"name":"héllo","count":10}`, // 5 code points, 6 bytes
		`{"name":"日本","count":5.0}`,
		`{"name":"ab","count":3,"email":"a.b+c@example.co.uk","site":"https://example.com/a?b#c","born":"2024-02-29","at":"2025-01-31T09:30:00.123+05:30",
		  "ratio":0,"ok":false,"color":"green","legacy":"b","size":"l","tags":["z","x"],"picks":[]}`,
		`{"name":"ab","count":1,"ratio":1,"tags":["y"],"picks":["q","p"]}`,
	} {
		if vs := ValidateContent(schema, decode(t, content)); len(vs) != 0 {
			t.Errorf("%s: unexpected %q", content, strs(vs))
		}
		// The same content decoded without UseNumber (float64).
		var m map[string]any
		if err := json.Unmarshal([]byte(content), &m); err != nil {
			t.Fatal(err)
		}
		if vs := ValidateContent(schema, m); len(vs) != 0 {
			t.Errorf("%s (float64): unexpected %q", content, strs(vs))
		}
	}
}

func TestValidateContentRejects(t *testing.T) {
	schema := decode(t, contentSchema)
	tests := []struct {
		content string
		want    string // the one violation for the property, "name: message"
	}{
		{`{"count":1}`, `name: is required`},
		{`{"name":"ab"}`, `count: is required`},
		{`{"name":"ab","count":1,"extra":1}`, `extra: is not a field of the form`},
		{`{"name":1,"count":1}`, `name: must be a string, not a number`},
		{`{"name":null,"count":1}`, `name: must be a string, not null`},
		{`{"name":"a","count":1}`, `name: must be at least 2 characters`},
		{`{"name":"abcdef","count":1}`, `name: must be at most 5 characters`},
		{`{"name":"日本語日本語","count":1}`, `name: must be at most 5 characters`},
		{`{"name":"ab","count":1.5}`, `count: must be an integer`},
		{`{"name":"ab","count":"1"}`, `count: must be an integer, not a string`},
		{`{"name":"ab","count":0}`, `count: must be at least 1`},
		{`{"name":"ab","count":11}`, `count: must be at most 10`},
		{`{"name":"ab","count":1,"ratio":1.01}`, `ratio: must be at most 1`},
		{`{"name":"ab","count":1,"ratio":-0.5}`, `ratio: must be at least 0`},
		{`{"name":"ab","count":1,"ratio":true}`, `ratio: must be a number, not a boolean`},
		{`{"name":"ab","count":1,"ok":"true"}`, `ok: must be true or false, not a string`},
		{`{"name":"ab","count":1,"color":"blue"}`, `color: must be one of "red", "green"`},
		{`{"name":"ab","count":1,"legacy":"A"}`, `legacy: must be one of "a", "b"`},
		{`{"name":"ab","count":1,"size":"Small"}`, `size: must be one of "s", "l"`},
		{`{"name":"ab","count":1,"tags":"x"}`, `tags: must be an array of strings, not a string`},
		{`{"name":"ab","count":1,"tags":[]}`, `tags: must have at least 1 item`},
		{`{"name":"ab","count":1,"tags":["x","y","z"]}`, `tags: must have at most 2 items`},
		{`{"name":"ab","count":1,"tags":["x","w"]}`, `tags: item 1 ("w") must be one of "x", "y", "z"`},
		{`{"name":"ab","count":1,"tags":["x","x"]}`, `tags: item 1 repeats "x"`},
		{`{"name":"ab","count":1,"tags":[1]}`, `tags: item 0 must be a string, not a number`},
		{`{"name":"ab","count":1,"picks":["P"]}`, `picks: item 0 ("P") must be one of "p", "q"`},
		{`{"name":"ab","count":1,"email":"bob"}`, `email: must be an email address`},
		{`{"name":"ab","count":1,"site":"example.com"}`, `site: must be a URI with a scheme`},
		{`{"name":"ab","count":1,"born":"2025-02-30"}`, `born: must be a date (YYYY-MM-DD)`},
		{`{"name":"ab","count":1,"at":"2025-01-31T09:30:00"}`, `at: must be a date-time`},
	}
	for _, tt := range tests {
		vs := ValidateContent(schema, decode(t, tt.content))
		if len(vs) != 1 {
			t.Errorf("%s: want one violation, got %q", tt.content, strs(vs))
			continue
		}
		v := vs[0]
		got := v.Property + ": " + v.Message
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s:\n got  %q\n want %q", tt.content, got, tt.want)
		}
		if v.Path != "/"+v.Property {
			t.Errorf("%s: path %q, want %q", tt.content, v.Path, "/"+v.Property)
		}
	}
}

func TestValidateContentAllSorted(t *testing.T) {
	schema := decode(t, contentSchema)
	content := decode(t, `{"zz":1,"tags":["q"],"ratio":2,"color":"x","email":"@"}`)
	got := strs(ValidateContent(schema, content))
	want := []string{
		`/color: must be one of "red", "green"`,
		`/count: is required`,
		`/email: must be an email address`,
		`/name: is required`,
		`/ratio: must be at most 1`,
		`/tags: item 0 ("q") must be one of "x", "y", "z"`,
		`/zz: is not a field of the form`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestValidateContentNil(t *testing.T) {
	schema := decode(t, contentSchema)
	got := strs(ValidateContent(schema, nil))
	if want := []string{"/count: is required", "/name: is required"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nil content: got %q", got)
	}
	optional := decode(t, form(`"a":{"type":"string"}`))
	if vs := ValidateContent(optional, nil); len(vs) != 0 {
		t.Errorf("nil content, nothing required: %q", strs(vs))
	}
	if vs := ValidateContent(optional, map[string]any{}); len(vs) != 0 {
		t.Errorf("empty content: %q", strs(vs))
	}
	// A property name that needs escaping in the path.
	vs := ValidateContent(decode(t, `{"type":"object","properties":{"a/b":{"type":"string"}},"required":["a/b"]}`), nil)
	if len(vs) != 1 || vs[0].Path != "/a~1b" || vs[0].Property != "a/b" {
		t.Errorf("escaped path: %+v", vs)
	}
}

func TestValidateContentHandBuilt(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n":    map[string]any{"type": "integer", "minimum": 1},
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b"}}},
			"c":    map[string]any{"type": "string", "enum": []string{"x"}},
		},
		"required": []string{"n"},
	}
	if vs := ValidateContent(schema, map[string]any{"n": 2, "tags": []string{"a"}, "c": "x"}); len(vs) != 0 {
		t.Errorf("unexpected %q", strs(vs))
	}
	got := strs(ValidateContent(schema, map[string]any{"n": int8(0), "tags": []string{"c"}, "c": "y"}))
	want := []string{`/c: must be one of "x"`, `/n: must be at least 1`, `/tags: item 0 ("c") must be one of "a", "b"`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestValidateContentAllocations(t *testing.T) {
	schema := decode(t, contentSchema)
	content := decode(t, `{"name":"abc","count":3,"email":"a@example.com","site":"https://example.com","born":"2024-02-29","at":"2025-01-31T09:30:00Z",
		"ratio":0.5,"ok":true,"color":"red","legacy":"a","size":"s","tags":["x","y"],"picks":["p"]}`)
	if vs := ValidateContent(schema, content); len(vs) != 0 {
		t.Fatalf("unexpected %q", strs(vs))
	}
	if n := testing.AllocsPerRun(100, func() { ValidateContent(schema, content) }); n != 0 {
		t.Errorf("valid content allocates %v times per call, want 0", n)
	}
}
