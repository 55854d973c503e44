package roundtrip

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// TestPlainStateRoundTrip: the unsealed state of a task (AppendPlainRun)
// resumes with ResumePlain as a sealed one does: the answers so far, the
// round (counting only runs that asked), the nonce and the telemetry, bound to the call and to each
// question; a state of another call, of another layout version or past
// its expiry does not resume.
func TestPlainStateRoundTrip(t *testing.T) {
	call := Call{Method: "tools/call", Name: "deploy", Args: []byte(`{"to":"prod"}`), Subject: "alice"}
	q := json.RawMessage(`{"message":"Who approves?"}`)
	first := NewRun()
	if _, ok := first.Ask("", q); ok {
		t.Fatal("a first run has an answer")
	}
	first.SetTelemetry([]byte("tel"))
	plain, err := AppendPlainRun(nil, call, first, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	answer := json.RawMessage(`{"action":"accept","content":{"name":"ada"}}`)
	responses := func(key []byte) (json.RawMessage, bool) {
		if string(key) == DefaultKey {
			return answer, true
		}
		return nil, false
	}
	var next Run
	if err := ResumePlain(&next, plain, call, responses); err != nil {
		t.Fatal(err)
	}
	nonce, ok := next.Nonce()
	if got, ok2 := next.Ask("", q); !ok2 || string(got) != string(answer) || !ok || nonce == ([NonceSize]byte{}) || next.Round() != 1 || string(next.Telemetry()) != "tel" {
		t.Fatalf("resumed run: answer %s %v, nonce %v %v, round %d, telemetry %q", got, ok2, nonce, ok, next.Round(), next.Telemetry())
	}
	// The next state keeps the task's nonce.
	again, err := AppendPlainRun(nil, call, &next, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var third Run
	if err := ResumePlain(&third, again, call, responses); err != nil {
		t.Fatal(err)
	}
	if n, _ := third.Nonce(); n != nonce {
		t.Fatal("a task's later state has another nonce")
	}
	if third.Round() != 1 {
		t.Fatalf("the state of a run that asked nothing moved the round to %d, want 1 (Round counts input_required results)", third.Round())
	}

	other := call
	other.Subject = "bob"
	if err := ResumePlain(&Run{}, plain, other, responses); !errors.Is(err, ErrMismatch) {
		t.Errorf("another subject's call: %v, want ErrMismatch", err)
	}
	bumped := append([]byte{stateVersion + 1}, plain[1:]...)
	if err := ResumePlain(&Run{}, bumped, call, responses); !errors.Is(err, ErrTampered) {
		t.Errorf("another layout version: %v, want ErrTampered", err)
	}
	expired, err := AppendPlainRun(nil, call, NewRun(), time.Now().Add(-2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := ResumePlain(&Run{}, expired, call, responses); !errors.Is(err, ErrExpired) {
		t.Errorf("an expired state: %v, want ErrExpired", err)
	}
	if err := ResumePlain(&Run{}, plain[:len(plain)/2], call, responses); !errors.Is(err, ErrTampered) {
		t.Errorf("a cut state: %v, want ErrTampered", err)
	}
}
