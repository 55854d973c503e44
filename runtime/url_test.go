package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestElicitURL: URL mode (2025-11-25): the request carries mode, url and an
// elicitationId, only to clients that declared url; completion rides the
// call's stream; URLElicitationRequired fails a call with -32042.
func TestElicitURL(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		id, err := ElicitURL(ctx, "Sign in to continue", "https://auth.example/start")
		f.outcomes <- outcome{err: err}
		if err != nil {
			return nil, err
		}
		if err := req.Session.CompleteURLElicitation(ctx, id); err != nil {
			return nil, err
		}
		return TextResult("signed in " + id), nil
	})
	f.srv.AddTool(Tool{Name: "needs-login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return nil, URLElicitationRequired("sign in first", URLElicitation{ElicitationID: "e1", URL: "https://auth.example/e1", Message: "Sign in"})
	})

	c := f.connect("2025-11-25", `{"elicitation":{"url":{}}}`)
	resp, _ := c.callTool("login", `{}`)
	s := openStream(t, resp)
	defer s.close()
	id, params := s.elicitation()
	if params["mode"] != "url" || params["url"] != "https://auth.example/start" || params["elicitationId"] == "" || params["requestedSchema"] != nil {
		t.Fatalf("params %v", params)
	}
	c.expect(c.answer(id, `{"action":"accept"}`), 202)
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("err %v", o.err)
	}
	ev := s.mustNext()
	if ev.msg["method"] != "notifications/elicitation/complete" || ev.msg["params"].(map[string]any)["elicitationId"] != params["elicitationId"] {
		t.Fatalf("want the completion notification, got %s", ev.data)
	}
	if text, isErr := s.result(); isErr || !strings.HasPrefix(text, "signed in ") {
		t.Errorf("result %q", text)
	}

	// A client that declared only forms is never sent a URL.
	formOnly := f.connect("2025-11-25", `{"elicitation":{"form":{}}}`)
	r2, _ := formOnly.callTool("login", `{}`)
	if text, isErr := resultText(t, formOnly.expect(r2, 200)); !isErr || !strings.Contains(text, "url elicitation") {
		t.Errorf("form-only client: %q", text)
	}
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitUnsupported) {
		t.Errorf("err %v", o.err)
	}

	// -32042 carries the URL elicitations the client must complete.
	r3, _ := c.callTool("needs-login", `{}`)
	var m struct{ Error *RPCError }
	if err := json.Unmarshal([]byte(c.expect(r3, 200)), &m); err != nil || m.Error == nil || m.Error.Code != CodeURLElicitationRequired ||
		string(m.Error.Data) != `{"elicitations":[{"elicitationId":"e1","message":"Sign in","mode":"url","url":"https://auth.example/e1"}]}` {
		t.Fatalf("-32042: %+v", m.Error)
	}
}

const inputRequiredCapsURL = `{"elicitation":{"form":{},"url":{}}}`

// TestInputRequiredElicitURL: on 2026-07-28 ElicitURL is an input_required
// round trip under a key that is the same on every run ("url"), with no
// elicitationId; the retry's accept or decline reaches the rerun handler.
func TestInputRequiredElicitURL(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if _, err := ElicitURL(ctx, "Sign in to continue", "https://auth.example/start"); err != nil {
			return nil, err
		}
		return TextResult("signed in"), nil
	})
	c := f.newClient()
	for _, tc := range []struct{ action, want string }{{"accept", "signed in"}, {"decline", "declined"}} {
		r := c.inputRequiredCallTool("login", `{}`, inputRequiredCapsURL, "")
		var reqs map[string]struct {
			Method string
			Params map[string]any
		}
		if err := json.Unmarshal(r.Result["inputRequests"], &reqs); err != nil || len(reqs) != 1 {
			t.Fatalf("round 1: %v (%v)", r.Result, err)
		}
		p := reqs["url"].Params
		if reqs["url"].Method != "elicitation/create" || p["mode"] != "url" || p["url"] != "https://auth.example/start" || p["message"] != "Sign in to continue" {
			t.Fatalf("url request %+v", reqs)
		}
		if _, ok := p["elicitationId"]; ok {
			t.Errorf("2026-07-28 has no elicitationId: %v", p)
		}
		r = c.inputRequiredCallTool("login", `{}`, inputRequiredCapsURL, retryExtra(`{"url":{"action":"`+tc.action+`"}}`, r.Result["requestState"]))
		if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), tc.want) {
			t.Errorf("%s: %v", tc.action, r.Result)
		}
	}
	// A client without the url capability: -32021 naming it.
	c.next++
	body := c.expect(c.post(inputRequiredBody(c.next, "tools/call", `"name":"login","arguments":{}`, `{"elicitation":{"form":{}}}`), inputRequiredHeaders("tools/call", "login")...), 400)
	if r := decodeResponse(t, body); r.Error == nil || r.Error.Code != CodeMissingCapability || !strings.Contains(string(r.Error.Data), `"url"`) {
		t.Errorf("form-only client: %s", body)
	}
}

// TestURLElicitationRequiredEveryProtocol: a handler that returns
// URLElicitationRequired gets -32042 only where that code exists (2025-11-25
// with url); on 2026-07-28 the URLs become an input_required round trip
// (asked again while the handler still needs them, an isError result once
// declined, -32021 without the capability); elsewhere an isError result.
func TestURLElicitationRequiredEveryProtocol(t *testing.T) {
	f := newFixture(t, Options{})
	var signedIn atomic.Bool
	runs := 0
	f.srv.AddTool(Tool{Name: "needs-login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		runs++
		if !signedIn.Load() {
			return nil, URLElicitationRequired("sign in first",
				URLElicitation{ElicitationID: "e1", URL: "https://auth.example/e1", Message: "Sign in"},
				URLElicitation{ElicitationID: "e2", URL: "https://pay.example/e2", Message: "Confirm the payment"})
		}
		return TextResult(fmt.Sprintf("done after %d runs, round %d", runs, req.Round)), nil
	})
	c := f.newClient()
	urlRequests := func(r rpcResponse) map[string]string {
		t.Helper()
		var reqs map[string]struct{ Params map[string]any }
		if err := json.Unmarshal(r.Result["inputRequests"], &reqs); err != nil || str(r.Result["resultType"]) != "input_required" {
			t.Fatalf("want input_required: %v %+v", r.Result, r.Error)
		}
		got := map[string]string{}
		for k, v := range reqs {
			if v.Params["mode"] != "url" {
				t.Fatalf("%s: %v", k, v.Params)
			}
			got[k] = v.Params["url"].(string)
		}
		return got
	}

	r := c.inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, "")
	if got := urlRequests(r); got["url_required"] != "https://auth.example/e1" || got["url_required_2"] != "https://pay.example/e2" || len(got) != 2 {
		t.Fatalf("round 1 asks %v", got)
	}
	// Accepted, but the handler still needs them: asked again, next keys.
	r = c.inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, retryExtra(`{"url_required":{"action":"accept"},"url_required_2":{"action":"accept"}}`, r.Result["requestState"]))
	if got := urlRequests(r); got["url_required_3"] != "https://auth.example/e1" || got["url_required_4"] != "https://pay.example/e2" || len(got) != 2 {
		t.Fatalf("round 2 asks %v", got)
	}
	signedIn.Store(true)
	r = c.inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, retryExtra(`{"url_required_3":{"action":"accept"},"url_required_4":{"action":"accept"}}`, r.Result["requestState"]))
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "done after 3 runs, round 2") {
		t.Fatalf("round 3: %v", r.Result)
	}

	// Declined: the call ends with an isError result.
	signedIn.Store(false)
	r = c.inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, "")
	urlRequests(r)
	r = c.inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, retryExtra(`{"url_required":{"action":"accept"},"url_required_2":{"action":"decline"}}`, r.Result["requestState"]))
	if str(r.Result["resultType"]) != "complete" || string(r.Result["isError"]) != "true" || !strings.Contains(string(r.Result["content"]), "sign in first") {
		t.Fatalf("declined: %v", r.Result)
	}

	// 2026-07-28 without the url capability: -32021.
	c.next++
	body := c.expect(c.post(inputRequiredBody(c.next, "tools/call", `"name":"needs-login","arguments":{}`, inputRequiredCapsElicit), inputRequiredHeaders("tools/call", "needs-login")...), 400)
	if r := decodeResponse(t, body); r.Error == nil || r.Error.Code != CodeMissingCapability || !strings.Contains(string(r.Error.Data), `"url"`) {
		t.Errorf("form-only stateless client: %s", body)
	}

	// Sessions that cannot be sent URLs get an isError result, never
	// the -32042 their protocol does not define.
	for _, tc := range []struct{ version, caps string }{{"2025-06-18", `{"elicitation":{}}`}, {"2025-11-25", `{"elicitation":{"form":{}}}`}} {
		lc := f.connect(tc.version, tc.caps)
		resp, _ := lc.callTool("needs-login", `{}`)
		if text, isErr := resultText(t, lc.expect(resp, 200)); !isErr || !strings.Contains(text, "sign in first") {
			t.Errorf("%s %s: %q", tc.version, tc.caps, text)
		}
	}
}

// TestURLRequiredAnswersOfferedUpFront: a first request that offers many
// accepted answers up front gets them ignored (nothing was asked yet): the
// URL interaction is asked, once, and none of them is sealed.
func TestURLRequiredAnswersOfferedUpFront(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "needs-login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return nil, URLElicitationRequired("sign in first", URLElicitation{ElicitationID: "e1", URL: "https://auth.example/e1", Message: "Sign in"})
	})
	var b strings.Builder
	b.WriteString(`{"url_required":{"action":"accept"}`)
	for i := 2; i <= 5000; i++ {
		fmt.Fprintf(&b, `,"url_required_%d":{"action":"accept"}`, i)
	}
	b.WriteString("}")
	r := f.newClient().inputRequiredCallTool("needs-login", `{}`, inputRequiredCapsURL, `"inputResponses":`+b.String())
	if str(r.Result["resultType"]) != "input_required" || string(r.Result["inputRequests"]) != `{"url_required":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://auth.example/e1"}}}` || len(r.Result["requestState"]) > 200 {
		t.Fatalf("got %v", r.Result)
	}
}
