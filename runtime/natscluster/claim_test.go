package natscluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// postOnce sends a 2026-07-28 tools/call of "once" to endpoint; extra is
// added to its params. It returns the decoded response.
func postOnce(t *testing.T, endpoint, extra string) (result map[string]json.RawMessage, rpcErr *runtime.RPCError) {
	t.Helper()
	params := `"name":"once","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	if extra != "" {
		params += "," + extra
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+params+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, runtime.Version20260728)
	req.Header.Set(runtime.HeaderMethod, "tools/call")
	req.Header.Set(runtime.HeaderName, "once")
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
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&out); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, b, err)
	}
	return out.Result, out.Error
}

// TestClaimRefusedOnEveryReplica: a 2026-07-28 call whose handler calls
// runtime.ClaimCall completes on one replica; its final round sent again
// is refused (-32602) on that replica and on the other one, through the
// NATS claim bucket, and the side effect ran once.
func TestClaimRefusedOnEveryReplica(t *testing.T) {
	top := newTopology(t, startNATS(t), 2)
	r0, r1 := top.replicas[0], top.replicas[1]
	res, rpcErr := postOnce(t, r0.url, "")
	if rpcErr != nil || string(res["resultType"]) != `"input_required"` {
		t.Fatalf("first round: %v %+v", res, rpcErr)
	}
	final := fmt.Sprintf(`"inputResponses":{"elicit":{"action":"accept","content":{"name":"x"}}},"requestState":%s`, res["requestState"])
	if res, rpcErr := postOnce(t, r0.url, final); rpcErr != nil || string(res["resultType"]) != `"complete"` {
		t.Fatalf("final round: %v %+v", res, rpcErr)
	}
	for _, r := range []*replica{r1, r0} {
		_, rpcErr := postOnce(t, r.url, final)
		if rpcErr == nil || rpcErr.Code != runtime.CodeInvalidParams || !strings.Contains(rpcErr.Message, "requestState already used") {
			t.Errorf("final round sent again to %s: %+v, want -32602 requestState already used", r.name, rpcErr)
		}
	}
	if n := r0.claimed.Load() + r1.claimed.Load(); n != 1 {
		t.Fatalf("the side effect ran %d times over the replicas, want 1", n)
	}
	js, err := jetstream.New(r0.nc)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(context.Background(), natscluster.DefaultClaimBucket)
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(context.Background())
	if err != nil || st.Values() != 1 {
		t.Fatalf("claim bucket: %v values, %v; want the one claim", st, err)
	}
	t.Logf("claim bucket: %d entry, %d bytes", st.Values(), st.Bytes())
}

// TestClaimWithNATSDown: a claim that cannot be recorded fails the call
// (-32603, retry later) rather than run it unrecorded.
func TestClaimWithNATSDown(t *testing.T) {
	ns := startNATS(t)
	top := newTopology(t, ns, 1)
	r0 := top.replicas[0]
	res, _ := postOnce(t, r0.url, "")
	ns.Shutdown()
	ns.WaitForShutdown()
	waitStatus(t, r0.nc)
	final := fmt.Sprintf(`"inputResponses":{"elicit":{"action":"accept","content":{"name":"x"}}},"requestState":%s`, res["requestState"])
	_, rpcErr := postOnce(t, r0.url, final)
	if rpcErr == nil || rpcErr.Code != runtime.CodeInternalError || !strings.Contains(rpcErr.Message, "runs once") {
		t.Fatalf("final round with NATS down: %+v, want -32603", rpcErr)
	}
	if n := r0.claimed.Load(); n != 0 {
		t.Fatalf("the side effect ran %d times without its claim recorded", n)
	}
}
