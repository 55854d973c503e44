package gosdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

func TestOutcome(t *testing.T) {
	cases := []struct {
		raw     string
		content string
		err     error
	}{
		{`{"action":"accept","content":{"a":1}}`, `{"a":1}`, nil},
		{`{"action":"accept"}`, ``, nil},
		{`{"action":"accept","content":null}`, `null`, nil},
		{`{"action":"accept","content":[1]}`, ``, runtime.ErrElicitMalformed},
		{`{"action":"decline"}`, ``, runtime.ErrElicitDeclined},
		{`{"action":"cancel","content":{"a":1}}`, ``, runtime.ErrElicitCanceled},
		{`{"action":"maybe"}`, ``, runtime.ErrElicitMalformed},
		{`{}`, ``, runtime.ErrElicitMalformed},
		{`[]`, ``, runtime.ErrElicitMalformed},
	}
	for _, tc := range cases {
		content, err := outcome([]byte(tc.raw))
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || string(content) != tc.content {
			t.Errorf("outcome(%s) = %s, %v; want %s, %v", tc.raw, content, err, tc.content, tc.err)
		}
	}
}

func TestCheckForm(t *testing.T) {
	cases := []struct {
		version               string
		declared, form, url   bool
		ok, missingCapability bool
	}{
		{"2025-06-18", true, false, false, true, false},
		{"2025-11-25", true, false, false, true, false}, // {} means form
		{"2025-11-25", true, true, true, true, false},
		{"2025-11-25", true, false, true, false, true}, // url only
		{"2026-07-28", false, false, false, false, true},
		{"2025-03-26", true, true, false, false, false}, // no elicitation in the version
		{"", true, true, false, false, false},
	}
	for _, tc := range cases {
		err := checkForm(tc.version, tc.declared, tc.form, tc.url)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, runtime.ErrElicitUnsupported)) ||
			errors.Is(err, errMissingForm) != tc.missingCapability {
			t.Errorf("checkForm(%q, %v, %v, %v) = %v", tc.version, tc.declared, tc.form, tc.url, err)
		}
	}
}

func TestFormSchema(t *testing.T) {
	d := &formimpl.Descriptor{Name: "F", Key: "f", Variants: []formimpl.Variant{
		{Version: "2025-06-18", Unsupported: "multi-select needs protocol 2025-11-25"},
		{Version: "2025-11-25", Schema: []byte(`{"type":"object"}`)},
	}}
	if s, err := formSchema(d, "2025-11-25"); err != nil || string(s) != `{"type":"object"}` {
		t.Errorf("2025-11-25: %s, %v", s, err)
	}
	if _, err := formSchema(d, "2025-06-18"); !errors.Is(err, runtime.ErrElicitUnsupported) || !strings.Contains(err.Error(), "multi-select") {
		t.Errorf("2025-06-18: %v", err)
	}
	if _, err := formSchema(d, "2026-07-28"); !errors.Is(err, runtime.ErrElicitUnsupported) {
		t.Errorf("2026-07-28: %v", err)
	}
}

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestStateRoundTrip(t *testing.T) {
	c, err := newStateCodec([][]byte{key(1)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"b": 2, "a": 1}`)
	// First run: two asks of one form get distinct keys; an offered answer
	// for an asked key is taken.
	rt, err := c.openRound("tool", args, "", map[string]json.RawMessage{"other": []byte(`{"action":"accept"}`), "f_2": []byte(`{"action":"decline"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.ask("f", "first", []byte(`{}`)); !errors.Is(err, runtime.ErrInputRequired) {
		t.Fatalf("first ask: %v", err)
	}
	if ans, err := rt.ask("f", "second", []byte(`{}`)); err != nil || string(ans) != `{"action":"decline"}` {
		t.Fatalf("offered answer: %s, %v", ans, err)
	}
	asked := rt.pending()
	if len(asked) != 1 || asked[0].key != "f" || asked[0].message != "first" {
		t.Fatalf("pending: %+v", asked)
	}
	state, err := c.sealRound("tool", args, rt)
	if err != nil {
		t.Fatal(err)
	}
	// The retry re-serialises the arguments; the answer for "f" arrives,
	// an answer for a key never asked is ignored.
	rt2, err := c.openRound("tool", []byte(`{"a":1,"b":2}`), state, map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "g": []byte(`{"action":"cancel"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if rt2.round != 1 {
		t.Errorf("round %d, want 1", rt2.round)
	}
	if ans, err := rt2.ask("f", "first", nil); err != nil || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("retry f: %s, %v", ans, err)
	}
	if ans, err := rt2.ask("f", "second", nil); err != nil || string(ans) != `{"action":"decline"}` {
		t.Errorf("retry f_2 (sealed): %s, %v", ans, err)
	}
	if _, err := rt2.ask("g", "third", nil); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("g was not asked before, so it must be asked now: %v", err)
	}

	// Rotation: a codec whose second key is the old one still opens it.
	rotated, err := newStateCodec([][]byte{key(2), key(1)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.open(state, "tool", args); err != nil {
		t.Errorf("rotated key: %v", err)
	}
	other, _ := newStateCodec([][]byte{key(3)}, time.Minute)
	for name, tc := range map[string]struct {
		c     *stateCodec
		state string
		name  string
		args  string
		want  error
	}{
		"other key":  {other, state, "tool", string(args), errStateTampered},
		"altered":    {c, state[:len(state)-3] + "AAA", "tool", string(args), errStateTampered},
		"garbage":    {c, "!!", "tool", string(args), errStateTampered},
		"short":      {c, "AAAA", "tool", string(args), errStateTampered},
		"other tool": {c, state, "tool2", string(args), errStateMismatch},
		"other args": {c, state, "tool", `{"a":2,"b":2}`, errStateMismatch},
	} {
		if _, err := tc.c.openRound(tc.name, []byte(tc.args), tc.state, nil); !errors.Is(err, tc.want) || !errors.Is(err, errBadRequestState) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func TestStateExpires(t *testing.T) {
	c, _ := newStateCodec([][]byte{key(1)}, time.Minute)
	c.ttl = -2 * time.Second
	rt, _ := c.openRound("tool", nil, "", nil)
	_, _ = rt.ask("f", "m", nil)
	state, err := c.sealRound("tool", nil, rt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.open(state, "tool", nil); !errors.Is(err, errStateExpired) {
		t.Errorf("got %v, want expired", err)
	}
}

func TestStateCodecKeys(t *testing.T) {
	if _, err := newStateCodec([][]byte{key(1), []byte("short")}, 0); err == nil || !strings.Contains(err.Error(), "RequestStateKeys[1] has 5 bytes") {
		t.Errorf("bad key: %v", err)
	}
	c, err := newStateCodec(nil, 0)
	if err != nil || len(c.aeads) != 1 || c.ttl != DefaultRequestStateTTL {
		t.Errorf("default codec: %v", err)
	}
}
