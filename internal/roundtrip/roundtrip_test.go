package roundtrip

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

const label = "elicit/test/requestState/v1"

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func newCodec(t testing.TB, keys ...[]byte) *Codec {
	t.Helper()
	c, err := NewCodec(keys, time.Minute, label)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRunAcrossRounds(t *testing.T) {
	c := newCodec(t, key(1))
	call := Call{Method: "tools/call", Name: "tool", Args: []byte(`{"b": 2, "a": 1}`), Subject: "alice"}
	// First run: two asks of one base get distinct keys; an offered answer
	// for an asked key is taken, one for a key nobody asks is ignored.
	r := NewRun(map[string]json.RawMessage{"other": []byte(`{"action":"accept"}`), "f_2": []byte(`{"action":"decline"}`)})
	if _, ok := r.Ask("f", []byte(`{"message":"first"}`)); ok {
		t.Fatal("first ask answered")
	}
	if ans, ok := r.Ask("f", []byte(`{"message":"second"}`)); !ok || string(ans) != `{"action":"decline"}` {
		t.Fatalf("offered answer: %s, %v", ans, ok)
	}
	reqs := r.Requests()
	if len(reqs) != 1 || reqs[0].Key != "f" || string(reqs[0].Params) != `{"message":"first"}` {
		t.Fatalf("requests: %+v", reqs)
	}
	state, err := c.SealRun(call, r)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Open(state, call)
	if err != nil {
		t.Fatal(err)
	}
	if st.Round != 1 || len(st.Asked) != 1 || st.Asked[0] != "f" || len(st.Answers) != 1 || string(st.Answers["f_2"]) != `{"action":"decline"}` {
		t.Errorf("sealed state %+v", st)
	}
	if _, ok := st.Answers["other"]; ok {
		t.Error("an offered answer nobody asked for was sealed")
	}

	// The retry re-serialises the arguments; the answer for "f" arrives,
	// an answer for a key never asked is ignored.
	retry := call
	retry.Args = []byte(`{"a":1,"b":2}`)
	r2, err := c.Resume(state, retry, map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "g": []byte(`{"action":"cancel"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Round() != 1 {
		t.Errorf("round %d, want 1", r2.Round())
	}
	if ans, ok := r2.Ask("f", nil); !ok || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("retry f: %s, %v", ans, ok)
	}
	if ans, ok := r2.Ask("f", nil); !ok || string(ans) != `{"action":"decline"}` {
		t.Errorf("retry f_2 (sealed): %s, %v", ans, ok)
	}
	if _, ok := r2.Ask("g", []byte(`{}`)); ok {
		t.Error("g was not asked before, so it must be asked now")
	}
	if _, ok := r2.Ask("", []byte(`{}`)); ok {
		t.Error("the default key was answered")
	}
	if reqs := r2.Requests(); len(reqs) != 2 || reqs[0].Key != "g" || reqs[1].Key != DefaultKey {
		t.Errorf("requests in order: %+v", reqs)
	}
	state2, err := c.SealRun(retry, r2)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := c.Open(state2, call); err != nil || st.Round != 2 || len(st.Answers) != 2 || strings.Join(st.Asked, ",") != "g,elicit" {
		t.Errorf("second state %+v, %v", st, err)
	}
}

func TestOpenRejects(t *testing.T) {
	c := newCodec(t, key(1))
	call := Call{Method: "tools/call", Name: "tool", Args: []byte(`{"a":1}`), Subject: "alice"}
	state, err := c.SealRun(call, NewRun(nil))
	if err != nil {
		t.Fatal(err)
	}
	// Rotation: a codec whose second key is the old one still opens it.
	if _, err := newCodec(t, key(2), key(1)).Open(state, call); err != nil {
		t.Errorf("rotated key: %v", err)
	}
	otherLabel, err := NewCodec([][]byte{key(1)}, time.Minute, "elicit/other/v1")
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(*Call)) Call { c := call; f(&c); return c }
	for name, tc := range map[string]struct {
		c     *Codec
		state string
		call  Call
		want  error
	}{
		"other key":     {newCodec(t, key(3)), state, call, ErrTampered},
		"other label":   {otherLabel, state, call, ErrTampered},
		"altered":       {c, state[:len(state)-3] + "AAA", call, ErrTampered},
		"garbage":       {c, "!!", call, ErrTampered},
		"short":         {c, "AAAA", call, ErrTampered},
		"empty":         {c, "", call, ErrTampered},
		"other tool":    {c, state, with(func(c *Call) { c.Name = "tool2" }), ErrMismatch},
		"other args":    {c, state, with(func(c *Call) { c.Args = []byte(`{"a":2}`) }), ErrMismatch},
		"other method":  {c, state, with(func(c *Call) { c.Method = "prompts/get" }), ErrMismatch},
		"other subject": {c, state, with(func(c *Call) { c.Subject = "mallory" }), ErrMismatch},
		"no subject":    {c, state, with(func(c *Call) { c.Subject = "" }), ErrMismatch},
	} {
		if _, err := tc.c.Resume(tc.state, tc.call, nil); !errors.Is(err, tc.want) || !errors.Is(err, ErrInvalidState) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func TestStateExpires(t *testing.T) {
	c := newCodec(t, key(1))
	c.ttl = -2 * time.Second
	call := Call{Name: "tool"}
	r := NewRun(nil)
	r.Ask("f", nil)
	state, err := c.SealRun(call, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(state, call); !errors.Is(err, ErrExpired) || !errors.Is(err, ErrInvalidState) {
		t.Errorf("got %v, want expired", err)
	}
}

func TestSealSetsExpiry(t *testing.T) {
	c := newCodec(t, key(1))
	st := &State{Name: "tool"}
	before := time.Now()
	if _, err := c.Seal(st); err != nil {
		t.Fatal(err)
	}
	if d := st.Expires.Sub(before); d < time.Minute-time.Second || d > time.Minute+time.Second {
		t.Errorf("expires in %v, want about a minute", d)
	}
	if c.TTL() != time.Minute {
		t.Errorf("TTL %v", c.TTL())
	}
}

func TestNewCodec(t *testing.T) {
	if _, err := NewCodec([][]byte{key(1), []byte("short")}, time.Minute, label); err == nil || !strings.Contains(err.Error(), "RequestStateKeys[1] has 5 bytes") {
		t.Errorf("bad key: %v", err)
	}
	if _, err := NewCodec(nil, 0, label); err == nil {
		t.Error("a zero lifetime was accepted")
	}
	c, err := NewCodec(nil, time.Minute, label)
	if err != nil || len(c.aeads) != 1 {
		t.Fatalf("random key: %v", err)
	}
	// Two processes with random keys do not open each other's states.
	state, _ := c.SealRun(Call{Name: "t"}, NewRun(nil))
	d, _ := NewCodec(nil, time.Minute, label)
	if _, err := d.Open(state, Call{Name: "t"}); !errors.Is(err, ErrTampered) {
		t.Errorf("another random key opened it: %v", err)
	}
}

func TestArgsDigest(t *testing.T) {
	same := [][]string{
		{`{"a":1,"b":[true,null]}`, `{ "b" : [ true, null ], "a" : 1 }`, "{\n\"a\":1,\"b\":[true,null]}\n"},
		{``, `null`, `  `},
		{`1.50`, ` 1.50 `},
		{`"x"`, `"\u0078"`},
	}
	for _, group := range same {
		for _, s := range group[1:] {
			if !bytes.Equal(ArgsDigest([]byte(group[0])), ArgsDigest([]byte(s))) {
				t.Errorf("ArgsDigest(%q) != ArgsDigest(%q)", group[0], s)
			}
		}
	}
	differ := []string{`{"a":1}`, `{"a":1.0}`, `{"a":"1"}`, `{}`, `null`, `{`}
	seen := map[string]string{}
	for _, s := range differ {
		d := string(ArgsDigest([]byte(s)))
		if prev, ok := seen[d]; ok {
			t.Errorf("ArgsDigest(%q) == ArgsDigest(%q)", s, prev)
		}
		seen[d] = s
	}
	if len(ArgsDigest(nil)) != 32 {
		t.Error("not a SHA-256")
	}
}

func TestRunConcurrentAsks(t *testing.T) {
	r := NewRun(nil)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Ask("k", nil)
		}()
	}
	wg.Wait()
	keys := map[string]bool{}
	for _, req := range r.Requests() {
		keys[req.Key] = true
	}
	if len(keys) != 50 || !keys["k"] || !keys["k_50"] {
		t.Errorf("%d distinct keys", len(keys))
	}
}

// FuzzOpen: whatever a client sends as requestState, opening it never
// panics and never succeeds unless this codec sealed it for this request.
func FuzzOpen(f *testing.F) {
	codec, err := NewCodec(nil, time.Hour, label)
	if err != nil {
		f.Fatal(err)
	}
	r := NewRun(nil)
	r.Ask("", []byte(`{}`))
	good, err := codec.SealRun(Call{Method: "tools/call", Name: "ask", Args: []byte(`{}`)}, r)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "tools/call", "ask", "{}", "")
	f.Add(good, "tools/call", "ask", `{"x":1}`, "")
	f.Add(good, "tools/call", "ask", "{}", "alice")
	f.Add(good[:len(good)-1], "tools/call", "ask", "{}", "")
	f.Add("", "tools/call", "ask", "{}", "")
	f.Add("!!!!", "", "", "", "")
	f.Fuzz(func(t *testing.T, state, method, name, args, subject string) {
		call := Call{Method: method, Name: name, Args: []byte(args), Subject: subject}
		st, err := codec.Open(state, call)
		if err != nil {
			if !errors.Is(err, ErrInvalidState) {
				t.Fatalf("error %v does not match ErrInvalidState", err)
			}
			return
		}
		if state != good || st.Method != method || st.Name != name || st.Subject != subject || !bytes.Equal(st.ArgsDigest, ArgsDigest([]byte(args))) {
			t.Fatalf("opened a state it did not seal for this request: %q %+v", state, call)
		}
	})
}
