package gen

import (
	"reflect"
	"testing"
)

// TestReflectTagLookup: the generator reads tags exactly as
// reflect.StructTag.Lookup does, malformed ones included.
func TestReflectTagLookup(t *testing.T) {
	tags := []string{
		``, `json:"a"`, `json:"a" jsonschema:"title=b"`, `  json:"a"  `, `json:"a"yaml:"b"`,
		`json:a`, `json: "a"`, `json:"a`, `json:"a\"b" x:"c"`, `json:"\x41" x:"é"`, `json:"\z"`,
		`:"a" json:"b"`, `"json":"a"`, `json:"a" bad x:"c"`, "json:\"a\"\tx:\"c\"", `j\son:"a"`,
	}
	for _, tag := range tags {
		for _, key := range []string{"json", "jsonschema", "x", "yaml", "bad"} {
			want, wantOK := reflect.StructTag(tag).Lookup(key)
			got, ok := reflectTagLookup(tag, key)
			if got != want || ok != wantOK {
				t.Errorf("reflectTagLookup(%q, %q) = %q, %v; reflect says %q, %v", tag, key, got, ok, want, wantOK)
			}
		}
	}
}

func FuzzReflectTagLookup(f *testing.F) {
	f.Add(`json:"a" jsonschema:"title=b"`, "json")
	f.Add(`json:"a"yaml:"b"`, "yaml")
	f.Fuzz(func(t *testing.T, tag, key string) {
		want, wantOK := reflect.StructTag(tag).Lookup(key)
		if got, ok := reflectTagLookup(tag, key); got != want || ok != wantOK {
			t.Errorf("reflectTagLookup(%q, %q) = %q, %v; reflect says %q, %v", tag, key, got, ok, want, wantOK)
		}
	})
}
