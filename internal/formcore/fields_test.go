package formcore

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/subset"
)

// readOne decodes content, reading property "p" (index 0) with read and
// reporting other keys as unknown, the way a generated decoder does. It
// returns the value read (and whether it was stored) and Err.
func readOne[T any](content string, read func(d *Decoder) (T, bool)) (got T, stored bool, err error) {
	return readP(content, false, read)
}

// readP is readOne; required makes "p" a required property (Require is
// called after the loop, as generated code does).
func readP[T any](content string, required bool, read func(d *Decoder) (T, bool)) (got T, stored bool, err error) {
	var d Decoder
	d.Reset([]byte(content))
	for d.Next() {
		switch string(d.Key()) {
		case "p":
			if v, ok := read(&d); ok {
				got, stored = v, true
			}
		default:
			d.Unknown()
		}
	}
	if required {
		d.Require(0, "p")
	}
	return got, stored, d.Err()
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// fieldCase is one answer and what a field reader must make of it.
type fieldCase[T any] struct {
	content string
	want    T
	stored  bool
	err     string // "" for none; otherwise the whole ContentError text after the prefix
}

func runCases[T any](t *testing.T, name string, cases []fieldCase[T], read func(d *Decoder) (T, bool)) {
	t.Helper()
	runCasesP(t, name, false, cases, read)
}

// runRequired is runCases with "p" a required property.
func runRequired[T any](t *testing.T, name string, cases []fieldCase[T], read func(d *Decoder) (T, bool)) {
	t.Helper()
	runCasesP(t, name+" (required)", true, cases, read)
}

func runCasesP[T any](t *testing.T, name string, required bool, cases []fieldCase[T], read func(d *Decoder) (T, bool)) {
	t.Helper()
	for _, c := range cases {
		got, stored, err := readP(c.content, required, read)
		want := ""
		if c.err != "" {
			want = "elicit: invalid content: " + c.err
		}
		if !reflect.DeepEqual(got, c.want) || stored != c.stored || errText(err) != want {
			t.Errorf("%s(%s) = %#v, stored %v, err %q; want %#v, %v, %q", name, c.content, got, stored, errText(err), c.want, c.stored, want)
		}
	}
}

func TestStringField(t *testing.T) {
	plain := func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, -1, "", false) }
	runCases(t, "plain", []fieldCase[string]{
		{`{"p":"x"}`, "x", true, ""},
		{`{"p":""}`, "", false, ""}, // empty: not given
		{`{"p":null}`, "", false, ""},
		{`{"p":"a\u00e9"}`, "aé", true, ""},
		{`{}`, "", false, ""},
		{`{"p":1}`, "", false, `"p" must be a string`},
		{`{"p":"x","p":"y"}`, "x", true, `"p" appears more than once`},
		{`{"p":"x","q":1}`, "x", true, `"q" is not a property of the form`},
	}, plain)
	// Lengths count code points: "é" is one, "😀" (four bytes) one.
	bounded := func(d *Decoder) (string, bool) { return d.StringField(0, "p", 2, 3, "", false) }
	runCases(t, "bounded", []fieldCase[string]{
		{`{"p":"a"}`, "", false, `"p" must be at least 2 characters`},
		{`{"p":"ab"}`, "ab", true, ""},
		{`{"p":"abc"}`, "abc", true, ""},
		{`{"p":"abcd"}`, "", false, `"p" must be at most 3 characters`},
		{`{"p":"éé"}`, "éé", true, ""},
		{`{"p":"😀😀😀"}`, "😀😀😀", true, ""},
		{`{"p":"😀"}`, "", false, `"p" must be at least 2 characters`},
		{`{"p":"\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00"}`, "", false, `"p" must be at most 3 characters`},
	}, bounded)
	one := func(d *Decoder) (string, bool) { return d.StringField(0, "p", 1, -1, "", false) }
	runCases(t, "min 1", []fieldCase[string]{
		{`{"p":""}`, "", false, ""},
		{`{"p":"x"}`, "x", true, ""},
	}, one)
	maxOnly := func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, 1, "", false) }
	runCases(t, "max 1", []fieldCase[string]{
		{`{"p":""}`, "", false, ""},
		{`{"p":"xy"}`, "", false, `"p" must be at most 1 character`},
	}, maxOnly)
	// A required property that arrives empty is checked as given: "" by
	// its string checks, null as missing.
	runRequired(t, "plain", []fieldCase[string]{
		{`{"p":""}`, "", false, ""},
		{`{"p":null}`, "", false, `"p" is required`},
		{`{}`, "", false, `"p" is required`},
		{`{"p":"x"}`, "x", true, ""},
		{`{"p":"","p":"x"}`, "", false, `"p" appears more than once`},
	}, plain)
	runRequired(t, "min 1", []fieldCase[string]{
		{`{"p":""}`, "", false, `"p" must be at least 1 character`},
	}, one)
	// The format is checked before validate:"required", as on any value.
	runRequired(t, "email", []fieldCase[string]{
		{`{"p":""}`, "", false, `"p" ` + subset.CheckFormat("email", "").Error()},
		{`{"p":null}`, "", false, `"p" is required`},
	}, func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, -1, "email", true) })
	runCases(t, "empty email", []fieldCase[string]{
		{`{"p":""}`, "", false, ""},
		{`{"p":null}`, "", false, ""},
	}, func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, -1, "email", false) })
	// The length is checked before the format, and an empty required value
	// is stored but fails.
	email := func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, 10, "email", true) }
	runCases(t, "email", []fieldCase[string]{
		{`{"p":"a@example.org"}`, "", false, `"p" must be at most 10 characters`},
		{`{"p":"a@b.org"}`, "a@b.org", true, ""},
		{`{"p":"nope"}`, "", false, `"p" ` + subset.CheckFormat("email", "nope").Error()},
	}, email)
	required := func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, -1, "", true) }
	runRequired(t, "required", []fieldCase[string]{
		{`{"p":""}`, "", false, `"p" is required`},
		{`{"p":"x"}`, "x", true, ""},
	}, required)
	unknownFormat := func(d *Decoder) (string, bool) { return d.StringField(0, "p", -1, -1, "nosuch", false) }
	runCases(t, "unknown format", []fieldCase[string]{
		{`{"p":"x"}`, "", false, `"p" cannot be checked: ` + subset.CheckFormat("nosuch", "x").Error()},
	}, unknownFormat)
}

func TestBoolField(t *testing.T) {
	runCases(t, "bool", []fieldCase[bool]{
		{`{"p":true}`, true, true, ""},
		{`{"p":false}`, false, true, ""},
		{`{"p":"true"}`, false, false, `"p" must be a boolean`},
		{`{"p":null}`, false, false, ""},
		{`{"p":""}`, false, false, ""},
	}, func(d *Decoder) (bool, bool) { return d.BoolField(0, "p", false) })
	runRequired(t, "bool", []fieldCase[bool]{
		{`{"p":null}`, false, false, `"p" is required`},
		{`{"p":""}`, false, false, `"p" is required`},
		{`{"p":false}`, false, true, ""},
	}, func(d *Decoder) (bool, bool) { return d.BoolField(0, "p", false) })
	runCases(t, "required bool", []fieldCase[bool]{
		{`{"p":true}`, true, true, ""},
		{`{"p":false}`, false, true, `"p" is required`},
	}, func(d *Decoder) (bool, bool) { return d.BoolField(0, "p", true) })
}

func TestIntField(t *testing.T) {
	runCases(t, "int", []fieldCase[int64]{
		{`{"p":1}`, 1, true, ""},
		{`{"p":5}`, 5, true, ""},
		{`{"p":3.0}`, 3, true, ""},
		{`{"p":0}`, 0, false, `"p" must be at least 1`},
		{`{"p":6}`, 0, false, `"p" must be at most 5`},
		{`{"p":1.5}`, 0, false, `"p" must be an integer`},
		{`{"p":"1"}`, 0, false, `"p" must be an integer`},
	}, func(d *Decoder) (int64, bool) { return d.IntField(0, "p", 1, 5, false) })
	runCases(t, "required int", []fieldCase[int64]{
		{`{"p":0}`, 0, true, `"p" is required`},
		{`{"p":-1}`, -1, true, ""},
		{`{"p":-129}`, 0, false, `"p" must be at least -128`},
	}, func(d *Decoder) (int64, bool) { return d.IntField(0, "p", -128, 127, true) })
}

func TestUintField(t *testing.T) {
	runCases(t, "uint", []fieldCase[uint64]{
		{`{"p":1}`, 1, true, ""},
		{`{"p":65535}`, 65535, true, ""},
		{`{"p":0}`, 0, false, `"p" must be at least 1`},
		{`{"p":65536}`, 0, false, `"p" must be at most 65535`},
		{`{"p":-1}`, 0, false, `"p" must be at least 0`},
		{`{"p":2e0}`, 2, true, ""},
	}, func(d *Decoder) (uint64, bool) { return d.UintField(0, "p", 1, 65535, false) })
	runCases(t, "uint without minimum", []fieldCase[uint64]{
		{`{"p":0}`, 0, true, `"p" is required`},
		{`{"p":18446744073709551615}`, 18446744073709551615, true, ""},
	}, func(d *Decoder) (uint64, bool) { return d.UintField(0, "p", 0, 18446744073709551615, true) })
}

func TestFloatField(t *testing.T) {
	runCases(t, "float", []fieldCase[float64]{
		{`{"p":0}`, 0, true, ""},
		{`{"p":1.5}`, 1.5, true, ""},
		{`{"p":-0.1}`, 0, false, `"p" must be at least 0`},
		{`{"p":1.51}`, 0, false, `"p" must be at most 1.5`},
		{`{"p":"1"}`, 0, false, `"p" must be a number`},
	}, func(d *Decoder) (float64, bool) { return d.FloatField(0, "p", 64, 0, 1.5, false) })
	runCases(t, "float without bounds", []fieldCase[float64]{
		{`{"p":-1.7976931348623157e308}`, -1.7976931348623157e308, true, ""},
		{`{"p":1.7976931348623157e308}`, 1.7976931348623157e308, true, ""},
		{`{"p":1e400}`, 0, false, `"p" must be a number in the range of a float64`},
		{`{"p":0}`, 0, true, `"p" is required`},
	}, func(d *Decoder) (float64, bool) { return d.FloatField(0, "p", 64, NoMinimum, NoMaximum, true) })
	runCases(t, "float32", []fieldCase[float64]{
		{`{"p":1e39}`, 0, false, `"p" must be a number in the range of a float32`},
		{`{"p":1e21}`, 0, false, `"p" must be at most 100000000000000000000`},
		{`{"p":0.5}`, 0.5, true, ""},
	}, func(d *Decoder) (float64, bool) { return d.FloatField(0, "p", 32, 1e-7, 1e20, false) })
}

func TestTimeField(t *testing.T) {
	day := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	runCases(t, "date", []fieldCase[time.Time]{
		{`{"p":"2026-07-28"}`, day, true, ""},
		{`{"p":"2026-13-01"}`, time.Time{}, false, `"p" ` + subset.CheckFormat("date", "2026-13-01").Error()},
		{`{"p":1}`, time.Time{}, false, `"p" must be a string`},
	}, func(d *Decoder) (time.Time, bool) { return d.TimeField(0, "p", "date", false) })
	runCases(t, "date-time", []fieldCase[time.Time]{
		{`{"p":"2026-07-28T00:00:00Z"}`, day, true, ""},
		{`{"p":"0001-01-01T00:00:00Z"}`, time.Time{}, true, `"p" is required`},
	}, func(d *Decoder) (time.Time, bool) { return d.TimeField(0, "p", "date-time", true) })
}

func TestRequire(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{"a":1}`))
	for d.Next() {
		d.Field(0, "a")
	}
	d.Require(0, "a")
	d.Require(1, "b")
	d.Require(255, "last")
	if got, want := errText(d.Err()), `elicit: invalid content: "b" is required; "last" is required`; got != want {
		t.Errorf("Err() = %q, want %q", got, want)
	}
}

// TestFieldReadersMatchInlineChecks compares each reader with the code
// elicitgen generated before the readers existed (kept here as it was)
// on the same answers: same value stored, same problems.
func TestFieldReadersMatchInlineChecks(t *testing.T) {
	values := []string{`"x"`, `""`, `"éé"`, `"a@b.org"`, `"2026-07-28"`, `"2026-07-28T10:00:00Z"`, `"red"`, `"blue"`,
		`0`, `1`, `-1`, `2`, `1.5`, `3.0`, `1e3`, `70000`, `true`, `false`, `null`, `[]`, `["red"]`, `["red","blue"]`,
		`["red","green","red"]`, `[1]`, `{}`, `"x", "p": "y"`}
	type reader struct {
		name           string
		helper, inline func(d *Decoder) (any, bool)
	}
	var readers []reader
	for _, nz := range []bool{false, true} {
		for _, b := range [][2]int{{-1, -1}, {1, -1}, {-1, 1}, {1, 2}} {
			for _, format := range []string{"", "email"} {
				readers = append(readers, reader{fmt.Sprintf("string %v %v %q", nz, b, format),
					func(d *Decoder) (any, bool) { return d.StringField(0, "p", b[0], b[1], format, nz) },
					func(d *Decoder) (any, bool) {
						if d.Field(0, "p") {
							if v, ok := d.stringValue("p"); ok && d.checkLength("p", v, b[0], b[1]) && (format == "" || d.checkFormat("p", format, v)) {
								if nz && v == "" {
									d.Problem("p", "is required")
								}
								return v, true
							}
						}
						return nil, false
					}})
			}
		}
		readers = append(readers,
			reader{fmt.Sprintf("bool %v", nz),
				func(d *Decoder) (any, bool) { return d.BoolField(0, "p", nz) },
				func(d *Decoder) (any, bool) {
					if d.Field(0, "p") {
						if v, ok := d.boolValue("p"); ok {
							if nz && !v {
								d.Problem("p", "is required")
							}
							return v, true
						}
					}
					return nil, false
				}},
			reader{fmt.Sprintf("int %v", nz),
				func(d *Decoder) (any, bool) { return d.IntField(0, "p", -1, 100, nz) },
				func(d *Decoder) (any, bool) {
					if d.Field(0, "p") {
						if v, ok := d.intValue("p", -1, 100); ok {
							if nz && v == 0 {
								d.Problem("p", "is required")
							}
							return v, true
						}
					}
					return nil, false
				}},
			reader{fmt.Sprintf("uint %v", nz),
				func(d *Decoder) (any, bool) { return d.UintField(0, "p", 1, 65535, nz) },
				func(d *Decoder) (any, bool) {
					if d.Field(0, "p") {
						if v, ok := d.uintValue("p", 65535); ok {
							if v < 1 {
								d.Problem("p", "must be at least 1")
							} else {
								if nz && v == 0 {
									d.Problem("p", "is required")
								}
								return v, true
							}
						}
					}
					return nil, false
				}},
			reader{fmt.Sprintf("float %v", nz),
				func(d *Decoder) (any, bool) { return d.FloatField(0, "p", 64, 0, 1.5, nz) },
				func(d *Decoder) (any, bool) {
					if d.Field(0, "p") {
						if v, ok := d.floatValue("p", 64); ok {
							if v < 0.0 {
								d.Problem("p", "must be at least 0")
							} else if v > 1.5 {
								d.Problem("p", "must be at most 1.5")
							} else {
								if nz && v == 0 {
									d.Problem("p", "is required")
								}
								return v, true
							}
						}
					}
					return nil, false
				}},
			reader{fmt.Sprintf("time %v", nz),
				func(d *Decoder) (any, bool) { return d.TimeField(0, "p", "date", nz) },
				func(d *Decoder) (any, bool) {
					if d.Field(0, "p") {
						if v, ok := d.timeValue("p", "date"); ok {
							if nz && v.IsZero() {
								d.Problem("p", "is required")
							}
							return v, true
						}
					}
					return nil, false
				}},
		)
	}
	for _, r := range readers {
		for _, v := range values {
			content := `{"p":` + v + `}`
			got, gotStored, gotErr := readOne(content, r.helper)
			want, wantStored, wantErr := readOne(content, r.inline)
			if gotStored != wantStored || (gotStored && !reflect.DeepEqual(got, want)) || errText(gotErr) != errText(wantErr) {
				t.Errorf("%s on %s: helper %#v, %v, %q; inline %#v, %v, %q", r.name, content, got, gotStored, errText(gotErr), want, wantStored, errText(wantErr))
			}
		}
	}
}

// TestFieldReadersDoNotAllocate: reading valid values allocates nothing
// but a string's bytes, which the caller keeps. (Time parsing is the
// Decoder's own and not covered here.)
func TestFieldReadersDoNotAllocate(t *testing.T) {
	content := []byte(`{"b":7,"c":true,"d":0.5,"e":3,"g":"a@b.org"}`)
	allocs := testing.AllocsPerRun(100, func() {
		var d Decoder
		d.Reset(content)
		for d.Next() {
			switch string(d.Key()) {
			case "b":
				d.IntField(1, "b", 0, 10, true)
			case "c":
				d.BoolField(2, "c", true)
			case "d":
				d.FloatField(3, "d", 64, 0, 1, false)
			case "e":
				d.UintField(4, "e", 1, 10, false)
			case "g":
				d.StringField(6, "g", 1, 20, "email", true)
			}
		}
		d.Require(1, "b")
		d.Require(2, "c")
		d.Require(6, "g")
		if d.Err() != nil {
			panic(d.Err())
		}
	})
	if allocs != 1 {
		t.Errorf("%v allocations per decode, want 1 (the string)", allocs)
	}
}
