package roundtrip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
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
