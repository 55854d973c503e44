package runtime

import (
	"context"
	"errors"

	"net/http"
	"strings"
	"testing"
)

// TestAuthenticateBindsSessionsAndState: sessions and requestState belong to
// the subject that created them; a session id is never authorisation.
func TestAuthenticateBindsSessionsAndState(t *testing.T) {
	f := newFixture(t, Options{Authenticate: func(r *http.Request) (string, error) {
		user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || user == "" {
			return "", errors.New("no bearer token")
		}
		return user, nil
	}})
	anon := f.newClient()
	resp := anon.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if body := readAll(t, resp); resp.StatusCode != 401 || !strings.Contains(body, "no bearer token") {
		t.Fatalf("unauthenticated: %d %s", resp.StatusCode, body)
	}

	alice := f.newClient()
	resp = alice.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"a","version":"1"}}}`, "Authorization: Bearer alice")
	readAll(t, resp)
	alice.sid = resp.Header.Get(HeaderSessionID)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	alice.expect(alice.post(ping, "Authorization: Bearer alice"), 200)
	// Mallory has alice's session id but not her identity.
	mallory := &client{f: f, hc: alice.hc, sid: alice.sid}
	mallory.expect(mallory.post(ping, "Authorization: Bearer mallory"), 404)

	// Alice's session tells the handler who she is.
	f.srv.AddTool(Tool{Name: "whoami"}, func(_ context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult(req.Session.Subject()), nil
	})
	resp, _ = alice.callTool("whoami", `{}`, "Authorization: Bearer alice")
	if text, _ := resultText(t, alice.expect(resp, 200)); text != "alice" {
		t.Errorf("Subject %q", text)
	}

	// A 2026-07-28 requestState issued to alice does not open for mallory.
	m := f.newClient()
	m.next++
	body := m.expect(m.post(inputRequiredBody(m.next, "tools/call", `"name":"ask","arguments":{}`, inputRequiredCapsElicit), append(inputRequiredHeaders("tools/call", "ask"), "Authorization: Bearer alice")...), 200)
	f.waitOutcome()
	r := decodeResponse(t, body)
	retry := inputRequiredBody(m.next+1, "tools/call", `"name":"ask","arguments":{},`+retryExtra(`{"elicit":{"action":"accept","content":{"username":"mallory"}}}`, r.Result["requestState"]), inputRequiredCapsElicit)
	body = m.expect(m.post(retry, append(inputRequiredHeaders("tools/call", "ask"), "Authorization: Bearer mallory")...), 200)
	if rr := decodeResponse(t, body); rr.Error == nil || !strings.Contains(rr.Error.Message, "another request") {
		t.Fatalf("mallory opened alice's state: %s", body)
	}
	body = m.expect(m.post(retry, append(inputRequiredHeaders("tools/call", "ask"), "Authorization: Bearer alice")...), 200)
	if rr := decodeResponse(t, body); rr.Error != nil || str(rr.Result["resultType"]) != "complete" {
		t.Fatalf("alice's own retry: %s", body)
	}
	f.waitOutcome()

}
