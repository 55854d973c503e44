package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
)

// post sends one JSON-RPC message to the fixture.
func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(runtime.HeaderSessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestEnumsElicitation checks the one hand-extended form: the client gets all
// five SEP-1330 shapes in one request, and the answer is decoded.
func TestEnumsElicitation(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{})
	addTools(srv)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(t.Context())

	resp := post(t, hs.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	resp.Body.Close()
	sid := resp.Header.Get(runtime.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}

	call := post(t, hs.URL, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation_sep1330_enums","arguments":{}}}`)
	defer call.Body.Close()
	events := bufio.NewScanner(call.Body)
	next := func() map[string]json.RawMessage {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var m map[string]json.RawMessage
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("event %q: %v", data, err)
				}
				return m
			}
		}
		t.Fatalf("stream ended: %v", events.Err())
		return nil
	}
	ask := next()
	var params struct {
		RequestedSchema struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(ask["params"], &params); err != nil {
		t.Fatal(err)
	}
	props := params.RequestedSchema.Properties
	if len(props) != 5 {
		t.Fatalf("properties %v", props)
	}
	if _, ok := props["legacyEnum"]["enumNames"]; !ok {
		t.Errorf("legacyEnum %v", props["legacyEnum"])
	}
	if _, ok := props["titledSingle"]["oneOf"]; !ok {
		t.Errorf("titledSingle %v", props["titledSingle"])
	}

	answer := `{"jsonrpc":"2.0","id":` + string(ask["id"]) + `,"result":{"action":"accept","content":{"untitledSingle":"option1","titledSingle":"value1","legacyEnum":"opt1","untitledMulti":["option1","option2"],"titledMulti":["value1","value2"]}}}`
	reply := post(t, hs.URL, sid, answer)
	reply.Body.Close()
	if reply.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: %d", reply.StatusCode)
	}
	var result struct {
		Content []runtime.Content `json:"content"`
		IsError bool              `json:"isError"`
	}
	if err := json.Unmarshal(next()["result"], &result); err != nil {
		t.Fatal(err)
	}
	want := `Elicitation completed: action=accept, content={"legacyEnum":"opt1","titledMulti":["value1","value2"],"titledSingle":"value1","untitledMulti":["option1","option2"],"untitledSingle":"option1"}`
	if result.IsError || len(result.Content) != 1 || result.Content[0].Text != want {
		t.Fatalf("result %+v", result)
	}
}
