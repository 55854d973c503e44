package formcore

import "testing"

// TestEmptyMeansNotGiven: an optional property sent as "" or null, as form
// UIs send a cleared field, is absent (Seen false, nothing stored, no
// problem); a required one is checked as given.
func TestEmptyMeansNotGiven(t *testing.T) {
	runCases(t, "int", []fieldCase[int64]{
		{`{"p":null}`, 0, false, ""},
		{`{"p":""}`, 0, false, ""},
		{`{"p":"1"}`, 0, false, `"p" must be an integer`},
	}, func(d *Decoder) (int64, bool) { return d.IntField(0, "p", 1, 10, false) })
	runRequired(t, "int", []fieldCase[int64]{
		{`{"p":null}`, 0, false, `"p" is required`},
		{`{"p":""}`, 0, false, `"p" is required`},
	}, func(d *Decoder) (int64, bool) { return d.IntField(0, "p", 1, 10, false) })
	runCases(t, "uint", []fieldCase[uint64]{
		{`{"p":null}`, 0, false, ""},
	}, func(d *Decoder) (uint64, bool) { return d.UintField(0, "p", 1, 10, false) })
	runCases(t, "float", []fieldCase[float64]{
		{`{"p":null}`, 0, false, ""},
		{`{"p":""}`, 0, false, ""},
	}, func(d *Decoder) (float64, bool) { return d.FloatField(0, "p", 64, 1, 2, false) })
	runRequired(t, "float", []fieldCase[float64]{
		{`{"p":null}`, 0, false, `"p" is required`},
	}, func(d *Decoder) (float64, bool) { return d.FloatField(0, "p", 64, 1, 2, false) })
	// An enum (Field, then the generated switch) has no empty member.
	enum := func(d *Decoder) (string, bool) {
		if !d.Field(0, "p") {
			return "", false
		}
		b, ok := d.StringBytes("p")
		if ok && string(b) != "a" {
			d.Problem("p", `must be one of "a"`)
			return "", false
		}
		return string(b), ok
	}
	runCases(t, "enum", []fieldCase[string]{
		{`{"p":""}`, "", false, ""},
		{`{"p":null}`, "", false, ""},
		{`{"p":"a"}`, "a", true, ""},
		{`{"p":"b"}`, "", false, `"p" must be one of "a"`},
	}, enum)
	runRequired(t, "enum", []fieldCase[string]{
		{`{"p":""}`, "", false, `"p" is required`},
	}, enum)
}

// TestEmptySeen: Seen is false for an optional empty property (its default
// applies, its validate tags do not run) and true once Require counts a
// required one as given.
func TestEmptySeen(t *testing.T) {
	var d Decoder
	d.Reset([]byte(`{"a":"","b":null,"c":"x","d":""}`))
	for d.Next() {
		switch string(d.Key()) {
		case "a":
			d.StringField(0, "a", -1, -1, "email", false)
		case "b":
			d.IntField(1, "b", 0, 9, false)
		case "c":
			d.StringField(2, "c", -1, -1, "", false)
		case "d":
			d.StringField(3, "d", -1, -1, "", false)
		}
	}
	d.Require(3, "d")
	if d.Seen(0) || d.Seen(1) || !d.Seen(2) || !d.Seen(3) {
		t.Errorf("Seen = %v %v %v %v, want false false true true", d.Seen(0), d.Seen(1), d.Seen(2), d.Seen(3))
	}
	if err := d.Err(); err != nil {
		t.Errorf("Err = %v, want nil", err)
	}
}
