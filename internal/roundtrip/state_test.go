package roundtrip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A version 1 state (JSON plaintext) under the same key and label does not
// open: the version byte says what the plaintext is.
func TestOpenRejectsOtherVersions(t *testing.T) {
	c := newCodec(t, key(1))
	block, _ := aes.NewCipher(key(1))
	aead, _ := cipher.NewGCM(block)
	seal := func(plain []byte) string {
		nonce := make([]byte, aead.NonceSize())
		_, _ = rand.Read(nonce)
		return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, []byte(label)))
	}
	call := Call{Method: "tools/call", Name: "t", Args: []byte(`{}`)}
	for name, plain := range map[string][]byte{
		"v1 json":   []byte(`{"v":1,"m":"tools/call","n":"t","a":"` + base64.StdEncoding.EncodeToString(ArgsDigest([]byte(`{}`))) + `","e":9999999999,"r":1,"q":["k"]}`),
		"empty":     {},
		"truncated": {stateVersion, 10, 'x'},
		"trailing":  append(mustPlain(t, c, call), 0),
		"huge count": func() []byte {
			p := mustPlain(t, c, call)
			return append(p[:len(p)-2], 0xff, 0xff, 0xff, 0x0f, 0)
		}(),
	} {
		if _, err := c.Open(seal(plain), call); !errors.Is(err, ErrTampered) {
			t.Errorf("%s: %v, want ErrTampered", name, err)
		}
	}
	if _, err := c.Open(seal(mustPlain(t, c, call)), call); err != nil {
		t.Errorf("the well-formed plaintext does not open: %v", err)
	}
}

// mustPlain is the plaintext c seals for call, one key asked and no answers.
func mustPlain(t *testing.T, c *Codec, call Call) []byte {
	t.Helper()
	r := NewRun()
	r.Ask("k", []byte(`{}`))
	tok, err := c.SealRun(call, r)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	plain, err := c.aeads[0].Open(nil, raw[:12], raw[12:], c.aad)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func TestSealStateRoundTrip(t *testing.T) {
	c := newCodec(t, key(1))
	st := &State{Method: "tools/call", Name: "t", ArgsDigest: ArgsDigest([]byte(`{"a":1}`)), Subject: "bob", Round: 3,
		Asked: []string{"x", "y_2"}, Answers: map[string]json.RawMessage{"w": []byte(`{"action":"accept"}`), "v": nil}}
	tok, err := c.Seal(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Open(tok, Call{Method: "tools/call", Name: "t", Args: []byte(` { "a" : 1 } `), Subject: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Round != 3 || len(got.Asked) != 2 || got.Asked[1] != "y_2" || string(got.Answers["w"]) != `{"action":"accept"}` ||
		string(got.Answers["v"]) != "null" || !got.Expires.Equal(st.Expires) || got.Subject != "bob" {
		t.Errorf("opened %+v", got)
	}
	if _, err := c.Seal(&State{Answers: map[string]json.RawMessage{"k": []byte(`{"x"`)}}); err == nil {
		t.Error("an answer that is not JSON was sealed")
	}
}

func BenchmarkSealResume(b *testing.B) {
	c := newCodec(b, key(1))
	call := Call{Method: "tools/call", Name: "ask", Args: []byte(`{}`)}
	responses := map[string]json.RawMessage{"ask_form": []byte(`{"action":"accept","content":{"name":"ada","count":3}}`)}
	b.ReportAllocs()
	for b.Loop() {
		r := NewRun()
		r.Ask("ask_form", []byte(`{"message":"Name and count?"}`))
		tok, err := c.AppendSealRun(nil, call, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Resume(string(tok), call, responses); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStateSizeIsTheCallsBinding: a state is bound to its call by one
// digest, so its size does not depend on the tool's name, the subject or
// the arguments; a call's first state carries no nonce of its own (its
// AEAD nonce names the call), and the first state of the benchmark's
// call (one key asked) is 108 characters, where version 5 took 168.
func TestStateSizeIsTheCallsBinding(t *testing.T) {
	c := newCodec(t, key(1))
	ask := func(call Call) string {
		r := NewRun()
		r.Ask("ask_form", []byte(`{"message":"Name and count?"}`))
		tok, err := c.SealRun(call, r)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	short := ask(Call{Method: "tools/call", Name: "ask", Args: []byte(`{}`)})
	long := ask(Call{Method: "tools/call", Name: strings.Repeat("n", 500), Args: []byte(`{"a":"` + strings.Repeat("x", 5000) + `"}`), Subject: strings.Repeat("s", 500)})
	if len(short) != 108 || len(long) != len(short) {
		t.Errorf("first states of %d and %d characters, want 108 for both", len(short), len(long))
	}
	// A retry's state names the call with the first state's nonce.
	call := Call{Method: "tools/call", Name: "ask", Args: []byte(`{}`)}
	r := &Run{}
	if err := c.ResumeLookup(r, []byte(short), call, func([]byte) (json.RawMessage, bool) { return nil, false }); err != nil {
		t.Fatal(err)
	}
	r.Ask("ask_form", []byte(`{"message":"Name and count?"}`))
	next, err := c.SealRun(call, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := b64.EncodedLen(b64.DecodedLen(len(short)) + NonceSize); len(next) != want {
		t.Errorf("a retry's state has %d characters, want %d (the first's and the nonce)", len(next), want)
	}
}
