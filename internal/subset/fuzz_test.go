package subset

import (
	"net/mail"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzCheckJSON asserts that no input makes Check, Downgrade or
// ValidateContent panic, that Check is deterministic and sorted, and that
// whatever Downgrade returns passes Check for its version.
func FuzzCheckJSON(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"type":"object"}`,
		form(`"a":{"type":"string","minLength":1,"maxLength":3,"format":"email","default":"a@b.co"}`),
		form(`"n":{"type":"integer","minimum":1.5,"maximum":1.7,"default":1}`),
		form(`"c":{"type":"string","oneOf":[{"const":"a","title":"A"},{"const":"a"}],"default":"a"}`),
		form(`"m":{"type":"array","minItems":3,"items":{"anyOf":[{"const":"x","title":"X"}]},"default":["x","x"]}`),
		form(`"e":{"type":"string","enum":["a",1,""],"enumNames":["A"]}`),
		`{"$schema":1,"type":["object"],"properties":{"x~/y":{"type":["string","null"],"$ref":"#"}},"required":["x~/y",2,"x~/y"]}`,
		form(`"d":{"type":"string","format":"date","default":"2025-02-30"}`),
	} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, vi uint8) {
		version := "bogus"
		if int(vi) < len(Versions) {
			version = Versions[vi]
		}
		first := CheckJSON(data, version)
		if again := CheckJSON(data, version); !reflect.DeepEqual(first, again) {
			t.Fatalf("not deterministic:\n%q\n%q", strs(first), strs(again))
		}
		for i := 1; i < len(first); i++ {
			if first[i-1].Path > first[i].Path {
				t.Fatalf("not sorted: %q", strs(first))
			}
		}
		for _, v := range first {
			if v.Message == "" || (v.Feature != "") != (v.Since != "") {
				t.Fatalf("malformed violation %+v", v)
			}
		}
		m, _, ok := decodeSchema(data)
		if !ok {
			return
		}
		if out, vs := Downgrade(m, version); out != nil {
			if len(vs) != 0 {
				t.Fatalf("Downgrade returned a schema and violations %q", strs(vs))
			}
			if vs := Check(out, version); len(vs) != 0 {
				t.Fatalf("Downgrade result fails Check on %s: %q", version, strs(vs))
			}
		}
		if out, dropped, vs := DowngradeDropping(m, version); out != nil {
			props, _ := out["properties"].(map[string]any)
			if len(vs) != 0 || (len(dropped) > 0 && len(props) == 0) {
				t.Fatalf("DowngradeDropping returned a schema with violations %q or nothing left (dropped %q)", strs(vs), dropped)
			}
			if vs := Check(out, version); len(vs) != 0 {
				t.Fatalf("DowngradeDropping result fails Check on %s: %q", version, strs(vs))
			}
		}
		// Use the schema's own default values as content: must not panic.
		content := map[string]any{}
		if props, ok := m["properties"].(map[string]any); ok {
			for k, p := range props {
				if p, ok := p.(map[string]any); ok {
					content[k] = p["default"]
				}
			}
		}
		_ = ValidateContent(m, content)
	})
}

// FuzzFormats cross-checks the format parsers against the standard library
// where both speak the same language.
func FuzzFormats(f *testing.F) {
	for _, s := range []string{"2025-01-31T09:30:00Z", "2016-12-31T23:59:60z", "2025-01-31T09:30:00.5+05:30",
		"https://example.com/a?b#c", "mailto:a@b.co", "http://[::1]:80/", "a@example.com", "2024-02-29"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckFormat("date-time", s) == nil {
			got, err := ParseDateTime(s)
			if err != nil {
				t.Fatalf("CheckFormat accepts %q but ParseDateTime fails: %v", s, err)
			}
			if want, err := time.Parse(time.RFC3339Nano, s); err == nil && !got.Equal(want) {
				t.Fatalf("%q: ParseDateTime %v, time.Parse %v", s, got, want)
			}
		} else if _, err := ParseDateTime(s); err == nil {
			t.Fatalf("ParseDateTime accepts %q but CheckFormat does not", s)
		}
		if (CheckFormat("date", s) == nil) != func() bool { _, err := time.Parse(time.DateOnly, s); return err == nil }() {
			// time.Parse accepts the same full-dates, calendar included.
			t.Fatalf("date %q: CheckFormat and time.Parse(DateOnly) disagree", s)
		}
		// net/url refuses some escapes RFC 3986 allows (%00 in a host), so it
		// is an oracle only for URIs without escapes.
		if CheckFormat("uri", s) == nil && !strings.Contains(s, "%") {
			if _, err := url.Parse(s); err != nil {
				t.Fatalf("CheckFormat accepts URI %q that net/url rejects: %v", s, err)
			}
		}
		if CheckFormat("email", s) == nil {
			if _, err := mail.ParseAddress(s); err != nil {
				t.Fatalf("CheckFormat accepts email %q that net/mail rejects: %v", s, err)
			}
		}
	})
}
