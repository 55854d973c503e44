package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The seven known traps of the seed's implementation (DESIGN.md), one test
// each.

// Trap 1: the server's WriteTimeout killed the upgraded stream, so a person
// answering after it got no result. Here the answer comes well after both
// WriteTimeout and ReadTimeout, and the result still arrives.
func TestTrap1AnswerAfterWriteTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	f := newFixture(t, Options{}, func(hs *httptest.Server) {
		hs.Config.WriteTimeout = timeout
		hs.Config.ReadTimeout = timeout
		// Idle keep-alive connections would otherwise time out after
		// ReadTimeout too, racing the client's reuse of them.
		hs.Config.IdleTimeout = time.Minute
	})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	s, id, _ := startElicit(t, c)
	defer s.close()
	time.Sleep(3 * timeout) // the person thinks
	c.expect(c.answer(id, `{"action":"accept","content":{"username":"slow"}}`), 202)
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("outcome %v", o.err)
	}
	if text, isErr := s.result(); isErr || !strings.Contains(text, "slow") {
		t.Fatalf("result %q isError=%v", text, isErr)
	}
}

// Trap 2: only one request POST per session could run at a time. Here ten
// calls of one session elicit at once, each on its own stream, and are
// answered in reverse order.
func TestTrap2ConcurrentCallsInOneSession(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	const n = 10
	streams := make([]*stream, n)
	ids := make([]string, n)
	for i := range n {
		streams[i], ids[i], _ = startElicit(t, c)
	}
	var wg sync.WaitGroup
	for i := n - 1; i >= 0; i-- {
		name := "user" + string(rune('a'+i))
		c.expect(c.answer(ids[i], `{"action":"accept","content":{"username":"`+name+`"}}`), 202)
		wg.Add(1)
		go func(s *stream, want string) {
			defer wg.Done()
			defer s.close()
			if text, _ := s.result(); !strings.Contains(text, want) {
				t.Errorf("stream got %q, want %s: a reply crossed streams", text, want)
			}
		}(streams[i], name)
	}
	wg.Wait()
	for range n {
		f.waitOutcome()
	}
}

// Trap 3: the reply was upgraded without checking Accept. A POST that does
// not accept text/event-stream gets a clear error instead of a stream.
func TestTrap3AcceptWithoutEventStream(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`, "Accept: application/json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("content type %q: the reply must not be upgraded", ct)
	}
	text, isErr := resultText(t, c.expect(resp, 200))
	if !isErr || !strings.Contains(text, "text/event-stream") {
		t.Errorf("result %q", text)
	}
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitUnsupported) {
		t.Errorf("err %v", o.err)
	}
	waitPending(t, f.srv, 0)
}

// Trap 4: a reply with bad content got HTTP 400 and left the handler waiting
// forever. Every reply that matches a pending id resolves it.
func TestTrap4BadContentResolvesTheHandler(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	s, id, _ := startElicit(t, c)
	defer s.close()
	c.expect(c.answer(id, `{"action":"accept","content":{"username":7}}`), 202)
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitInvalidContent) {
		t.Fatalf("err %v", o.err)
	}
	if text, isErr := s.result(); !isErr || !strings.Contains(text, `"username"`) {
		t.Errorf("result %q", text)
	}
	waitPending(t, f.srv, 0)
}

// Trap 5: DELETE or session expiry did not wake a waiting handler. Both wake
// every waiter of the session at once.
func TestTrap5DeleteAndExpiryWakeWaiters(t *testing.T) {
	for _, end := range []string{"delete", "expiry"} {
		t.Run(end, func(t *testing.T) {
			opts := Options{}
			if end == "expiry" {
				opts.SessionIdleTimeout = 200 * time.Millisecond
			}
			f := newFixture(t, opts)
			c := f.connect("2025-06-18", `{"elicitation":{}}`)
			var streams []*stream
			for range 3 {
				s, _, _ := startElicit(t, c)
				streams = append(streams, s)
			}
			if end == "delete" {
				req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
				req.Header.Set(HeaderSessionID, c.sid)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				readAll(t, resp)
			}
			for range streams {
				if o := f.waitOutcome(); !errors.Is(o.err, ErrSessionClosed) {
					t.Fatalf("err %v", o.err)
				}
			}
			for _, s := range streams {
				s.result()
				s.close()
			}
		})
	}
}

// Trap 6: the checker was a denylist and accepted content was never checked.
// Unknown keywords, bad enum members, bad required names and mistyped
// defaults are refused before sending; content is checked against the schema.
func TestTrap6AllowlistAndContentChecked(t *testing.T) {
	f := newFixture(t, Options{})
	sess := newSession(f.srv, "s", "2025-11-25", clientFacts{caps: elicitCaps{form: true}})
	ctx := callContext(sess)
	for name, prop := range map[string]map[string]any{
		"unknown keyword": {"type": "string", "x-widget": "slider"},
		"empty enum item": {"type": "string", "enum": []any{"a", ""}},
		"enumNames len":   {"type": "string", "enum": []any{"a", "b"}, "enumNames": []any{"A"}},
		"default type":    {"type": "integer", "default": "seven"},
		"nested":          {"type": "object", "properties": map[string]any{}},
	} {
		schema := map[string]any{"type": "object", "properties": map[string]any{"p": prop}}
		if _, err := ElicitSchema(ctx, "m", schema); !errors.Is(err, ErrElicitSchemaInvalid) {
			t.Errorf("%s: err %v, want ErrElicitSchemaInvalid", name, err)
		}
	}
	badRequired := map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string"}}, "required": []any{"q"}}
	if _, err := ElicitSchema(ctx, "m", badRequired); !errors.Is(err, ErrElicitSchemaInvalid) {
		t.Errorf("required names a missing property: err %v", err)
	}
	// Content checking is covered end to end in TestElicitOutcomes
	// ("bad content"); here the enum case.
	c := f.connect("2025-11-25", elicitCaps1125)
	f.srv.AddTool(Tool{Name: "color"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := ElicitSchema(ctx, "m", map[string]any{"type": "object", "properties": map[string]any{
			"color": map[string]any{"type": "string", "enum": []any{"red", "green"}}}})
		f.outcomes <- outcome{err: err}
		return nil, err
	})
	resp, _ := c.callTool("color", `{}`)
	s := openStream(t, resp)
	defer s.close()
	id, _ := s.elicitation()
	c.expect(c.answer(id, `{"action":"accept","content":{"color":"blue"}}`), 202)
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitInvalidContent) || !strings.Contains(o.err.Error(), `"color"`) {
		t.Fatalf("err %v", o.err)
	}
	s.result()
}

// Trap 7: SSE frames carried no event ids. Every event has one, unique and
// increasing within the stream.
func TestTrap7EventIDs(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`)
	s := openStream(t, resp)
	defer s.close()
	first := s.mustNext()
	id, _ := first.msg["id"].(string)
	c.expect(c.answer(id, `{"action":"decline"}`), 202)
	last := s.mustNext()
	if first.id == "" || last.id == "" || first.id == last.id {
		t.Fatalf("event ids %q, %q", first.id, last.id)
	}
	prefix, n1, _ := strings.Cut(first.id, "-")
	prefix2, n2, _ := strings.Cut(last.id, "-")
	if prefix != prefix2 || n1 != "1" || n2 != "2" {
		t.Errorf("event ids %q, %q: want one stream prefix and increasing counters", first.id, last.id)
	}
	f.waitOutcome()
}
