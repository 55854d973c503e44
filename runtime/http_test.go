package runtime

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const elicitCaps1125 = `{"elicitation":{"form":{}}}`

func TestInitializeNegotiatesVersion(t *testing.T) {
	f := newFixture(t, Options{Name: "t", Version: "9"})
	for _, tc := range []struct{ asked, want string }{
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2024-11-05", "2025-11-25"},
		{"1999-01-01", "2025-11-25"},
	} {
		c := f.newClient()
		resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.asked + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		body := c.expect(resp, 200)
		var m struct {
			Result struct {
				ProtocolVersion string
				ServerInfo      struct{ Name, Version string }
				Capabilities    map[string]any
			}
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		if m.Result.ProtocolVersion != tc.want || m.Result.ServerInfo.Name != "t" || m.Result.Capabilities["tools"] == nil {
			t.Errorf("asked %s: got %s", tc.asked, body)
		}
		sid := resp.Header.Get(HeaderSessionID)
		if len(sid) != 32 || strings.Trim(sid, "0123456789abcdef") != "" {
			t.Errorf("session id %q is not 128 bits of hex", sid)
		}
	}
}

// TestStatusCodes checks every transport rule by raw HTTP.
func TestStatusCodes(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 1024, AllowedOrigins: []string{"https://app.example"}})
	c := f.connect("2025-06-18", elicitCaps1125)
	anon := f.newClient()
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	cases := []struct {
		name    string
		client  *client
		body    string
		headers []string
		status  int
		code    int // JSON-RPC error code in the body, 0 for none
	}{
		{"ping", c, ping, nil, 200, 0},
		{"forbidden origin", c, ping, []string{"Origin: https://evil.example"}, 403, CodeInvalidRequest},
		{"allowed origin", c, ping, []string{"Origin: https://app.example"}, 200, 0},
		{"loopback origin", c, ping, []string{"Origin: http://localhost:3000"}, 200, 0},
		{"rebinding host as origin", c, ping, []string{"Origin: http://attacker.test:8080", "Host: attacker.test:8080"}, 403, CodeInvalidRequest},
		{"missing session", anon, ping, nil, 400, CodeInvalidRequest},
		{"unknown session", anon, ping, []string{HeaderSessionID + ": 00000000000000000000000000000000"}, 404, CodeInvalidRequest},
		{"unsupported protocol header", c, ping, []string{HeaderProtocolVersion + ": 1999-01-01"}, 400, CodeInvalidRequest},
		{"older protocol header still accepted", c, ping, []string{HeaderProtocolVersion + ": 2025-03-26"}, 200, 0},
		{"notification", c, `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, 202, 0},
		{"response for no request", c, `{"jsonrpc":"2.0","id":"nope","result":{}}`, nil, 400, CodeInvalidRequest},
		{"wrong content type", c, ping, []string{"Content-Type: text/plain"}, 415, CodeInvalidRequest},
		{"no content type", c, ping, []string{"Content-Type:"}, 415, CodeInvalidRequest},
		{"content type with charset", c, ping, []string{"Content-Type: application/json; charset=utf-8"}, 200, 0},
		{"accept neither", c, ping, []string{"Accept: text/html"}, 406, CodeInvalidRequest},
		{"accept json only", c, ping, []string{"Accept: application/json"}, 200, 0},
		{"oversized body", c, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, nil, 413, CodeInvalidRequest},
		{"batch", c, `[` + ping + `]`, nil, 400, CodeInvalidRequest},
		{"parse error", c, `{"jsonrpc":`, nil, 400, CodeParseError},
		{"not json-rpc 2.0", c, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, CodeInvalidRequest},
		{"null id", c, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, CodeInvalidRequest},
		{"object id", c, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, 400, CodeInvalidRequest},
		{"unknown method", c, `{"jsonrpc":"2.0","id":1,"method":"nope/nope"}`, nil, 200, CodeMethodNotFound},
		{"unknown tool", c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, nil, 200, CodeInvalidParams},
		{"arguments not an object", c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":[1]}}`, nil, 200, CodeInvalidParams},
		{"re-initialize", c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{}}}`, nil, 400, CodeInvalidRequest},
		{"initialize without params", anon, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, nil, 200, CodeInvalidParams},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := tc.client.post(tc.body, tc.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 202 {
				if body != "" {
					t.Errorf("202 with a body: %q", body)
				}
				return
			}
			var m struct {
				Error *RPCError
			}
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("body is not JSON: %q", body)
			}
			got := 0
			if m.Error != nil {
				got = m.Error.Code
			}
			if got != tc.code {
				t.Errorf("error code %d, want %d: %s", got, tc.code, body)
			}
		})
	}

	t.Run("GET 405", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, f.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderSessionID, c.sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
			t.Errorf("GET: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})
	t.Run("DELETE ends the session", func(t *testing.T) {
		d := f.connect("2025-06-18", "{}")
		del := func() int {
			req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
			req.Header.Set(HeaderSessionID, d.sid)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			readAll(t, resp)
			return resp.StatusCode
		}
		if s := del(); s != 204 {
			t.Fatalf("DELETE: %d", s)
		}
		d.expect(d.post(ping), 404)
		if s := del(); s != 404 {
			t.Fatalf("second DELETE: %d", s)
		}
	})
}

func TestToolsListAndPlainCall(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", "{}")
	body := c.expect(c.post(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`), 200)
	var m struct {
		Result struct{ Tools []Tool }
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Result.Tools) != 3 || m.Result.Tools[0].Name != "ask" || string(m.Result.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Errorf("tools/list: %s", body)
	}
	resp, _ := c.callTool("plain", `{"x":1}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a call that does not elicit answers %q, want application/json", ct)
	}
	text, isErr := resultText(t, c.expect(resp, 200))
	if text != `plain {"x":1}` || isErr {
		t.Errorf("result %q isError=%v", text, isErr)
	}
}
