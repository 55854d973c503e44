package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func TestNewCodec(t *testing.T) {
	if _, err := NewCodec([][]byte{key(1), []byte("short")}, 0); err == nil || !strings.Contains(err.Error(), "RequestStateKeys[1] has 5 bytes") {
		t.Errorf("bad key: %v", err)
	}
	c, err := NewCodec(nil, 0)
	if err != nil || c.TTL() != runtime.DefaultRequestStateTTL {
		t.Errorf("default codec: %v", err)
	}
	// The adapters' label is not the runtime's: a runtime state under the
	// same key does not open here.
	rc, _ := roundtrip.NewCodec([][]byte{key(1)}, time.Minute, "elicit/requestState/v1")
	state, _ := rc.SealRun(roundtrip.Call{Method: toolsCall, Name: "tool"}, roundtrip.NewRun())
	ac, _ := NewCodec([][]byte{key(1)}, time.Minute)
	if _, err := Begin(ac, "tool", nil, state, nil); !errors.Is(err, roundtrip.ErrTampered) {
		t.Errorf("a runtime state opened in an adapter: %v", err)
	}
}

func TestRunRoundTrip(t *testing.T) {
	c, err := NewCodec([][]byte{key(1)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"b": 2, "a": 1}`)
	schema := json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`)
	// Answers on a first request were never asked for: they do not count.
	run, err := Begin(c, "tool", args, "", map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "f_2": []byte(`{"action":"decline"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if reqs, state, err := run.End(); reqs != nil || state != "" || err != nil {
		t.Fatalf("End before any ask: %v %q %v", reqs, state, err)
	}
	if _, err := run.ask("f", "first \"one\"", schema); !errors.Is(err, runtime.ErrInputRequired) {
		t.Fatalf("first ask: %v", err)
	}
	if _, err := run.ask("f", "second", schema); !errors.Is(err, runtime.ErrInputRequired) {
		t.Fatalf("second ask, answered up front: %v", err)
	}
	reqs, state, err := run.End()
	if err != nil || len(reqs) != 2 || state == "" {
		t.Fatalf("End: %+v %q %v", reqs, state, err)
	}
	// The schema comes back byte for byte (property order matters to a
	// client's form).
	if r := reqs[0]; r.Key != "f" || r.Message != `first "one"` || !bytes.Equal(r.Schema, schema) {
		t.Errorf("request %+v (schema %s)", r, r.Schema)
	}
	retry, err := Begin(c, "tool", []byte(`{"a":1,"b":2}`), state, map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "f_2": []byte(`{"action":"decline"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if ans, err := retry.ask("f", `first "one"`, schema); err != nil || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("retry f: %s, %v", ans, err)
	}
	// f_2 now asks another question: the answer to "second" does not count.
	if _, err := retry.ask("f", "second, reworded", schema); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("retry f_2 with another question: %v", err)
	}
	for name, tc := range map[string]struct {
		tool, args, state string
		want              error
	}{
		"other tool": {"tool2", string(args), state, roundtrip.ErrMismatch},
		"other args": {"tool", `{"a":2}`, state, roundtrip.ErrMismatch},
		"garbage":    {"tool", string(args), "!!", roundtrip.ErrTampered},
	} {
		if _, err := Begin(c, tc.tool, []byte(tc.args), tc.state, nil); !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), "invalid requestState") {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func TestElicit(t *testing.T) {
	var sent []string
	send := func(result string) func(string, json.RawMessage) (json.RawMessage, error) {
		return func(message string, schema json.RawMessage) (json.RawMessage, error) {
			sent = append(sent, message+" "+string(schema))
			return json.RawMessage(result), nil
		}
	}
	sessionful := Caller{Version: "2025-06-18", Send: send(`{"action":"accept","content":{"name":"ada"}}`)}
	if p, err := Elicit[testform.NameForm](sessionful, "Who?"); err != nil || p.Name != "ada" || len(sent) != 1 || !strings.HasPrefix(sent[0], `Who? {"type":"object"`) {
		t.Errorf("sessionful: %+v, %v, sent %q", p, err, sent)
	}
	sessionful.Send = send(`{"action":"accept","content":{}}`)
	if _, err := Elicit[testform.NameForm](sessionful, "Who?"); !errors.Is(err, runtime.ErrElicitInvalidContent) {
		t.Errorf("bad content: %v", err)
	}
	// The adapters decode answers through the runtime's kit: the same strict
	// rules (issue 15).
	multi := Caller{Version: "2025-11-25", Send: send(`{"action":"accept","content":{"families":["ipv6-unicast","ipv6-unicast"]}}`)}
	if _, err := Elicit[testform.FamiliesForm](multi, "Families?"); !errors.Is(err, runtime.ErrElicitInvalidContent) || !strings.Contains(err.Error(), `"families" item 1 repeats "ipv6-unicast"`) {
		t.Errorf("repeated item: %v", err)
	}
	sessionful.Send = send(`{"action":"decline","action":"accept","content":{"name":"ada"}}`)
	if _, err := Elicit[testform.NameForm](sessionful, "Who?"); !errors.Is(err, runtime.ErrElicitMalformed) || !strings.Contains(err.Error(), `member "action" appears more than once`) {
		t.Errorf("action twice: %v", err)
	}
	sent = nil
	refused := Caller{Version: "2025-06-18", Unsupported: &runtime.MissingCapabilityError{Mode: "form"}, Send: send(`{}`)}
	if _, err := Elicit[testform.NameForm](refused, "Who?"); !errors.Is(err, runtime.ErrElicitUnsupported) || len(sent) != 0 {
		t.Errorf("unsupported client: %v, sent %q", err, sent)
	}
	if _, err := Elicit[testform.NameForm](Caller{Version: "2025-03-26", Send: send(`{}`)}, "Who?"); !errors.Is(err, runtime.ErrElicitUnsupported) || !strings.Contains(err.Error(), "no schema for protocol 2025-03-26") || len(sent) != 0 {
		t.Errorf("no schema for the version: %v, sent %q", err, sent)
	}

	// 2026-07-28: asked through the run under the form's key or WithKey's.
	c, _ := NewCodec(nil, 0)
	run, _ := Begin(c, "tool", nil, "", map[string]json.RawMessage{"who": []byte(`{"action":"cancel"}`)})
	stateless := Caller{Version: "2026-07-28", Run: run}
	if _, err := Elicit[testform.NameForm](stateless, "Who?"); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("first run: %v", err)
	}
	if _, err := Elicit[testform.NameForm](stateless, "Who?", runtime.WithKey("who")); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("an answer under WithKey's key, never asked: %v", err)
	}
	reqs, state, _ := run.End()
	if len(reqs) != 2 || reqs[0].Key != "name_form" || reqs[0].Message != "Who?" || reqs[1].Key != "who" {
		t.Errorf("requests %+v", reqs)
	}
	retry, _ := Begin(c, "tool", nil, state, map[string]json.RawMessage{"who": []byte(`{"action":"cancel"}`)})
	stateless.Run = retry
	if _, err := Elicit[testform.NameForm](stateless, "Who?", runtime.WithKey("who")); !errors.Is(err, runtime.ErrElicitCanceled) {
		t.Errorf("the answer under WithKey's key, asked: %v", err)
	}
}

func TestCtxError(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the client went away")
	cancel(cause)
	if err := CtxError(ctx); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("with cause: %v", err)
	}
	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := CtxError(ctx); err != context.Canceled {
		t.Errorf("without cause: %v", err)
	}
}

func TestVersions(t *testing.T) {
	for v, want := range map[string][2]bool{
		"2025-06-18": {false, false}, "2025-11-25": {false, true}, "2026-07-28": {true, true},
	} {
		if IsInputRequired(v) != want[0] || HasElicitMode(v) != want[1] {
			t.Errorf("%s: IsInputRequired %v, HasElicitMode %v", v, IsInputRequired(v), HasElicitMode(v))
		}
	}
	if err := NotAdapted("lib.AddTool"); !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "lib.AddTool") {
		t.Errorf("NotAdapted: %v does not match runtime.ErrNoCall or lacks the fix", err)
	}
}
