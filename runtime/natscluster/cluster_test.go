package natscluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/go-elicit/elicit/runtime/cluster"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// workload is S sessions × C eliciting calls, P at a time per session.
type workload struct{ sessions, calls, parallel int }

func (w workload) total() int { return w.sessions * w.calls }

// sessionWorkload is 1,000 elicitations across 100 sessions (200 with -short).
func sessionWorkload() workload {
	if testing.Short() {
		return workload{sessions: 20, calls: 10, parallel: 2}
	}
	return workload{sessions: 100, calls: 10, parallel: 2}
}

// answerTag answers an "ask" elicitation with the tag its message carries,
// so a result proves the answer reached the right handler.
func answerTag(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
	tag, ok := strings.CutPrefix(p.Message, "tag:")
	if !ok {
		return mcpclient.ElicitResult{}, fmt.Errorf("unexpected elicitation %q", p.Message)
	}
	content, _ := json.Marshal(map[string]string{"name": tag})
	return mcpclient.ElicitResult{Action: "accept", Content: content}, nil
}

// runSession drives w through endpoint with mcpclient sessions and returns
// how many calls completed correctly and the first failures.
func runSession(t *testing.T, endpoint, protocol string, w workload) (ok int64, failures []error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var done atomic.Int64
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		if len(failures) < 5 {
			failures = append(failures, err)
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for s := range w.sessions {
		wg.Go(func() {
			c, err := mcpclient.Connect(ctx, mcpclient.Options{
				URL:          endpoint,
				Protocol:     protocol,
				Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
				OnElicit:     answerTag,
			})
			if err != nil {
				fail(fmt.Errorf("session %d: connect: %w", s, err))
				return
			}
			defer c.Close()
			sem := make(chan struct{}, w.parallel)
			var cw sync.WaitGroup
			for i := range w.calls {
				sem <- struct{}{}
				cw.Go(func() {
					defer func() { <-sem }()
					tag := fmt.Sprintf("s%d-c%d", s, i)
					res, err := c.CallTool(ctx, "ask", json.RawMessage(fmt.Sprintf(`{"tag":%q}`, tag)))
					switch {
					case err != nil:
						fail(fmt.Errorf("%s: %w", tag, err))
					case res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "hello "+tag+" from "):
						fail(fmt.Errorf("%s: wrong result %s", tag, res.Raw))
					default:
						done.Add(1)
					}
				})
			}
			cw.Wait()
		})
	}
	wg.Wait()
	return done.Load(), failures
}

func forwarded(top *topology) int64 {
	var n int64
	for _, r := range top.replicas {
		if r.cl != nil {
			n += r.cl.forwarded.Load()
		}
	}
	return n
}

// Every elicitation of a session completes through a proxy without stickiness:
// sessions are adopted from the directory and answers are forwarded to the
// replica whose handler waits for them.
func TestSessionElicitationsThroughRoundRobin(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	w := sessionWorkload()
	ok, failures := runSession(t, top.url, runtime.Version20251125, w)
	lost := int64(w.total()) - ok
	t.Logf("sessionful with the cluster: %d elicitations, %d completed, lost=%d, %d answers forwarded between replicas", w.total(), ok, lost, forwarded(top))
	if lost != 0 {
		t.Fatalf("lost=%d, want 0; first failures: %v", lost, failures)
	}
	if forwarded(top) == 0 {
		t.Fatal("no answer was forwarded: the proxy did not spread the traffic")
	}
	// Each client's Close is a DELETE on some replica; its broadcast ends
	// the views on the others as it arrives.
	deadline := time.Now().Add(3 * time.Second)
	for _, r := range top.replicas {
		for r.srv.SessionCount() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("replica %s still holds %d sessions 3s after every client closed (DELETE must end them everywhere)", r.name, r.srv.SessionCount())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// The same workload without a cluster: what it prevents.
func TestSessionWithoutClusterLosesAnswers(t *testing.T) {
	top := newTopology(t, nil, 3)
	w := sessionWorkload()
	ok, failures := runSession(t, top.url, runtime.Version20251125, w)
	lost := int64(w.total()) - ok
	t.Logf("sessionful without the cluster: %d elicitations, %d completed, lost=%d; e.g. %v", w.total(), ok, lost, failures[:min(len(failures), 2)])
	if lost == 0 {
		t.Fatal("lost=0 without a cluster: the test does not exercise cross-replica routing")
	}
}

// 2026-07-28 calls need no cluster, only the shared RequestStateKeys: the
// input_required retry is served by whichever replica it reaches.
func TestInputRequiredCallsAnyReplica(t *testing.T) {
	for _, clustered := range []bool{true, false} {
		t.Run(fmt.Sprintf("cluster=%v", clustered), func(t *testing.T) {
			var top *topology
			if clustered {
				top = newTopology(t, startNATS(t), 3)
			} else {
				top = newTopology(t, nil, 3)
			}
			w := workload{sessions: 10, calls: 10, parallel: 2}
			ok, failures := runSession(t, top.url, runtime.Version20260728, w)
			if lost := int64(w.total()) - ok; lost != 0 {
				t.Fatalf("stateless: lost=%d of %d; first failures: %v", lost, w.total(), failures)
			}
			served := 0
			for _, r := range top.replicas {
				if len(r.outcomes) > 0 {
					served++
				}
			}
			if served < 2 {
				t.Fatalf("retries were answered by %d replica(s); the proxy should spread them", served)
			}
		})
	}
}

// callWaitingElsewhere starts three clustered replicas, opens a session on
// the first and leaves a call waiting for its elicitation answer on the
// third; the client and the call's stream close with the test.
func callWaitingElsewhere(t *testing.T) (*topology, *rawClient, *http.Response, *bufio.Reader) {
	t.Helper()
	top := newTopology(t, startNATS(t), 3)
	cl := newRawClient()
	t.Cleanup(cl.close)
	if err := cl.initialize(top.replicas[0].url); err != nil {
		t.Fatal(err)
	}
	resp, br, _, err := cl.call(top.replicas[2].url, "x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return top, cl, resp, br
}

// DELETE on one replica wakes an elicitation waiting on another, and the
// session is gone everywhere.
func TestDeleteElsewhereWakesWaiter(t *testing.T) {
	top, cl, resp, br := callWaitingElsewhere(t)
	b, c := top.replicas[1], top.replicas[2]
	del, err := cl.do(http.MethodDelete, b.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	del.Body.Close()
	if del.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on b: %s", del.Status)
	}
	if err := c.waitOutcome(t); !errors.Is(err, runtime.ErrSessionClosed) {
		t.Fatalf("the waiter on c got %v, want ErrSessionClosed", err)
	}
	if _, err := result(resp, br); err == nil || !strings.Contains(err.Error(), "session closed") {
		t.Fatalf("the call's stream ended with %v, want the session-closed tool error", err)
	}
	// The end is a broadcast: a replica that holds a view of the session
	// drops it as the message arrives, within milliseconds.
	for _, r := range top.replicas {
		deadline := time.Now().Add(2 * time.Second)
		for {
			p, err := cl.do(http.MethodPost, r.url, []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			p.Body.Close()
			if p.StatusCode == http.StatusNotFound {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("ping on %s 2s after DELETE: %s, want 404", r.name, p.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// A client's notifications/cancelled that lands on another replica than the
// call it names reaches that call: its handler's context ends.
func TestCancelElsewhereReachesTheCall(t *testing.T) {
	top, cl, _, _ := callWaitingElsewhere(t)
	a, b, c := top.replicas[0], top.replicas[1], top.replicas[2]
	cancel, err := cl.do(http.MethodPost, b.url, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user hit stop"}}`, cl.n)))
	if err != nil {
		t.Fatal(err)
	}
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled on b: %s", cancel.Status)
	}
	if err := c.waitOutcome(t); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "user hit stop") {
		t.Fatalf("the waiter on c got %v, want the client's cancel", err)
	}
	// A cancel for a request no replica runs changes nothing and still
	// gets 202 (a notification has no answer).
	stray, err := cl.do(http.MethodPost, a.url, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}`))
	if err != nil {
		t.Fatal(err)
	}
	stray.Body.Close()
	if stray.StatusCode != http.StatusAccepted {
		t.Fatalf("stray cancel: %s", stray.Status)
	}
}

// Any replica serves tools/list and ping of a session it never saw; a
// forged or unknown session id is still 404.
func TestSessionAdoptedAnywhere(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	ctx := context.Background()
	c, err := mcpclient.Connect(ctx, mcpclient.Options{URL: top.url, Protocol: runtime.Version20250618})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 6 {
		if _, err := c.ListTools(ctx); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if err := c.Ping(ctx); err != nil {
			t.Fatalf("ping: %v", err)
		}
	}
	raw := newRawClient()
	defer raw.close()
	for _, sid := range []string{strings.Repeat("0", 32), "not-a-session", strings.Repeat("z", 32)} {
		raw.sid = sid
		resp, err := raw.do(http.MethodPost, top.replicas[1].url, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("session %q: %s, want 404", sid, resp.Status)
		}
	}
}

// An answer nobody waits for is 400 on any replica, as on one process.
func TestUnknownAnswerIs400(t *testing.T) {
	top := newTopology(t, startNATS(t), 2)
	cl := newRawClient()
	defer cl.close()
	if err := cl.initialize(top.replicas[0].url); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"elicit-r0.00ff", "elicit-r1.00ff", "elicit-nobody.00ff", "whatever"} {
		status, body, err := cl.answer(top.replicas[1].url, id, "x")
		if err != nil {
			t.Fatal(err)
		}
		if id == "elicit-nobody.00ff" {
			if status != http.StatusBadGateway || !strings.Contains(body, "unreachable") {
				t.Errorf("answer %q for a replica that does not exist: %d %s, want 502 unreachable", id, status, body)
			}
			continue
		}
		if status != http.StatusBadRequest || !strings.Contains(body, "no pending request") {
			t.Errorf("answer %q: %d %s, want 400 no pending request", id, status, body)
		}
	}
}

// A replica that dies mid-elicitation loses only its own calls: the answer
// for it gets a clear 502, other calls keep completing.
func TestReplicaDeathAffectsOnlyItsCalls(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	a, b, c := top.replicas[0], top.replicas[1], top.replicas[2]
	cl := newRawClient()
	defer cl.close()
	if err := cl.initialize(a.url); err != nil {
		t.Fatal(err)
	}
	doomed, _, doomedID, err := cl.call(c.url, "doomed")
	if err != nil {
		t.Fatal(err)
	}
	defer doomed.Body.Close()
	alive, aliveBR, aliveID, err := cl.call(b.url, "alive")
	if err != nil {
		t.Fatal(err)
	}
	c.stop()
	status, body, err := cl.answer(a.url, doomedID, "x")
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusBadGateway || !strings.Contains(body, `replica \"r2\"`) {
		t.Errorf("answer for the dead replica: %d %s, want 502 naming r2", status, body)
	}
	if status, body, err := cl.answer(a.url, aliveID, "alive"); err != nil || status != http.StatusAccepted {
		t.Fatalf("answer forwarded to b: %d %s %v", status, body, err)
	}
	if text, err := result(alive, aliveBR); err != nil || text != "hello alive from r1" {
		t.Fatalf("the call on b: %q %v", text, err)
	}
}

// With NATS down, requests that stay on one replica still work; those
// that need another replica get clear 503s.
func TestNATSDown(t *testing.T) {
	ns := startNATS(t)
	top := newTopology(t, ns, 2)
	a, b := top.replicas[0], top.replicas[1]

	known := newRawClient() // a session b adopted while NATS was up
	defer known.close()
	if err := known.initialize(a.url); err != nil {
		t.Fatal(err)
	}
	if resp, err := known.do(http.MethodPost, b.url, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("ping on b with NATS up: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	ns.Shutdown()
	ns.WaitForShutdown()
	waitStatus(t, a.nc, b.nc)

	// One replica, start to end: initialize, elicit, answer, result.
	solo := newRawClient()
	defer solo.close()
	if err := solo.initialize(a.url); err != nil {
		t.Fatalf("initialize on a with NATS down: %v", err)
	}
	resp, br, id, err := solo.call(a.url, "solo")
	if err != nil {
		t.Fatal(err)
	}
	if status, body, err := solo.answer(a.url, id, "solo"); err != nil || status != http.StatusAccepted {
		t.Fatalf("local answer with NATS down: %d %s %v", status, body, err)
	}
	if text, err := result(resp, br); err != nil || text != "hello solo from r0" {
		t.Fatalf("local call with NATS down: %q %v", text, err)
	}
	// The same through mcpclient, straight to a.
	mc, err := mcpclient.Connect(context.Background(), mcpclient.Options{
		URL: a.url, Protocol: runtime.Version20251125,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}}, OnElicit: answerTag,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := mc.CallTool(context.Background(), "ask", json.RawMessage(`{"tag":"m"}`)); err != nil || res.IsError {
		t.Fatalf("mcpclient on one replica with NATS down: %v %v", res, err)
	}
	_ = mc.Close()

	// A session b never saw: 503, naming the directory.
	solo.n = 10
	p, err := solo.do(http.MethodPost, b.url, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(p)
	if p.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "session directory unavailable") {
		t.Errorf("unknown session on b with NATS down: %s %s, want 503 session directory unavailable", p.Status, body)
	}

	// An answer that must be forwarded: 503 naming the replica; the same
	// answer on the right replica still resolves the call.
	resp, br, id, err = known.call(a.url, "known")
	if err != nil {
		t.Fatal(err)
	}
	status, text, err := known.answer(b.url, id, "known")
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusServiceUnavailable || !strings.Contains(text, `cannot forward the answer to replica \"r0\"`) || !strings.Contains(text, "cluster unavailable") {
		t.Errorf("forwarded answer with NATS down: %d %s, want 503 cannot forward", status, text)
	}
	if status, body, err := known.answer(a.url, id, "known"); err != nil || status != http.StatusAccepted {
		t.Fatalf("answer on its own replica: %d %s %v", status, body, err)
	}
	if text, err := result(resp, br); err != nil || text != "hello known from r0" {
		t.Fatalf("call after NATS went down: %q %v", text, err)
	}

	// DELETE still ends the session here, and says the cluster was not told.
	d, err := known.do(http.MethodDelete, a.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(d); d.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "could not be told") {
		t.Errorf("DELETE with NATS down: %s %s", d.Status, body)
	}
}

func readAll(resp *http.Response) string {
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// waitStatus waits until every connection has noticed the server is gone.
func waitStatus(t *testing.T, conns ...*nats.Conn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, nc := range conns {
		for nc.IsConnected() {
			if time.Now().After(deadline) {
				t.Fatal("nats connection still up 10s after the server stopped")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestNewOptions(t *testing.T) {
	if _, err := natscluster.New(context.Background(), natscluster.Options{Replica: "a"}); !errors.Is(err, natscluster.ErrInvalidOptions) {
		t.Errorf("no Conn: %v", err)
	}
	ns := startNATS(t)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, bad := range []string{"", "a.b", "a b", "*", strings.Repeat("x", 65)} {
		if _, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: bad}); !errors.Is(err, natscluster.ErrInvalidOptions) {
			t.Errorf("replica %q: %v, want ErrInvalidOptions", bad, err)
		}
	}
	cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Lookup(context.Background(), strings.Repeat("a", 32)); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Errorf("lookup of an unknown session: %v", err)
	}
	if err := cl.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := cl.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	nc.Close()
	if _, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: "b"}); !errors.Is(err, cluster.ErrUnavailable) {
		t.Errorf("closed connection: %v, want cluster.ErrUnavailable", err)
	}
}

// Exactly the loss of the issue: the session and its calls stay on one
// replica (as with sticky requests), only the answer POSTs are spread.
// Without the cluster two answers in three land on a replica that does not
// know the session (404) and their calls never finish; with it none is lost.
func TestSpreadAnswersOnly(t *testing.T) {
	const n = 60
	for _, clustered := range []bool{true, false} {
		t.Run(fmt.Sprintf("cluster=%v", clustered), func(t *testing.T) {
			var top *topology
			if clustered {
				top = newTopology(t, startNATS(t), 3)
			} else {
				top = newTopology(t, nil, 3)
			}
			home := top.replicas[0]
			cl := newRawClient()
			defer cl.close()
			if err := cl.initialize(home.url); err != nil {
				t.Fatal(err)
			}
			lost := 0
			for i := range n {
				tag := fmt.Sprintf("a%d", i)
				resp, br, id, err := cl.call(home.url, tag)
				if err != nil {
					t.Fatal(err)
				}
				status, body, err := cl.answer(top.url, id, tag)
				if err != nil {
					t.Fatal(err)
				}
				if status != http.StatusAccepted {
					if clustered || status != http.StatusNotFound {
						t.Errorf("answer %d: %d %s", i, status, body)
					}
					lost++
					// Hanging up no longer cancels a call whose reply is a
					// stream (it waits to be resumed): cancel it, or it
					// would wait for ElicitTimeout.
					cancel, err := cl.do(http.MethodPost, home.url, fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, cl.n))
					if err != nil {
						t.Fatal(err)
					}
					cancel.Body.Close()
					resp.Body.Close()
					continue
				}
				if text, err := result(resp, br); err != nil || text != "hello "+tag+" from r0" {
					t.Errorf("call %d: %q %v", i, text, err)
					lost++
				}
			}
			t.Logf("cluster=%v: %d answers through the round-robin proxy, lost=%d", clustered, n, lost)
			switch {
			case clustered && lost != 0:
				t.Fatalf("lost=%d with the cluster, want 0", lost)
			case !clustered && lost == 0:
				t.Fatal("lost=0 without the cluster: the proxy did not spread the answers")
			}
		})
	}
}
