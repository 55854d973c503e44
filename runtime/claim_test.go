package runtime

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// addOnceTool registers "once": two questions, then ClaimCall (twice, as
// a careless handler might), then the side effect, counted.
func addOnceTool(s *Server, ran *atomic.Int32) {
	form := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	s.AddTool(Tool{Name: "once"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if _, err := ElicitSchema(ctx, "first?", form); err != nil {
			return nil, err
		}
		if _, err := ElicitSchema(ctx, "second?", form); err != nil {
			return nil, err
		}
		if err := ClaimCall(ctx); err != nil {
			return nil, err
		}
		if err := ClaimCall(ctx); err != nil {
			return nil, errors.New("a second ClaimCall in the same run failed: " + err.Error())
		}
		ran.Add(1)
		return TextResult("done"), nil
	})
}

const onceAnswer = `{"action":"accept","content":{"name":"x"}}`

// walkOnce runs the "once" call from the top to its final round and
// returns the states of its two retries.
func walkOnce(t *testing.T, c *client) (state1, state2 json.RawMessage, final rpcResponse) {
	t.Helper()
	r := c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, "")
	state1 = r.Result["requestState"]
	r = c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":`+onceAnswer+`}`, state1))
	state2 = r.Result["requestState"]
	if str(r.Result["resultType"]) != "input_required" {
		t.Fatalf("second round: %+v", r)
	}
	final = c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":`+onceAnswer+`,"elicit_2":`+onceAnswer+`}`, state2))
	return state1, state2, final
}

// TestClaimCallRefusesReplays: a 2026-07-28 call whose handler calls
// ClaimCall runs its side effect once: replaying its last round, or
// walking it again from an earlier round's requestState, gets -32602
// "requestState already used"; a new call runs again.
func TestClaimCallRefusesReplays(t *testing.T) {
	f := newFixture(t, Options{})
	var ran atomic.Int32
	addOnceTool(f.srv, &ran)
	c := f.newClient()
	state1, state2, final := walkOnce(t, c)
	if str(final.Result["resultType"]) != "complete" || ran.Load() != 1 {
		t.Fatalf("final round: %+v, ran %d", final, ran.Load())
	}
	replayed := func(what string, r rpcResponse) {
		t.Helper()
		if r.Error == nil || r.Error.Code != CodeInvalidParams || !strings.Contains(r.Error.Message, "requestState already used") {
			t.Errorf("%s: %+v, want -32602 requestState already used", what, r)
		}
	}
	replayed("the last round sent again", c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":`+onceAnswer+`,"elicit_2":`+onceAnswer+`}`, state2)))
	r := c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":`+onceAnswer+`}`, state1))
	replayed("the call walked again from its first state", c.inputRequiredCallTool("once", `{}`, inputRequiredCapsElicit, retryExtra(`{"elicit":`+onceAnswer+`,"elicit_2":`+onceAnswer+`}`, r.Result["requestState"])))
	if ran.Load() != 1 {
		t.Fatalf("the side effect ran %d times, want 1", ran.Load())
	}
	if _, _, final := walkOnce(t, c); str(final.Result["resultType"]) != "complete" || ran.Load() != 2 {
		t.Fatalf("a new call: %+v, ran %d, want it to run", final, ran.Load())
	}
	if err := ClaimCall(context.Background()); !errors.Is(err, ErrNoCall) {
		t.Errorf("ClaimCall outside a call: %v, want ErrNoCall", err)
	}
}

// TestClaimCallFull: past Options.MaxClaimedCalls live claims, a call is
// refused as busy (-32603) rather than run without its claim recorded.
func TestClaimCallFull(t *testing.T) {
	f := newFixture(t, Options{MaxClaimedCalls: 1})
	var ran atomic.Int32
	addOnceTool(f.srv, &ran)
	c := f.newClient()
	if _, _, final := walkOnce(t, c); str(final.Result["resultType"]) != "complete" {
		t.Fatalf("first call: %+v", final)
	}
	if _, _, final := walkOnce(t, c); final.Error == nil || final.Error.Code != CodeInternalError || !strings.Contains(final.Error.Message, "runs once") {
		t.Fatalf("a call past MaxClaimedCalls: %+v, want -32603", final)
	}
	if ran.Load() != 1 {
		t.Fatalf("ran %d, want 1", ran.Load())
	}
}

// TestClaimCost reports what a claim costs in this process: allocations
// per claim and bytes per recorded call, and bounds them.
func TestClaimCost(t *testing.T) {
	var cs claimSet
	const n = 100000
	nonces := make([][roundtrip.NonceSize]byte, n)
	for i := range nonces {
		_, _ = rand.Read(nonces[i][:])
	}
	exp := time.Now().Add(time.Hour)
	before := liveHeap()
	for _, k := range nonces {
		if fresh, ok := cs.claim(k, exp, n); !fresh || !ok {
			t.Fatal("a fresh nonce was not claimed")
		}
	}
	perEntry := float64(liveHeap()-before) / n
	var i int
	allocs := testing.AllocsPerRun(1000, func() {
		cs.claim(nonces[i%n], exp, n) // a replay: found, not added
		i++
	})
	t.Logf("%d claims: %.0f bytes per recorded call; a replayed claim: %.0f allocations", n, perEntry, allocs)
	if perEntry > 64 || allocs != 0 {
		t.Errorf("%.0f bytes per claim (want at most 64), %.0f allocations per replay check (want 0)", perEntry, allocs)
	}
	if len(cs.m) != n {
		t.Fatalf("%d entries, want %d", len(cs.m), n)
	}
}

// BenchmarkRoundTripInputRequiredClaimed is BenchmarkRoundTripInputRequired
// with a handler that calls ClaimCall after its Elicit: against it, the
// cost of counting a call once (one claim per round trip, in this process).
func BenchmarkRoundTripInputRequiredClaimed(b *testing.B) {
	srv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1, MaxClaimedCalls: 1 << 30})
	defer srv.Shutdown(context.Background())
	srv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		form, err := Elicit[testform.AskForm](ctx, "Name and count?")
		if err != nil {
			return nil, err
		}
		if err := ClaimCall(ctx); err != nil {
			return nil, err
		}
		return TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
	})
	benchInputRequiredHTTP(b, srv)
}
