package roundtrip

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonSeeds are inputs the differential fuzz tests start from.
var jsonSeeds = []string{
	``, ` `, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e+3`, `-12.0E-2`, `01`, `1.`, `.5`, `-`, `1e`,
	`""`, `"a"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"<&>"`, "\"\u2028\u2029\"", "\"\xff\"", "\"a\x01\"",
	`{"b":2,"a":1}`, `{"a":1,"b":2}`, ` { "a" : [ 1 , 2 ] , "b" : { } } `, `{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`,
	`{"\u0061":1}`, `{"é":1,"e":2}`, "{\"\xff\":1}", `{"a":{"d":1,"c":[{"f":null,"e":true}]}}`, `[1,[2,[3]]]`,
	`{"a":1}x`, `{"a":1} {}`, `{"a":}`, `{"a" 1}`, `{,}`, `[1,]`, `{"a":1,}`, "\v{}", "{}\u00a0", `"unterminated`,
	`{"name":"ada","count":3}`, `{"x":"José","y":1e400,"z":-0.0}`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
}

// FuzzArgsDigest: the fast canonical form hashes as the reference does
// (decode into any, marshal again) for every input.
func FuzzArgsDigest(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := sha256.Sum256(canonicalSlow([]byte(s)))
		if got := argsDigest([]byte(s)); got != want {
			canon, ok := canonicalJSON(nil, []byte(s))
			t.Fatalf("digest of %q differs: fast %q (ok %v), reference %q", s, canon, ok, canonicalSlow([]byte(s)))
		}
	})
}

func TestCanonicalJSONFastPath(t *testing.T) {
	// The inputs clients send take the fast path (and agree with the
	// reference, which FuzzArgsDigest checks).
	for _, s := range []string{`{}`, ` {"b": 2, "a": [1, {"d": "x<y", "c": null}]} `, `{"x":"José","n":-1.5e3}`, `"\n"`, `[]`} {
		got, ok := canonicalJSON(nil, []byte(s))
		if !ok || !bytes.Equal(got, canonicalSlow([]byte(s))) {
			t.Errorf("canonicalJSON(%q) = %q, %v; want %q", s, got, ok, canonicalSlow([]byte(s)))
		}
	}
}

// FuzzScanValue: ScanValue accepts only valid JSON, and every valid JSON
// value that is not nested deeply.
func FuzzScanValue(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		i := SkipSpace(b, 0)
		end, ok := ScanValue(b, i)
		whole := ok && SkipSpace(b, end) == len(b)
		valid := json.Valid(b)
		if whole && !valid {
			t.Fatalf("ScanValue accepted invalid JSON %q", s)
		}
		if valid && !whole && strings.Count(s, "[")+strings.Count(s, "{") < maxScanDepth {
			t.Fatalf("ScanValue rejected valid JSON %q (end %d, ok %v)", s, end, ok)
		}
		if ok && i < len(b) && b[i] == '"' {
			_, plain, _ := ScanString(b, i)
			got, err := DecodeString(b[i:end], plain)
			var want string
			if werr := json.Unmarshal(b[i:end], &want); err != nil || werr != nil || got != want {
				t.Fatalf("DecodeString(%q, %v) = %q, %v; want %q, %v", b[i:end], plain, got, err, want, werr)
			}
		}
	})
}

// FuzzAppendString: AppendString writes what json.Marshal writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "<script>&", "\u2028\u2029", "\xff\xfe", "\x00\x1f\b\f\n\r\t", "José 😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		same := func(got []byte) bool {
			if utf8.ValidString(s) {
				return bytes.Equal(got, want)
			}
			// Invalid UTF-8 becomes U+FFFD, escaped ("\ufffd") by go1.26's
			// encoding/json and written raw by go1.27's: the same string.
			var g, w string
			return json.Unmarshal(got, &g) == nil && json.Unmarshal(want, &w) == nil && g == w
		}
		if got := AppendString(nil, s); !same(got) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got := AppendString([]byte("x"), []byte(s)); !same(got[1:]) {
			t.Fatalf("AppendString([]byte %q) = %s, want %s", s, got[1:], want)
		}
	})
}

func BenchmarkArgsDigest(b *testing.B) {
	for _, tc := range []struct{ name, args string }{
		{"empty", `{}`},
		{"compact", `{"city":"Seattle, WA","days":3,"units":"metric"}`},
		{"spaced-unsorted", `{"units": "metric", "days": 3, "city": "Seattle, WA"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			args := []byte(tc.args)
			b.ReportAllocs()
			for b.Loop() {
				argsDigest(args)
			}
		})
		b.Run(tc.name+"/reference", func(b *testing.B) {
			args := []byte(tc.args)
			b.ReportAllocs()
			for b.Loop() {
				sha256.Sum256(canonicalSlow(args))
			}
		})
	}
}

// BenchmarkScanString: a requestState-sized plain string (base64 text, as
// 2026-07-28 retries carry), and one with an escape and non-ASCII text.
func BenchmarkScanString(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"plain512", `"` + strings.Repeat("AbCd0123+/xyz-_", 34) + `"`},
		{"mixed", `"` + strings.Repeat(`héllo wörld \"quoted\" `, 16) + `"`},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := []byte(c.s)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if end, _, ok := ScanString(buf, 0); !ok || end != len(buf) {
					b.Fatal(end, ok)
				}
			}
		})
	}
}

// TestSkipPlain8EveryByte: a word passes skipPlain8 exactly when all its
// bytes are asciiPlain: every byte value at every place in a word, among
// plain bytes and among bytes that just pass the test's bounds (0x20,
// 0x7f), whose borrows could hide a neighbour.
func TestSkipPlain8EveryByte(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x7f, '#', '['} {
		for c := 0; c < 256; c++ {
			for p := 0; p < 8; p++ {
				w := bytes.Repeat([]byte{fill}, 9)
				w[p] = byte(c)
				want := 8
				if !asciiPlain[c] {
					want = 0
				}
				if got := skipPlain8(w, 0); got != want {
					t.Fatalf("skipPlain8 of %q = %d, want %d", w, got, want)
				}
			}
		}
	}
}
