package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// startElicit calls "ask" and reads the elicitation off the upgraded stream.
func startElicit(t *testing.T, c *client) (*stream, string, map[string]any) {
	t.Helper()
	resp, _ := c.callTool("ask", `{}`)
	s := openStream(t, resp)
	id, params := s.elicitation()
	return s, id, params
}

func TestElicitAccept(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, Options{})
			c := f.connect(version, `{"elicitation":{}}`)
			s, id, params := startElicit(t, c)
			defer s.close()
			if !strings.HasPrefix(id, "elicit-") {
				t.Errorf("request id %q: want the elicit- prefix", id)
			}
			if params["message"] != "Who are you?" {
				t.Errorf("params %v", params)
			}
			_, hasMode := params["mode"]
			if hasMode != (version == "2025-11-25") {
				t.Errorf("mode present=%v on %s", hasMode, version)
			}
			c.expect(c.answer(id, `{"action":"accept","content":{"username":"ada","age":36}}`), 202)
			o := f.waitOutcome()
			if o.err != nil || o.content["username"] != "ada" {
				t.Fatalf("outcome %+v", o)
			}
			text, isErr := s.result()
			if isErr || text != `hello {"age":36,"username":"ada"}` {
				t.Errorf("result %q isError=%v", text, isErr)
			}
			if _, more := s.next(); more {
				t.Error("events after the terminal result")
			}
		})
	}
}

func TestElicitOutcomes(t *testing.T) {
	cases := []struct {
		name   string
		result string
		want   error
		text   string // in the tool result
	}{
		{"decline", `{"action":"decline"}`, ErrElicitDeclined, "declined"},
		{"cancel", `{"action":"cancel"}`, ErrElicitCanceled, "canceled"},
		{"decline with content ignored", `{"action":"decline","content":{"username":1}}`, ErrElicitDeclined, "declined"},
		{"unknown action", `{"action":"maybe"}`, ErrElicitMalformed, `unknown action "maybe"`},
		{"no action", `{}`, ErrElicitMalformed, "no action"},
		{"result not an object", `"accept"`, ErrElicitMalformed, "malformed"},
		{"content not an object", `{"action":"accept","content":[1]}`, ErrElicitMalformed, "content must be an object"},
		{"bad content", `{"action":"accept","content":{"username":"a","age":"old","extra":true}}`, ErrElicitInvalidContent, `"age"`},
		{"accept without content", `{"action":"accept"}`, ErrElicitInvalidContent, `"username"`},
		{"accept with null content", `{"action":"accept","content":null}`, ErrElicitInvalidContent, `"username"`},
	}
	f := newFixture(t, Options{})
	c := f.connect("2025-11-25", elicitCaps1125)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, id, _ := startElicit(t, c)
			defer s.close()
			c.expect(c.answer(id, tc.result), 202)
			o := f.waitOutcome()
			if !errors.Is(o.err, tc.want) {
				t.Fatalf("err %v, want %v", o.err, tc.want)
			}
			text, isErr := s.result()
			if !isErr || !strings.Contains(text, tc.text) {
				t.Errorf("result %q isError=%v, want it to contain %q", text, isErr, tc.text)
			}
		})
	}
	t.Run("bad content names every property", func(t *testing.T) {
		s, id, _ := startElicit(t, c)
		defer s.close()
		c.expect(c.answer(id, `{"action":"accept","content":{"username":"a","age":200,"extra":1}}`), 202)
		o := f.waitOutcome()
		var ce *ContentError
		if !errors.As(o.err, &ce) {
			t.Fatalf("err %v is not a *ContentError", o.err)
		}
		props := map[string]bool{}
		for _, p := range ce.Problems {
			props[p.Property] = true
		}
		if !props["username"] || !props["age"] || !props["extra"] {
			t.Errorf("problems %+v: want username, age and extra", ce.Problems)
		}
		s.result()
	})
	t.Run("client error", func(t *testing.T) {
		s, id, _ := startElicit(t, c)
		defer s.close()
		c.expect(c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"error":{"code":-32601,"message":"no UI"}}`, id)), 202)
		o := f.waitOutcome()
		var ce *ClientError
		if !errors.Is(o.err, ErrElicitFailed) || !errors.As(o.err, &ce) || ce.Code != -32601 {
			t.Fatalf("err %v", o.err)
		}
		// The client's error code must not become the call's protocol error.
		text, isErr := s.result()
		if !isErr || !strings.Contains(text, "no UI") {
			t.Errorf("result %q isError=%v", text, isErr)
		}
	})
}

func TestElicitNoCapability(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{}`)
	resp, _ := c.callTool("ask", `{}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	text, isErr := resultText(t, c.expect(resp, 200))
	if !isErr || text != "missing required argument: username" {
		t.Errorf("result %q isError=%v", text, isErr)
	}
	// Elicit itself refuses without the capability (the handler above
	// pre-checked; this one does not).
	sess := newSession(f.srv, "x", "2025-06-18", clientFacts{caps: elicitCaps{}})
	if _, err := ElicitSchema(callContext(sess), "m", userSchema); !errors.Is(err, ErrElicitUnsupported) {
		t.Errorf("err %v", err)
	}
	old := newSession(f.srv, "y", "2025-03-26", clientFacts{caps: elicitCaps{form: true}})
	if ClientSupportsElicit(callContext(old)) {
		t.Error("2025-03-26 has no elicitation")
	}
	urlOnly := newSession(f.srv, "z", "2025-11-25", clientFacts{caps: parseElicitCaps([]byte(`{"elicitation":{"url":{}}}`))})
	if ClientSupportsElicit(callContext(urlOnly)) || !ClientSupportsElicitURL(callContext(urlOnly)) {
		t.Error("a url-only client must not get forms")
	}
}

func TestElicitReplyRouting(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.connect("2025-06-18", `{"elicitation":{}}`)
	b := f.connect("2025-06-18", `{"elicitation":{}}`)
	s, id, _ := startElicit(t, a)
	defer s.close()

	// Another session's answer with the right id must not resolve it.
	b.expect(b.answer(id, `{"action":"accept","content":{"username":"mallory"}}`), 400)
	// An unknown id in the right session is refused too.
	a.expect(a.answer("elicit-unknown", `{"action":"decline"}`), 400)
	a.expect(a.post(`{"jsonrpc":"2.0","id":42,"result":{"action":"decline"}}`), 400)
	select {
	case o := <-f.outcomes:
		t.Fatalf("handler resumed by a foreign answer: %+v", o)
	case <-time.After(50 * time.Millisecond):
	}
	a.expect(a.answer(id, `{"action":"accept","content":{"username":"ada"}}`), 202)
	if o := f.waitOutcome(); o.err != nil || o.content["username"] != "ada" {
		t.Fatalf("outcome %+v", o)
	}
	// A duplicate answer finds nothing pending.
	a.expect(a.answer(id, `{"action":"decline"}`), 400)
	if text, isErr := s.result(); isErr || !strings.Contains(text, "ada") {
		t.Errorf("result %q", text)
	}
}

// TestElicitClientDisconnect: a client that goes away mid-elicitation and
// does not resume its stream within StreamResumeWindow cancels the call.
func TestElicitClientDisconnect(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: 50 * time.Millisecond})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	s, id, _ := startElicit(t, c)
	s.close() // the client goes away mid-elicitation
	o := f.waitOutcome()
	if !errors.Is(o.err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", o.err)
	}
	waitPending(t, f.srv, 0)
	c.expect(c.answer(id, `{"action":"decline"}`), 400) // nothing left to answer
}

func TestElicitCancelledByClient(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	resp, callID := c.callTool("ask", `{}`)
	s := openStream(t, resp)
	defer s.close()
	s.elicitation()
	c.expect(c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+callID+`,"reason":"user hit stop"}}`), 202)
	o := f.waitOutcome()
	if !errors.Is(o.err, context.Canceled) || !strings.Contains(o.err.Error(), "user hit stop") {
		t.Fatalf("err %v", o.err)
	}
	// The server withdraws its own request, then ends the stream without a
	// response to the cancelled call (the spec asks not to send one).
	ev := s.mustNext()
	if ev.msg["method"] != "notifications/cancelled" {
		t.Fatalf("want notifications/cancelled, got %s", ev.data)
	}
	if ev, more := s.next(); more {
		t.Errorf("unexpected event after cancellation: %s", ev.data)
	}
}

// TestElicitSessionEnds covers DELETE, idle expiry and Shutdown mid-elicit.
func TestElicitSessionEnds(t *testing.T) {
	t.Run("DELETE", func(t *testing.T) {
		f := newFixture(t, Options{})
		c := f.connect("2025-06-18", `{"elicitation":{}}`)
		s, _, _ := startElicit(t, c)
		defer s.close()
		req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
		req.Header.Set(HeaderSessionID, c.sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		if o := f.waitOutcome(); !errors.Is(o.err, ErrSessionClosed) {
			t.Fatalf("err %v", o.err)
		}
		if text, isErr := s.result(); !isErr || !strings.Contains(text, "deleted") {
			t.Errorf("result %q", text)
		}
	})
	t.Run("idle expiry", func(t *testing.T) {
		f := newFixture(t, Options{SessionIdleTimeout: 150 * time.Millisecond})
		c := f.connect("2025-06-18", `{"elicitation":{}}`)
		s, _, _ := startElicit(t, c)
		defer s.close()
		if o := f.waitOutcome(); !errors.Is(o.err, ErrSessionClosed) || !strings.Contains(o.err.Error(), "idle") {
			t.Fatalf("err %v", o.err)
		}
		s.result()
		c.expect(c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 404)
	})
	t.Run("Shutdown", func(t *testing.T) {
		f := newFixture(t, Options{})
		c := f.connect("2025-06-18", `{"elicitation":{}}`)
		s, _, _ := startElicit(t, c)
		defer s.close()
		done := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			done <- f.srv.Shutdown(ctx)
		}()
		if o := f.waitOutcome(); !errors.Is(o.err, ErrServerShutdown) || !errors.Is(o.err, ErrSessionClosed) {
			t.Fatalf("err %v", o.err)
		}
		// The drained call still delivers its result.
		if text, isErr := s.result(); !isErr || !strings.Contains(text, "shutting down") {
			t.Errorf("result %q", text)
		}
		if err := <-done; err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		c.expect(c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 503)
	})
	t.Run("Shutdown deadline cancels stuck calls", func(t *testing.T) {
		f := newFixture(t, Options{})
		c := f.connect("2025-06-18", `{}`)
		got := make(chan string, 1)
		go func() { // the plain reply comes only when the handler returns
			resp, _ := c.callTool("block", `{}`)
			got <- readAll(t, resp)
		}()
		waitCalls(t, f.srv, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if err := f.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown: %v", err)
		}
		if o := f.waitOutcome(); !errors.Is(o.err, ErrServerShutdown) {
			t.Fatalf("err %v", o.err)
		}
		if text, isErr := resultText(t, <-got); !isErr || !strings.Contains(text, "canceled") {
			t.Errorf("result %q", text)
		}
	})
}

func TestElicitTooMany(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	var streams []*stream
	var ids []string
	for range DefaultMaxPendingElicitations {
		s, id, _ := startElicit(t, c)
		streams = append(streams, s)
		ids = append(ids, id)
	}
	// The 33rd gets ErrElicitTooMany as a tool error, on a plain reply.
	resp, _ := c.callTool("ask", `{}`)
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitTooMany) {
		t.Fatalf("33rd: %v", o.err)
	}
	if text, isErr := resultText(t, c.expect(resp, 200)); !isErr || !strings.Contains(text, "too many") {
		t.Errorf("33rd result %q", text)
	}
	// Answering one frees a slot.
	c.expect(c.answer(ids[0], `{"action":"decline"}`), 202)
	f.waitOutcome()
	streams[0].result()
	s, id, _ := startElicit(t, c)
	streams[0] = s
	ids[0] = id
	var wg sync.WaitGroup
	for i := range streams {
		c.expect(c.answer(ids[i], `{"action":"cancel"}`), 202)
		f.waitOutcome()
		wg.Add(1)
		go func(s *stream) {
			defer wg.Done()
			defer s.close()
			s.result()
		}(streams[i])
	}
	wg.Wait()
}

func TestElicitTimeout(t *testing.T) {
	f := newFixture(t, Options{ElicitTimeout: 100 * time.Millisecond})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	s, id, _ := startElicit(t, c)
	defer s.close()
	o := f.waitOutcome()
	if !errors.Is(o.err, ErrElicitTimeout) || !errors.Is(o.err, context.DeadlineExceeded) {
		t.Fatalf("err %v", o.err)
	}
	ev := s.mustNext()
	if ev.msg["method"] != "notifications/cancelled" || ev.msg["params"].(map[string]any)["requestId"] != id {
		t.Fatalf("want notifications/cancelled for %s, got %s", id, ev.data)
	}
	if text, isErr := s.result(); !isErr || !strings.Contains(text, "timeout") {
		t.Errorf("result %q", text)
	}
}

func TestElicitSchemaRejectedBeforeSending(t *testing.T) {
	f := newFixture(t, Options{})
	bad := map[string]any{"type": "object", "properties": map[string]any{
		"nested": map[string]any{"type": "object"},
		"p":      map[string]any{"type": "string", "pattern": "^a"},
	}}
	f.srv.AddTool(Tool{Name: "bad"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := ElicitSchema(ctx, "m", bad)
		f.outcomes <- outcome{err: err}
		return nil, err
	})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	resp, _ := c.callTool("bad", `{}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a rejected schema must not upgrade the reply (got %q)", ct)
	}
	c.expect(resp, 200)
	o := f.waitOutcome()
	var se *SchemaError
	if !errors.Is(o.err, ErrElicitSchemaInvalid) || !errors.As(o.err, &se) || len(se.Violations) < 2 {
		t.Fatalf("err %v: want every violation listed", o.err)
	}
	if !strings.Contains(o.err.Error(), "/properties/nested") || !strings.Contains(o.err.Error(), "/properties/p") {
		t.Errorf("violations do not name their paths: %v", o.err)
	}
}

// waitPending waits until the server has n pending elicitations in total.
func waitPending(t *testing.T, srv *Server, n int) {
	t.Helper()
	waitFor(t, func() bool {
		total := 0
		srv.forEachSession(func(s *Session) {
			s.mu.Lock()
			total += len(s.pending)
			s.mu.Unlock()
		})
		return total == n
	})
}

func waitCalls(t *testing.T, srv *Server, n int) {
	t.Helper()
	waitFor(t, func() bool {
		total := 0
		srv.forEachSession(func(s *Session) {
			total += s.calls.len()
		})
		return total == n
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestElicitLeftRunningEndsWithTheCall: an Elicit a handler leaves running
// in a goroutine of its own returns context.Canceled once the call is
// over, as on a context.WithCancelCause child, instead of waiting for an
// answer nobody will route (no ElicitTimeout here).
func TestElicitLeftRunningEndsWithTheCall(t *testing.T) {
	f := newFixture(t, Options{ElicitTimeout: -1})
	f.srv.AddTool(Tool{Name: "leave"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		go func() {
			_, err := ElicitSchema(ctx, "Who are you?", userSchema)
			f.outcomes <- outcome{err: err}
		}()
		<-f.release // the test has read the elicitation: the goroutine waits for its answer
		return TextResult("left"), nil
	})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("leave", `{}`)
	st := openStream(t, resp)
	defer st.close()
	st.elicitation()
	close(f.release)
	if text, _ := st.result(); text != "left" {
		t.Fatalf("result %q", text)
	}
	if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) { // the Elicit left running ends with the call
		t.Fatalf("the Elicit left running: %v, want context.Canceled", o.err)
	}
	waitPending(t, f.srv, 0)
}
