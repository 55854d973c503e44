package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// fuzzServer is a server with one session (initialize) and tools that answer at
// once, for fuzzing the message path without a network.
func fuzzServer(f *testing.F) (*Server, string) {
	srv := NewServer(Options{MaxBodyBytes: 1 << 16})
	srv.AddTool(Tool{Name: "plain"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult(string(req.Arguments)), nil
	})
	// An eliciting tool whose request cannot stream (the fuzzer's recorder
	// accepts JSON only), so Elicit must fail fast instead of waiting.
	srv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := ElicitSchema(ctx, "m", userSchema)
		return nil, err
	})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"f","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	srv.ServeHTTP(rec, req)
	sid := rec.Header().Get(HeaderSessionID)
	if sid == "" {
		f.Fatalf("no session: %s", rec.Body)
	}
	return srv, sid
}

// FuzzServeMessage feeds arbitrary bodies to the POST path of a live
// session and of a sessionless (2026-07-28) request: no panic, no hang, an
// allowed status, and a JSON body whenever one is sent.
func FuzzServeMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":{"a":[1,2,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"ask"}}`,
		`{"jsonrpc":"2.0","id":"elicit-1","result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},"inputResponses":{"elicit":{"action":"accept","content":{"username":"ab"}}},"requestState":"AAAA"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"elicit-1","result":{"action":"accept","action":"decline"}}`,
		strings.Repeat("[", 10000),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":` + strings.Repeat(`{"a":`, 2000) + `1` + strings.Repeat(`}`, 2000) + `}}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	srv, sid := fuzzServer(f)
	allowed := map[int]bool{200: true, 202: true, 400: true, 404: true, 413: true}
	f.Fuzz(func(t *testing.T, body []byte, stateless bool) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if stateless {
			req.Header.Set(HeaderProtocolVersion, "2026-07-28")
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			req.Header.Set(HeaderMethod, m.Method)
			req.Header.Set(HeaderName, m.Params.Name)
		} else {
			req.Header.Set(HeaderSessionID, sid)
		}
		srv.ServeHTTP(rec, req)
		if !allowed[rec.Code] {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Body.Len() > 0 && (!json.Valid(rec.Body.Bytes()) || !utf8.Valid(rec.Body.Bytes())) {
			t.Fatalf("a body that is not valid UTF-8 JSON %q for %q", rec.Body, body)
		}
	})
}

// FuzzOpenRequestState: whatever a client sends as requestState, opening it
// never panics and never succeeds unless this server sealed it for this
// request.
func FuzzOpenRequestState(f *testing.F) {
	codec, err := newStateCodec(nil, DefaultRequestStateTTL)
	if err != nil {
		f.Fatal(err)
	}
	good, err := codec.Seal(&roundtrip.State{Method: "tools/call", Name: "ask", ArgsDigest: roundtrip.ArgsDigest([]byte(`{}`)), Asked: []string{"elicit"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, "ask", "{}")
	f.Add(good, "ask", `{"x":1}`)
	f.Add(good[:len(good)-1], "ask", "{}")
	f.Add("", "ask", "{}")
	f.Add("!!!!", "", "")
	f.Fuzz(func(t *testing.T, state, name, args string) {
		st, err := codec.Open(state, roundtrip.Call{Method: "tools/call", Name: name, Args: []byte(args)})
		if err != nil {
			return
		}
		if state != good || st.Name != name || string(st.ArgsDigest) != string(roundtrip.ArgsDigest([]byte(args))) {
			t.Fatalf("opened a state it did not seal for this request: %q %q %q", state, name, args)
		}
	})
}
