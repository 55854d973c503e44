package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

const inputRequiredCapsElicit = `{"elicitation":{}}`

// inputRequiredBody builds a 2026-07-28 request body.
func inputRequiredBody(id int, method, params, caps string) string {
	meta := fmt.Sprintf(`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}`, caps)
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = "{" + params + "," + meta + "}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

func inputRequiredHeaders(method, name string) []string {
	h := []string{HeaderProtocolVersion + ": 2026-07-28", HeaderMethod + ": " + method}
	if name != "" {
		h = append(h, HeaderName+": "+name)
	}
	return h
}

type rpcResponse struct {
	Result map[string]json.RawMessage
	Error  *RPCError
}

func decodeResponse(t *testing.T, body string) rpcResponse {
	t.Helper()
	var r rpcResponse
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	return r
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func TestInputRequiredDiscoverAndList(t *testing.T) {
	f := newFixture(t, Options{Name: "srv", Version: "2"})
	c := f.newClient()
	resp := c.post(inputRequiredBody(1, "server/discover", "", "{}"), inputRequiredHeaders("server/discover", "")...)
	if resp.Header.Get(HeaderSessionID) != "" {
		t.Error("a 2026-07-28 request minted a session")
	}
	r := decodeResponse(t, c.expect(resp, 200))
	if str(r.Result["resultType"]) != "complete" || str(r.Result["cacheScope"]) != "private" || string(r.Result["ttlMs"]) != "0" {
		t.Errorf("discover: %v", r.Result)
	}
	var versions []string
	_ = json.Unmarshal(r.Result["supportedVersions"], &versions)
	if strings.Join(versions, ",") != "2026-07-28,2025-11-25,2025-06-18,2025-03-26" {
		t.Errorf("supportedVersions %v", versions)
	}
	if !strings.Contains(string(r.Result["_meta"]), `"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2"}`) {
		t.Errorf("serverInfo _meta: %s", r.Result["_meta"])
	}
	r = decodeResponse(t, c.expect(c.post(inputRequiredBody(2, "tools/list", "", "{}"), inputRequiredHeaders("tools/list", "")...), 200))
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["tools"]), `"name":"ask"`) {
		t.Errorf("tools/list: %v", r.Result)
	}
	if f.srv.SessionCount() != 0 {
		t.Errorf("%d sessions after stateless requests", f.srv.SessionCount())
	}
}

func TestInputRequiredErrors(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.newClient()
	call := `"name":"plain","arguments":{}`
	meta := func(v string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{}}}}`, v)
	}
	cases := []struct {
		name    string
		body    string
		headers []string
		status  int
		code    int
	}{
		{"no version header", inputRequiredBody(1, "tools/list", "", "{}"), []string{HeaderMethod + ": tools/list"}, 400, CodeHeaderMismatch},
		{"no capabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, inputRequiredHeaders("tools/list", ""), 400, CodeInvalidParams},
		{"no _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, inputRequiredHeaders("tools/list", ""), 400, CodeInvalidParams},
		{"header differs from _meta", meta("2099-01-01"), inputRequiredHeaders("tools/list", ""), 400, CodeHeaderMismatch},
		{"unsupported version", meta("v999.0.0"), []string{HeaderProtocolVersion + ": v999.0.0", HeaderMethod + ": tools/list"}, 400, CodeUnsupportedVersion},
		{"method header missing", inputRequiredBody(1, "tools/list", "", "{}"), []string{HeaderProtocolVersion + ": 2026-07-28"}, 400, CodeHeaderMismatch},
		{"method header case", inputRequiredBody(1, "tools/list", "", "{}"), inputRequiredHeaders("TOOLS/LIST", ""), 400, CodeHeaderMismatch},
		{"name header missing", inputRequiredBody(1, "tools/call", call, "{}"), inputRequiredHeaders("tools/call", ""), 400, CodeHeaderMismatch},
		{"name header differs", inputRequiredBody(1, "tools/call", call, "{}"), inputRequiredHeaders("tools/call", "ask"), 400, CodeHeaderMismatch},
		{"name header padded", inputRequiredBody(1, "tools/call", call, "{}"), inputRequiredHeaders("tools/call", "  plain  "), 200, 0},
		{"name header base64", inputRequiredBody(1, "tools/call", call, "{}"), inputRequiredHeaders("tools/call", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("plain"))+"?="), 200, 0},
		{"initialize is gone", inputRequiredBody(1, "initialize", "", "{}"), inputRequiredHeaders("initialize", ""), 404, CodeMethodNotFound},
		{"ping is gone", inputRequiredBody(1, "ping", "", "{}"), inputRequiredHeaders("ping", ""), 404, CodeMethodNotFound},
		{"unknown tool", inputRequiredBody(1, "tools/call", `"name":"nope"`, "{}"), inputRequiredHeaders("tools/call", "nope"), 200, CodeInvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := c.post(tc.body, tc.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			r := decodeResponse(t, body)
			got := 0
			if r.Error != nil {
				got = r.Error.Code
			}
			if got != tc.code {
				t.Fatalf("code %d, want %d: %s", got, tc.code, body)
			}
			if !strings.Contains(body, `"id":1`) {
				t.Errorf("error without the request id: %s", body)
			}
			if tc.code == CodeUnsupportedVersion && !strings.Contains(body, `"data":{"requested":"v999.0.0","supported":["2026-07-28"`) {
				t.Errorf("-32022 data: %s", body)
			}
		})
	}
}

// inputRequiredCallTool posts a 2026-07-28 tools/call; extra is added to the
// params.
func (c *client) inputRequiredCallTool(name, args, caps, extra string) rpcResponse {
	c.f.t.Helper()
	c.next++
	params := fmt.Sprintf(`"name":%q,"arguments":%s`, name, args)
	if extra != "" {
		params += "," + extra
	}
	return decodeResponse(c.f.t, c.expect(c.post(inputRequiredBody(c.next, "tools/call", params, caps), inputRequiredHeaders("tools/call", name)...), 200))
}

func retryExtra(responses string, state json.RawMessage) string {
	return fmt.Sprintf(`"inputResponses":%s,"requestState":%s`, responses, state)
}

func TestInputRequiredElicitRoundTrip(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.newClient()
	r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, "")
	if str(r.Result["resultType"]) != "input_required" {
		t.Fatalf("first run: %v", r.Result)
	}
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) {
		t.Fatalf("first run's Elicit returned %v", o.err)
	}
	var reqs map[string]struct {
		Method string
		Params map[string]any
	}
	_ = json.Unmarshal(r.Result["inputRequests"], &reqs)
	ask, ok := reqs["elicit"]
	if !ok || ask.Method != "elicitation/create" || ask.Params["mode"] != "form" || ask.Params["message"] != "Who are you?" {
		t.Fatalf("inputRequests %s", r.Result["inputRequests"])
	}
	state := r.Result["requestState"]

	r = c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"ada"}}}`, state))
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("retry: %v", o.err)
	}
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "hello") {
		t.Fatalf("retry: %v", r.Result)
	}

	t.Run("decline", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"decline"}}`, state))
		if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitDeclined) {
			t.Fatalf("err %v", o.err)
		}
		if str(r.Result["resultType"]) != "complete" || string(r.Result["isError"]) != "true" {
			t.Errorf("result %v", r.Result)
		}
	})
	t.Run("bad content", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":5}}}`, state))
		if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitInvalidContent) {
			t.Fatalf("err %v", o.err)
		}
		if !strings.Contains(string(r.Result["content"]), `username`) {
			t.Errorf("result %v", r.Result)
		}
	})
	t.Run("response missing asks again", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"other":{"action":"accept"}}`, state))
		f.waitOutcome()
		if str(r.Result["resultType"]) != "input_required" {
			t.Errorf("result %v", r.Result)
		}
	})
	t.Run("response not an object", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":12345}`, state))
		if r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("want -32602, got %+v", r)
		}
	})
	t.Run("tampered state", func(t *testing.T) {
		s := str(state)
		bad := []byte(s)
		bad[len(bad)/2] ^= 1
		r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"eve"}}}`, json.RawMessage(`"`+string(bad)+`"`)))
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, "requestState") {
			t.Errorf("want -32602 naming requestState, got %+v", r)
		}
		r = c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{}`, json.RawMessage(`"not base64!"`)))
		if r.Error == nil || r.Error.Code != CodeInvalidParams {
			t.Errorf("garbage state: %+v", r)
		}
	})
	t.Run("state replayed with other arguments", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{"x":1}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"eve"}}}`, state))
		if r.Error == nil || !strings.Contains(r.Error.Message, "another request") {
			t.Errorf("want a mismatch error, got %+v", r)
		}
		r = c.inputRequiredCallTool("plain", `{}`, inputRequiredCapsElicit, retryExtra(`{}`, state))
		if r.Error == nil || !strings.Contains(r.Error.Message, "another request") {
			t.Errorf("other tool: want a mismatch error, got %+v", r)
		}
	})
	t.Run("same arguments re-serialised still match", func(t *testing.T) {
		r := c.inputRequiredCallTool("ask", `{ }`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"cancel"}}`, state))
		if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitCanceled) {
			t.Fatalf("err %v (%+v)", o.err, r)
		}
	})
}

func TestInputRequiredStateExpires(t *testing.T) {
	f := newFixture(t, Options{RequestStateTTL: time.Second})
	c := f.newClient()
	r := c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, "")
	f.waitOutcome()
	time.Sleep(2100 * time.Millisecond) // expiry has one-second resolution
	r = c.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"decline"}}`, r.Result["requestState"]))
	if r.Error == nil || !strings.Contains(r.Error.Message, "expired") {
		t.Fatalf("want expired, got %+v", r)
	}
}

func TestInputRequiredSharedKeyAcrossServers(t *testing.T) {
	key := make([]byte, 32)
	key[0] = 7
	a := newFixture(t, Options{RequestStateKeys: [][]byte{key}})
	b := newFixture(t, Options{RequestStateKeys: [][]byte{make([]byte, 32), key}}) // rotated: old key still opens
	r := a.newClient().inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, "")
	a.waitOutcome()
	state := r.Result["requestState"]
	r = b.newClient().inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"ada"}}}`, state))
	if o := b.waitOutcome(); o.err != nil || str(r.Result["resultType"]) != "complete" {
		t.Fatalf("replica b: %v %+v", o.err, r)
	}
	// A server with another key cannot open it.
	c := newFixture(t, Options{})
	r = c.newClient().inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{}`, state))
	if r.Error == nil || !strings.Contains(r.Error.Message, "not issued by this server") {
		t.Fatalf("foreign key: %+v", r)
	}
}

func TestInputRequiredMissingCapability(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "needs"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := ElicitSchema(ctx, "m", userSchema)
		return nil, err // no fallback: the runtime reports the capability
	})
	c := f.newClient()
	// The pre-checking handler falls back to a tool error.
	r := c.inputRequiredCallTool("ask", `{}`, `{}`, "")
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "missing required argument") {
		t.Errorf("fallback: %+v", r)
	}
	c.next++
	resp := c.post(inputRequiredBody(c.next, "tools/call", `"name":"needs","arguments":{}`, `{}`), inputRequiredHeaders("tools/call", "needs")...)
	body := c.expect(resp, 400)
	rr := decodeResponse(t, body)
	if rr.Error == nil || rr.Error.Code != CodeMissingCapability || string(rr.Error.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("want -32021 with requiredCapabilities: %s", body)
	}
	// A url-only client is not sent a form either.
	r = c.inputRequiredCallTool("ask", `{}`, `{"elicitation":{"url":{}}}`, "")
	if str(r.Result["resultType"]) != "complete" {
		t.Errorf("url-only client got %+v", r)
	}
}

// TestInputRequiredMultiStep: a handler that elicits twice in sequence needs
// two round trips, and the first answer travels inside requestState.
func TestInputRequiredMultiStep(t *testing.T) {
	f := newFixture(t, Options{})
	runs := 0
	f.srv.AddTool(Tool{Name: "two"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		runs++
		first, err := ElicitSchema(ctx, "first?", userSchema)
		if err != nil {
			return nil, err
		}
		second, err := ElicitSchema(ctx, "second?", userSchema)
		if err != nil {
			return nil, err
		}
		return TextResult(fmt.Sprintf("%v+%v round %d", first["username"], second["username"], req.Round)), nil
	})
	c := f.newClient()
	r := c.inputRequiredCallTool("two", `{}`, inputRequiredCapsElicit, "")
	if !strings.Contains(string(r.Result["inputRequests"]), `"elicit":`) {
		t.Fatalf("round 1: %v", r.Result)
	}
	r = c.inputRequiredCallTool("two", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"a1"}}}`, r.Result["requestState"]))
	if !strings.Contains(string(r.Result["inputRequests"]), `"elicit_2":`) || !strings.Contains(string(r.Result["inputRequests"]), "second?") {
		t.Fatalf("round 2: %v", r.Result)
	}
	r = c.inputRequiredCallTool("two", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit_2":{"action":"accept","content":{"username":"b2"}}}`, r.Result["requestState"]))
	if !strings.Contains(string(r.Result["content"]), "a1+b2 round 2") || runs != 3 {
		t.Fatalf("round 3: %v (runs %d)", r.Result, runs)
	}
}

// TestSameHandlerBothMechanisms runs one handler for a session (SSE) and a
// 2026-07-28 client (input_required) and gets the same result.
func TestSameHandlerBothMechanisms(t *testing.T) {
	f := newFixture(t, Options{})
	sessionful := f.connect("2025-11-25", elicitCaps1125)
	s, id, _ := startElicit(t, sessionful)
	defer s.close()
	sessionful.expect(sessionful.answer(id, `{"action":"accept","content":{"username":"ada"}}`), 202)
	f.waitOutcome()
	sessionText, _ := s.result()

	m := f.newClient()
	r := m.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, "")
	f.waitOutcome()
	r = m.inputRequiredCallTool("ask", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":{"action":"accept","content":{"username":"ada"}}}`, r.Result["requestState"]))
	f.waitOutcome()
	var res CallToolResult
	raw, _ := json.Marshal(r.Result)
	_ = json.Unmarshal(raw, &res)
	if len(res.Content) != 1 || res.Content[0].Text != sessionText {
		t.Fatalf("stateless %q, sessionful %q", raw, sessionText)
	}
}

// TestShutdownCancelsStuckInputRequiredCalls: a 2026-07-28 call over HTTP
// has no session, and Shutdown's deadline still cancels its context, as
// the doc says for every remaining call; Shutdown then returns, and the
// client gets the handler's error as the result.
func TestShutdownCancelsStuckInputRequiredCalls(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.newClient()
	got := make(chan rpcResponse, 1)
	go func() { got <- c.inputRequiredCallTool("block", `{}`, inputRequiredCapsElicit, "") }()
	waitFor(t, func() bool {
		f.srv.callsMu.Lock()
		defer f.srv.callsMu.Unlock()
		return f.srv.running == 1
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.srv.Shutdown(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		close(f.release)
		t.Fatal("Shutdown did not cancel the stuck 2026-07-28 call")
	}
	if o := f.waitOutcome(); !errors.Is(o.err, ErrServerShutdown) {
		t.Fatalf("the handler's context ended with %v, want ErrServerShutdown", o.err)
	}
	if r := <-got; string(r.Result["isError"]) != "true" || !strings.Contains(string(r.Result["content"]), "canceled") {
		t.Fatalf("the call's reply: %s %s, want the handler's error", r.Result["isError"], r.Result["content"])
	}
}
