package formcore

import (
	"errors"
	"strings"
	"testing"
)

// decodeAll drives a Decoder over content the way generated code does,
// reading "s" as a string, "n" as an integer, "b" as a bool, "f" as a
// float, "l" as a string list, and reporting other keys as unknown.
func decodeAll(content string) (map[string]any, error) {
	var d Decoder
	return decodeWith(&d, content)
}

// decodeWith is decodeAll with d.
func decodeWith(d *Decoder, content string) (map[string]any, error) {
	got := map[string]any{}
	d.Reset([]byte(content))
	for d.Next() {
		switch string(d.Key()) {
		case "s":
			if d.Field(0, "s") {
				if v, ok := d.stringValue("s"); ok {
					got["s"] = v
				}
			}
		case "n":
			if d.Field(1, "n") {
				if v, ok := d.intValue("n", -100, 100); ok {
					got["n"] = v
				}
			}
		case "b":
			if d.Field(2, "b") {
				if v, ok := d.boolValue("b"); ok {
					got["b"] = v
				}
			}
		case "f":
			if d.Field(3, "f") {
				if v, ok := d.floatValue("f", 64); ok {
					got["f"] = v
				}
			}
		case "l":
			if d.Field(4, "l") {
				var items []string
				for more := d.Item("l", true); more; more = d.Item("l", false) {
					if b, ok := d.ItemBytes("l"); ok {
						items = append(items, string(b))
					}
				}
				got["l"] = items
			}
		case "skip":
			if d.Field(5, "skip") {
				d.skipCurrent()
			}
		default:
			d.Unknown()
		}
	}
	return got, d.Err()
}

func TestDecoder(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // decoded values, or the error
	}{
		{`{}`, `map[]`},
		{` { "s" : "x" , "n" : 5 } `, `map[n:5 s:x]`},
		{`{"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"}`, "map[s:a\"b\\c/d\b\f\n\r\té😀]"},
		{`{"s":"\ud83d"}`, "map[s:\ufffd]"},
		{`{"s":"\ud83d\u0041"}`, "map[s:\ufffdA]"},
		{`{"\u0073":"key escaped"}`, `map[s:key escaped]`},
		{`{"n":-100,"f":-1.5e-3,"b":false}`, `map[b:false f:-0.0015 n:-100]`},
		{`{"n":1e2}`, `map[n:100]`},
		{`{"n":100.0}`, `map[n:100]`},
		{`{"l":["a","b"],"s":"x"}`, `map[l:[a b] s:x]`},
		{`{"l":[]}`, `map[l:[]]`},
		{`{"skip":{"a":[1,2,{"b":null}],"c":"\u0041"}}`, `map[]`},
		{`{"n":101}`, `"n" must be at most 100`},
		{`{"n":-101}`, `"n" must be at least -100`},
		{`{"n":1.5}`, `"n" must be an integer`},
		{`{"n":1e300}`, `"n" must be at most 100`},
		{`{"n":"1"}`, `"n" must be an integer`},
		{`{"f":true}`, `"f" must be a number`},
		{`{"f":1e400}`, `"f" must be a number in the range of a float64`},
		{`{"s":1,"b":"true"}`, `"b" must be a boolean; "s" must be a string`},
		{`{"s":null}`, `map[]`}, // empty: not given (see empty.go)
		{`{"l":"a"}`, `"l" must be an array of strings`},
		{`{"l":["a",1,{"x":1}]}`, `"l" must contain only strings`},
		{`{"l":["a","b","a"]}`, `"l" item 2 repeats "a"`},
		{`{"l":["a",1,"\u0061"]}`, `"l" must contain only strings; "l" item 2 repeats "a"`},
		{`{"l":["\u00e9","é"]}`, `"l" item 1 repeats "é"`},
		{`{"l":["i0","i1","i2","i3","i4","i5","i6","i7","i8","i9","i10","i11","i12","i13","i14","i15","i16","i17","i18","i19","i17"]}`, `"l" item 20 repeats "i17"`},
		{`{"l":["i0","i1","i2","i3","i4","i5","i6","i7","i8","i9","i10","i11","i12","i13","i14","i15","i16","i17","i18","i19"]}`, `map[l:[i0 i1 i2 i3 i4 i5 i6 i7 i8 i9 i10 i11 i12 i13 i14 i15 i16 i17 i18 i19]]`},
		{`{"s":"a","s":"b"}`, `"s" appears more than once`},
		{`{"zz":1,"aa":{"x":[1]}}`, `"aa" is not a property of the form; "zz" is not a property of the form`},
		{``, `malformed JSON: content is empty at end of input`},
		{`   `, `malformed JSON: content is empty at end of input`},
		{`null`, `content must be a JSON object`},
		{`[]`, `content must be a JSON object`},
		{`"s"`, `content must be a JSON object`},
		{`{"s":"x"} {}`, `malformed JSON: unexpected data after the object at offset 10`},
		{`{"s":"x",}`, `malformed JSON: expected a string key at offset 9`},
		{`{"s" "x"}`, `malformed JSON: expected ':' after object key at offset 5`},
		{`{"s":"x"`, `malformed JSON: expected ',' or '}' after object value at end of input`},
		{`{"s":"x`, `malformed JSON: unterminated string at end of input`},
		{"{\"s\":\"a\nb\"}", `malformed JSON: control character in string at offset 7`},
		{"{\"s\":\"\xff\"}", `malformed JSON: invalid UTF-8 in string at offset 6`},
		{`{"s":"\q"}`, `malformed JSON: invalid escape in string at offset 7`},
		{`{"s":"\u12"}`, `malformed JSON: invalid \u escape at offset 8`},
		{`{"n":01}`, `malformed JSON: expected ',' or '}' after object value at offset 6`},
		{`{"n":-}`, `malformed JSON: invalid number at offset 6`},
		{`{"n":1.}`, `malformed JSON: invalid number at offset 7`},
		{`{"n":1e}`, `malformed JSON: invalid number at offset 7`},
		{`{"b":tru}`, `malformed JSON: invalid literal at offset 5`},
		{`{"x":nul}`, `malformed JSON: invalid literal at offset 5`},
		{`{"x":[1,]}`, `malformed JSON: unexpected character ']' at offset 8`},
		{`{"x":[1 2]}`, `malformed JSON: expected ',' or ']' at offset 8`},
		{`{"x":{"a" 1}}`, `malformed JSON: expected ':' after object key at offset 10`},
		{`{"l":["a" "b"]}`, `malformed JSON: expected ',' or ']' after array element at offset 10`},
		{`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, `malformed JSON: nesting too deep at offset 70`},
		{`{"s":1,"n":` /* a syntax error drops the problems before it */, `malformed JSON: unexpected end of input at end of input`},
	} {
		got, err := decodeAll(tc.in)
		var s string
		if err != nil {
			var ce *ContentError
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidContent) {
				t.Errorf("%q: error %v is not a *ContentError", tc.in, err)
			}
			s = strings.TrimPrefix(err.Error(), "elicit: invalid content: ")
		} else {
			s = fmtMap(got)
		}
		if s != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, s, tc.want)
		}
	}
}

func fmtMap(m map[string]any) string {
	var b strings.Builder
	b.WriteString("map[")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + ":")
		switch v := m[k].(type) {
		case []string:
			b.WriteString("[" + strings.Join(v, " ") + "]")
		default:
			b.WriteString(strings.TrimSpace(strings.ReplaceAll(fmtAny(v), "\x00", "")))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return itoa(int(v))
	case bool:
		if v {
			return "true"
		}
		return "false"
	case float64:
		return strconvFloat(v)
	}
	return "?"
}

func TestUint(t *testing.T) {
	for in, want := range map[string]string{
		`{"u":18446744073709551615}`: "18446744073709551615",
		`{"u":18446744073709551616}`: `"u" must be at most 18446744073709551615`,
		`{"u":-1}`:                   `"u" must be at least 0`,
		`{"u":2.0}`:                  "2",
		`{"u":2.5}`:                  `"u" must be an integer`,
		`{"u":300}`:                  "300",
	} {
		var d Decoder
		d.Reset([]byte(in))
		var got string
		for d.Next() {
			if v, ok := d.uintValue("u", 1<<64-1); ok {
				got = uitoa(v)
			}
		}
		if err := d.Err(); err != nil {
			got = strings.TrimPrefix(err.Error(), "elicit: invalid content: ")
		}
		if got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestChecks(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{}`))
	d.checkLength("a", "héllo", 6, -1)
	d.checkLength("b", "héllo", -1, 4)
	d.checkLength("c", "héllo", 5, 5)
	d.CheckItems("d", 0, 1, -1)
	d.CheckItems("e", 3, -1, 2)
	d.checkFormat("f", "email", "nope")
	d.checkFormat("g", "color", "red")
	for d.Next() {
	}
	want := `elicit: invalid content: "a" must be at least 6 characters; "b" must be at most 4 characters; "d" must have at least 1 item; "e" must have at most 2 items; "f" must be an email address; "g" cannot be checked: unknown format "color": must be one of "email", "uri", "date", "date-time"`
	if err := d.Err(); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

func TestTime(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{"a":"2025-01-31T09:30:00+01:00","b":"2025-01-31","c":"2025-01-31","d":"2025-02-30"}`))
	var got []string
	for d.Next() {
		switch string(d.Key()) {
		case "a", "c":
			if v, ok := d.timeValue(string(d.Key()), "date-time"); ok {
				got = append(got, v.UTC().String())
			}
		default:
			if v, ok := d.timeValue(string(d.Key()), "date"); ok {
				got = append(got, v.String())
			}
		}
	}
	if len(got) != 2 || got[0] != "2025-01-31 08:30:00 +0000 UTC" || got[1] != "2025-01-31 00:00:00 +0000 UTC" {
		t.Errorf("got %q", got)
	}
	want := `elicit: invalid content: "c" must be a date-time (RFC 3339, such as 2025-01-31T09:30:00Z); "d" must be a date (YYYY-MM-DD)`
	if err := d.Err(); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestDecoderAllocations pins the cost of a good answer: nothing beyond the
// strings the caller keeps.
func TestDecoderAllocations(t *testing.T) {
	content := []byte(`{"s":"hello","n":5,"b":true,"f":1.5,"skip":{"x":[1,2]}}`)
	allocs := testing.AllocsPerRun(100, func() {
		var d Decoder
		d.Reset(content)
		for d.Next() {
			switch string(d.Key()) {
			case "s":
				if d.Field(0, "s") {
					d.StringBytes("s")
				}
			case "n":
				if d.Field(1, "n") {
					d.intValue("n", 0, 10)
				}
			case "b":
				if d.Field(2, "b") {
					d.boolValue("b")
				}
			case "f":
				if d.Field(3, "f") {
					d.floatValue("f", 64)
				}
			default:
				d.skipCurrent()
			}
		}
		if d.Err() != nil {
			t.Fatal(d.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per decode, want 0", allocs)
	}
}

func TestFieldBeyond64(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{}`))
	for _, i := range []int{0, 63, 64, 200, MaxFields - 1} {
		if d.Seen(i) || !d.Field(i, "p") || !d.Seen(i) {
			t.Errorf("field %d not tracked", i)
		}
	}
	if d.Seen(1) || d.Seen(65) {
		t.Error("untouched fields seen")
	}
}

// TestRepeatedItemsCheckDoesNotAllocate: refusing a repeated option costs
// a selection nothing beyond the strings the caller keeps.
func TestRepeatedItemsCheckDoesNotAllocate(t *testing.T) {
	content := []byte(`{"l":["ipv4-unicast","ipv6-unicast","l2vpn-evpn"]}`)
	allocs := testing.AllocsPerRun(100, func() {
		var d Decoder
		d.Reset(content)
		for d.Next() {
			if d.Field(0, "l") {
				for more := d.Item("l", true); more; more = d.Item("l", false) {
					d.ItemBytes("l")
				}
			}
		}
		if !d.ok() {
			t.Fatal(d.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}
