package roundtrip

import (
	"encoding/json"
	"testing"
	"time"
)

// TestNonceNamesTheCall: a call's first state draws a nonce, every later
// state of the call carries the same one, and another call gets another.
func TestNonceNamesTheCall(t *testing.T) {
	c, err := NewCodec(nil, time.Minute, "test")
	if err != nil {
		t.Fatal(err)
	}
	call := Call{Method: "tools/call", Name: "t", Args: []byte(`{}`)}
	first := NewRun()
	if _, ok := first.Nonce(); ok {
		t.Fatal("a first run has a nonce")
	}
	q := json.RawMessage(`{"message":"Who?"}`)
	var nonces [2][NonceSize]byte
	for i := range nonces {
		r0 := NewRun()
		r0.Ask("", q) // each run asks: its state ends an input_required round
		tok, err := c.SealRun(call, r0)
		if err != nil {
			t.Fatal(err)
		}
		r1 := &Run{}
		if err := c.ResumeLookup(r1, []byte(tok), call, func([]byte) (json.RawMessage, bool) { return nil, false }); err != nil {
			t.Fatal(err)
		}
		n1, ok := r1.Nonce()
		if !ok || n1 == [NonceSize]byte{} {
			t.Fatalf("a retry has no nonce: %x %v", n1, ok)
		}
		r1.Ask("", q)
		tok2, err := c.SealRun(call, r1)
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Open(tok2, call)
		if err != nil {
			t.Fatal(err)
		}
		if string(st.Nonce) != string(n1[:]) || st.Round != 2 {
			t.Fatalf("the second state's nonce %x (round %d), want the first's %x", st.Nonce, st.Round, n1)
		}
		nonces[i] = n1
	}
	if nonces[0] == nonces[1] {
		t.Fatal("two calls got the same nonce")
	}
}
