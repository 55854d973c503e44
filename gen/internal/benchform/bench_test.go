package benchform

import (
	"encoding/json"
	"testing"

	"github.com/go-playground/validator/v10"
	gsjsonschema "github.com/google/jsonschema-go/jsonschema"
)

// answer is a typical accepted answer.
var answer = []byte(`{"address":"192.0.2.1","asn":65000,"family":"ipv4-unicast","extra":["ipv6-unicast"],"passive":true}`)

func TestGeneratedDecode(t *testing.T) {
	var f PeerForm
	if err := f.ElicitDecode(answer); err != nil {
		t.Fatal(err)
	}
	if f.Address != "192.0.2.1" || f.ASN != 65000 || f.Family != IPv4 || len(f.Extra) != 1 || f.Extra[0] != IPv6 || !f.Passive {
		t.Errorf("decoded %+v", f)
	}
	// All three paths agree on what is good and bad.
	bad := []byte(`{"address":"nope","asn":0,"family":"ipv5","passive":true}`)
	if err := f.ElicitDecode(bad); err == nil {
		t.Error("generated decoder accepted bad content")
	}
	if err := goSDKPath(mapOf(t, bad), validator.New()); err == nil {
		t.Error("go-sdk path accepted bad content")
	}
	rs := resolved(t)
	if err := schemaPath(mapOf(t, bad), rs, validator.New()); err == nil {
		t.Error("schema path accepted bad content")
	}
}

func mapOf(t testing.TB, b []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// goSDKPath is what a go-sdk user writes for a typed answer: the SDK hands
// over content as map[string]any, the user round-trips it through JSON into
// the struct and runs the validator.
func goSDKPath(content map[string]any, v *validator.Validate) error {
	raw, err := json.Marshal(content)
	if err != nil {
		return err
	}
	var f PeerForm
	if err := json.Unmarshal(raw, &f); err != nil {
		return err
	}
	return v.Struct(&f)
}

// schemaPath adds what the go-sdk itself does with the requestedSchema: a
// general JSON Schema validation of the content (github.com/google/jsonschema-go).
func schemaPath(content map[string]any, rs *gsjsonschema.Resolved, v *validator.Validate) error {
	if err := rs.Validate(content); err != nil {
		return err
	}
	return goSDKPath(content, v)
}

func resolved(t testing.TB) *gsjsonschema.Resolved {
	variant, ok := (*PeerForm)(nil).ElicitForm().Lookup("2025-11-25")
	if !ok {
		t.Fatal("no variant")
	}
	var s gsjsonschema.Schema
	if err := json.Unmarshal(variant.Schema, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// BenchmarkDecodeGenerated: raw content bytes to a validated struct.
func BenchmarkDecodeGenerated(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var f PeerForm
		if err := f.ElicitDecode(answer); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeGoSDKUser: content map (already decoded by the SDK) to a
// validated struct, the way a go-sdk user does it.
func BenchmarkDecodeGoSDKUser(b *testing.B) {
	content := mapOf(b, answer)
	v := validator.New()
	b.ReportAllocs()
	for b.Loop() {
		if err := goSDKPath(content, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeGoSDKUserFromBytes includes decoding the content bytes into
// the map, which the SDK does before the user sees it.
func BenchmarkDecodeGoSDKUserFromBytes(b *testing.B) {
	v := validator.New()
	b.ReportAllocs()
	for b.Loop() {
		var content map[string]any
		if err := json.Unmarshal(answer, &content); err != nil {
			b.Fatal(err)
		}
		if err := goSDKPath(content, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeJSONSchema adds a general JSON Schema validator
// (jsonschema-go, which go-sdk uses) in front of the go-sdk user's path.
func BenchmarkDecodeJSONSchema(b *testing.B) {
	content := mapOf(b, answer)
	rs := resolved(b)
	v := validator.New()
	b.ReportAllocs()
	for b.Loop() {
		if err := schemaPath(content, rs, v); err != nil {
			b.Fatal(err)
		}
	}
}
