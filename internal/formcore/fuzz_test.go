package formcore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecoderSyntax checks the decoder's JSON grammar against
// encoding/json: for valid UTF-8 without deep nesting, it calls content
// malformed exactly when json.Valid does, and it never panics.
func FuzzDecoderSyntax(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"s":"x","n":1,"b":true,"f":1.5e3,"l":["a"]}`, `{"skip":{"a":[1,null,{"b":"\u00e9"}]}}`,
		`{"s":"\ud83d\ude00"}`, `{"n":-0.0e+1}`, `{"x":[1,]}`, `{"s":"x"} x`, `{"n":01}`, `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := decodeAll(string(data))
		if !utf8.Valid(data) || bytes.Count(data, []byte("[")) > 32 || bytes.Count(data, []byte("{")) > 32 {
			return
		}
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return
		}
		malformed := err != nil && strings.Contains(err.Error(), "malformed JSON")
		if valid := json.Valid(data); valid == malformed {
			t.Errorf("%q: json.Valid %v, decoder error %v", data, valid, err)
		}
	})
}
