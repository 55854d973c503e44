package roundtrip

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
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
	first, second, changed := []byte(`{"message":"first"}`), []byte(`{"message":"second"}`), []byte(`{"message":"changed"}`)
	// First run: two asks of one base get distinct keys; nothing is
	// answered, whatever the first request carried.
	r := NewRun()
	if _, ok := r.Ask("f", first); ok {
		t.Fatal("first ask answered")
	}
	if _, ok := r.Ask("f", second); ok {
		t.Fatal("second ask answered")
	}
	reqs := r.Requests()
	if len(reqs) != 2 || reqs[0].Key != "f" || string(reqs[0].Params) != string(first) || reqs[1].Key != "f_2" {
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
	if st.Round != 1 || strings.Join(st.Asked, ",") != "f,f_2" || len(st.Answers) != 0 ||
		!bytes.Equal(st.Questions["f"], QuestionDigest(first)) || !bytes.Equal(st.Questions["f_2"], QuestionDigest(second)) {
		t.Errorf("sealed state %+v", st)
	}

	// The retry re-serialises the arguments; the answers for "f" and "f_2"
	// arrive, an answer for a key never asked is ignored. This run asks
	// another question under f_2: the answer to the old one does not count.
	retry := call
	retry.Args = []byte(`{"a":1,"b":2}`)
	r2, err := c.Resume(state, retry, map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "f_2": []byte(`{"action":"decline"}`), "g": []byte(`{"action":"cancel"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Round() != 1 {
		t.Errorf("round %d, want 1", r2.Round())
	}
	if ans, ok := r2.Ask("f", first); !ok || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("retry f: %s, %v", ans, ok)
	}
	if ans, ok := r2.Ask("f", changed); ok {
		t.Errorf("f_2 asked another question, answered by the old one's answer %s", ans)
	}
	if _, ok := r2.Ask("g", []byte(`{}`)); ok {
		t.Error("g was not asked before, so it must be asked now")
	}
	if reqs := r2.Requests(); len(reqs) != 2 || reqs[0].Key != "f_2" || reqs[1].Key != "g" {
		t.Errorf("requests in order: %+v", reqs)
	}
	state2, err := c.SealRun(retry, r2)
	if err != nil {
		t.Fatal(err)
	}
	st2, err := c.Open(state2, call)
	if err != nil || st2.Round != 2 || len(st2.Answers) != 1 || strings.Join(st2.Asked, ",") != "f_2,g" || !bytes.Equal(st2.Questions["f_2"], QuestionDigest(changed)) {
		t.Fatalf("second state %+v, %v", st2, err)
	}

	// Third run: the sealed answer to f and this round's answer to the
	// question f_2 now stands for.
	r3, err := c.Resume(state2, call, map[string]json.RawMessage{"f_2": []byte(`{"action":"decline"}`), "g": []byte(`{"action":"cancel"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if ans, ok := r3.Ask("f", first); !ok || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("third run f (sealed): %s, %v", ans, ok)
	}
	if ans, ok := r3.Ask("f", changed); !ok || string(ans) != `{"action":"decline"}` {
		t.Errorf("third run f_2: %s, %v", ans, ok)
	}
}

func TestOpenRejects(t *testing.T) {
	c := newCodec(t, key(1))
	call := Call{Method: "tools/call", Name: "tool", Args: []byte(`{"a":1}`), Subject: "alice"}
	state, err := c.SealRun(call, NewRun())
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
	r := NewRun()
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
	state, _ := c.SealRun(Call{Name: "t"}, NewRun())
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
	r := NewRun()
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
	r := NewRun()
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

// TestQuestionDigestKnown: a question's digest is SHA-256's, whether it is
// hashed or found among the known questions, and the known questions stop
// growing at their bound.
func TestQuestionDigestKnown(t *testing.T) {
	for i := range 2 * maxKnownQuestions {
		params := []byte(fmt.Sprintf(`{"message":"question %d","requestedSchema":{}}`, i))
		sum := sha256.Sum256(params)
		for range 2 { // hashed, then (while there is room) known
			if got := QuestionDigest(params); !bytes.Equal(got, sum[:questionSize]) {
				t.Fatalf("QuestionDigest(%s) = %x, want %x", params, got, sum[:questionSize])
			}
		}
	}
	big := bytes.Repeat([]byte("x"), maxKnownQuestionBytes+1)
	sum := sha256.Sum256(big)
	if got := QuestionDigest(big); !bytes.Equal(got, sum[:questionSize]) {
		t.Fatalf("QuestionDigest of %d bytes = %x, want %x", len(big), got, sum[:questionSize])
	}
	m := knownQuestions.Load()
	if m == nil || len(*m) != maxKnownQuestions {
		t.Fatalf("known questions: %v, want %d", m, maxKnownQuestions)
	}
	if _, ok := (*m)[string(big)]; ok {
		t.Fatal("a question over maxKnownQuestionBytes is kept")
	}
}

// TestAskMethodSealed: the method of each key is sealed with its question,
// so an answer counts only for an ask of the same method, and elicitation
// (Ask) keeps the digest of its params alone.
func TestAskMethodSealed(t *testing.T) {
	c := newCodec(t, key(1))
	call := Call{Method: "tools/call", Name: "tool", Args: []byte(`{}`)}
	params := []byte(`{}`)
	r := NewRun()
	r.AskMethod("k", "roots/list", params)
	r.Ask("e", params)
	reqs := r.Requests()
	if len(reqs) != 2 || reqs[0].Method != "roots/list" || reqs[1].Method != "" {
		t.Fatalf("requests %+v", reqs)
	}
	if string(reqs[1].question[:]) != string(QuestionDigest(params)) || reqs[0].question == reqs[1].question {
		t.Fatal("the method is not in the question, or elicitation's changed")
	}
	sealed, err := c.SealRun(call, r)
	if err != nil {
		t.Fatal(err)
	}
	responses := map[string]json.RawMessage{"k": json.RawMessage(`{"roots":[]}`), "e": json.RawMessage(`{"action":"cancel"}`)}
	for _, tc := range []struct {
		key, method string
		answered    bool
	}{
		{"k", "roots/list", true},
		{"k", "", false},
		{"k", "sampling/createMessage", false},
		{"e", "", true},
		{"e", "roots/list", false},
	} {
		r, err := c.Resume(sealed, call, responses)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := r.AskMethod(tc.key, tc.method, params); ok != tc.answered {
			t.Errorf("%s asked as %q: answered %v, want %v", tc.key, tc.method, ok, tc.answered)
		}
	}
}
