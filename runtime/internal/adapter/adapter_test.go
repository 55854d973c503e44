package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
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
	params := func(message string) json.RawMessage {
		raw, _ := json.Marshal(map[string]any{"mode": "form", "message": message, "requestedSchema": schema})
		return raw
	}
	// Answers on a first request were never asked for: they do not count.
	run, err := Begin(c, "tool", args, "", map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "f_2": []byte(`{"action":"decline"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if reqs, state, err := run.End(context.Background(), nil); reqs != nil || state != "" || err != nil {
		t.Fatalf("End before any ask: %v %q %v", reqs, state, err)
	}
	if _, err := run.ask("f", params(`first "one"`)); !errors.Is(err, runtime.ErrInputRequired) {
		t.Fatalf("first ask: %v", err)
	}
	if _, err := run.ask("f", params("second")); !errors.Is(err, runtime.ErrInputRequired) {
		t.Fatalf("second ask, answered up front: %v", err)
	}
	reqs, state, err := run.End(context.Background(), nil)
	if err != nil || len(reqs) != 2 || state == "" {
		t.Fatalf("End: %+v %q %v", reqs, state, err)
	}
	// The schema comes back byte for byte (property order matters to a
	// client's form).
	p, err := ParseParams(reqs[0].Params)
	if r := reqs[0]; err != nil || r.Key != "f" || p.Message != `first "one"` || p.Mode != "form" || !bytes.Equal(p.RequestedSchema, schema) {
		t.Errorf("request %+v (params %s): %v", r, r.Params, err)
	}
	retry, err := Begin(c, "tool", []byte(`{"a":1,"b":2}`), state, map[string]json.RawMessage{"f": []byte(`{"action":"accept","content":{}}`), "f_2": []byte(`{"action":"decline"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if ans, err := retry.ask("f", params(`first "one"`)); err != nil || string(ans) != `{"action":"accept","content":{}}` {
		t.Errorf("retry f: %s, %v", ans, err)
	}
	// f_2 now asks another question: the answer to "second" does not count.
	if _, err := retry.ask("f", params("second, reworded")); !errors.Is(err, runtime.ErrInputRequired) {
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

// TestElicit: runtime.Elicit asks through the Call an adapter put into
// ctx, with the runtime's outcomes.
func TestElicit(t *testing.T) {
	var sent []string
	send := func(result string) func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
			p, err := ParseParams(params)
			if err != nil {
				t.Fatal(err)
			}
			sent = append(sent, p.Message+" "+string(p.RequestedSchema))
			return json.RawMessage(result), nil
		}
	}
	in := func(c *Call) context.Context { return callctx.With(context.Background(), c) }
	sessionful := &Call{Version: "2025-06-18", Declared: true, Send: send(`{"action":"accept","content":{"name":"ada"}}`)}
	if p, err := runtime.Elicit[testform.NameForm](in(sessionful), "Who?"); err != nil || p.Name != "ada" || len(sent) != 1 || !strings.HasPrefix(sent[0], `Who? {"type":"object"`) {
		t.Errorf("sessionful: %+v, %v, sent %q", p, err, sent)
	}
	sessionful.Send = send(`{"action":"accept","content":{}}`)
	if _, err := runtime.Elicit[testform.NameForm](in(sessionful), "Who?"); !errors.Is(err, runtime.ErrElicitInvalidContent) {
		t.Errorf("bad content: %v", err)
	}
	// The same strict rules as the runtime's own calls (issue 15).
	multi := &Call{Version: "2025-11-25", Declared: true, Send: send(`{"action":"accept","content":{"families":["ipv6-unicast","ipv6-unicast"]}}`)}
	if _, err := runtime.Elicit[testform.FamiliesForm](in(multi), "Families?"); !errors.Is(err, runtime.ErrElicitInvalidContent) || !strings.Contains(err.Error(), `"families" item 1 repeats "ipv6-unicast"`) {
		t.Errorf("repeated item: %v", err)
	}
	sessionful.Send = send(`{"action":"decline","action":"accept","content":{"name":"ada"}}`)
	if _, err := runtime.Elicit[testform.NameForm](in(sessionful), "Who?"); !errors.Is(err, runtime.ErrElicitMalformed) || !strings.Contains(err.Error(), `member "action" appears more than once`) {
		t.Errorf("action twice: %v", err)
	}
	sent = nil
	refused := &Call{Version: "2025-06-18", Send: send(`{}`)}
	var mc *runtime.MissingCapabilityError
	if _, err := runtime.Elicit[testform.NameForm](in(refused), "Who?"); !errors.As(err, &mc) || len(sent) != 0 {
		t.Errorf("client without the capability: %v, sent %q", err, sent)
	}
	if _, err := runtime.Elicit[testform.NameForm](in(&Call{Version: "2025-03-26", Declared: true, Send: send(`{}`)}), "Who?"); !errors.Is(err, runtime.ErrElicitUnsupported) || len(sent) != 0 {
		t.Errorf("no elicitation in the version: %v, sent %q", err, sent)
	}
	if _, err := runtime.Elicit[testform.NameForm](in(&Call{Version: "2025-06-18", Declared: true}), "Who?"); !errors.Is(err, runtime.ErrElicitUnsupported) {
		t.Errorf("no way to ask: %v", err)
	}

	// 2026-07-28: asked through the run under the form's key or WithKey's.
	c, _ := NewCodec(nil, 0)
	run, _ := Begin(c, "tool", nil, "", map[string]json.RawMessage{"who": []byte(`{"action":"cancel"}`)})
	stateless := &Call{Version: "2026-07-28", Declared: true, Run: run}
	if _, err := runtime.Elicit[testform.NameForm](in(stateless), "Who?"); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("first run: %v", err)
	}
	if _, err := runtime.Elicit[testform.NameForm](in(stateless), "Who?", runtime.WithKey("who")); !errors.Is(err, runtime.ErrInputRequired) {
		t.Errorf("an answer under WithKey's key, never asked: %v", err)
	}
	reqs, state, _ := run.End(context.Background(), nil)
	if p, _ := ParseParams(reqs[0].Params); len(reqs) != 2 || reqs[0].Key != "name_form" || p.Message != "Who?" || reqs[1].Key != "who" {
		t.Errorf("requests %+v", reqs)
	}
	retry, _ := Begin(c, "tool", nil, state, map[string]json.RawMessage{"who": []byte(`{"action":"cancel"}`)})
	stateless.Run = retry
	if _, err := runtime.Elicit[testform.NameForm](in(stateless), "Who?", runtime.WithKey("who")); !errors.Is(err, runtime.ErrElicitCanceled) {
		t.Errorf("the answer under WithKey's key, asked: %v", err)
	}
}

// TestElicitWaits: an ask in a session ends with ErrElicitTimeout after
// the adapter's timeout, and with the context's error (and its cause) when
// the call's context ends first.
func TestElicitWaits(t *testing.T) {
	wait := func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c := &Call{Version: "2025-11-25", Declared: true, Send: wait, Timeout: 10 * time.Millisecond}
	_, err := runtime.Elicit[testform.NameForm](callctx.With(context.Background(), c), "Who?")
	if !errors.Is(err, runtime.ErrElicitTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("the client went away")
	cancel(cause)
	c.Timeout = time.Hour
	_, err = runtime.Elicit[testform.NameForm](callctx.With(ctx, c), "Who?")
	if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || errors.Is(err, runtime.ErrElicitTimeout) {
		t.Errorf("context ended: %v", err)
	}
}

// TestMissingCapability: on 2026-07-28 a handler's missing capability is
// -32021 naming it; on other versions and for other errors, nothing.
func TestMissingCapability(t *testing.T) {
	err := error(&runtime.MissingCapabilityError{Mode: "form"})
	if rpc := MissingCapability("2026-07-28", fmt.Errorf("wrapped: %w", err)); rpc == nil || rpc.Code != runtime.CodeMissingCapability || !strings.Contains(string(rpc.Data), "requiredCapabilities") {
		t.Errorf("2026-07-28: %+v", rpc)
	}
	if MissingCapability("2025-11-25", err) != nil || MissingCapability("2026-07-28", errors.New("x")) != nil {
		t.Error("-32021 for another version or error")
	}
}

func TestVersions(t *testing.T) {
	for v, want := range map[string][1]bool{
		"2025-06-18": {false}, "2025-11-25": {false}, "2026-07-28": {true},
	} {
		if IsInputRequired(v) != want[0] {
			t.Errorf("%s: IsInputRequired %v", v, IsInputRequired(v))
		}
	}
}

func TestElicitTimeout(t *testing.T) {
	for in, want := range map[time.Duration]time.Duration{0: runtime.DefaultElicitTimeout, -1: -1, time.Second: time.Second} {
		if got := ElicitTimeout(in); got != want {
			t.Errorf("ElicitTimeout(%v) = %v, want %v", in, got, want)
		}
	}
}
