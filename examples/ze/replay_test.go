package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
)

// addPeerRound posts one 2026-07-28 round of ze_add_peer; extra is added to
// the params.
func addPeerRound(t *testing.T, url, extra string) (result map[string]json.RawMessage, rpcErr *runtime.RPCError) {
	t.Helper()
	params := `"name":"ze_add_peer","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	if extra != "" {
		params += "," + extra
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+params+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, runtime.Version20260728)
	req.Header.Set(runtime.HeaderMethod, "tools/call")
	req.Header.Set(runtime.HeaderName, "ze_add_peer")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Result map[string]json.RawMessage
		Error  *runtime.RPCError
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	return out.Result, out.Error
}

// onlyKey is the one key of a round's inputRequests.
func onlyKey(t *testing.T, result map[string]json.RawMessage) string {
	t.Helper()
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal(result["inputRequests"], &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("want one input request: %s (%v)", result["inputRequests"], err)
	}
	for k := range reqs {
		return k
	}
	return ""
}

// TestAddPeerReplayRefused: ze_add_peer's last round (the confirmation
// answered) sent again with the same requestState is refused with -32602
// instead of adding the peer a second time.
func TestAddPeerReplayRefused(t *testing.T) {
	hs := httptest.NewServer(newServer(runtime.Options{}, 0))
	defer hs.Close()
	url := hs.URL + "/mcp"
	r1, _ := addPeerRound(t, url, "")
	peerKey := onlyKey(t, r1)
	peer := fmt.Sprintf(`%q:{"action":"accept","content":{"address":"192.0.2.9","asn":65001,"family":"ipv4-unicast","passive":false}}`, peerKey)
	r2, rpcErr := addPeerRound(t, url, fmt.Sprintf(`"inputResponses":{%s},"requestState":%s`, peer, r1["requestState"]))
	if rpcErr != nil || string(r2["resultType"]) != `"input_required"` {
		t.Fatalf("second round: %v %+v", r2, rpcErr)
	}
	final := fmt.Sprintf(`"inputResponses":{%s,%q:{"action":"accept","content":{"confirm":true}}},"requestState":%s`, peer, onlyKey(t, r2), r2["requestState"])
	r3, rpcErr := addPeerRound(t, url, final)
	if rpcErr != nil || !strings.Contains(string(r3["content"]), "added peer 192.0.2.9 AS 65001") {
		t.Fatalf("final round: %s %+v", r3["content"], rpcErr)
	}
	again, rpcErr := addPeerRound(t, url, final)
	if rpcErr == nil || rpcErr.Code != runtime.CodeInvalidParams || !strings.Contains(rpcErr.Message, "requestState already used") {
		t.Fatalf("final round sent again: %s %+v, want -32602 requestState already used", again["content"], rpcErr)
	}
}
