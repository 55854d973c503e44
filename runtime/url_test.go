package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestElicitURL: URL mode (2025-11-25): the request carries mode, url and an
// elicitationId, only to clients that declared url; completion rides the
// call's stream; URLElicitationRequired fails a call with -32042.
func TestElicitURL(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "login"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		id, err := req.Session.ElicitURL(ctx, "Sign in to continue", "https://auth.example/start")
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
