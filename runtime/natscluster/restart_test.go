package natscluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/cluster"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// What a restart of nats-server does to the cluster (package doc, "NATS
// restarts"): the server is stopped and a new one started on the same port
// with the same store directory, while the replicas keep running.

// restartNATS restarts top's NATS server (see restartServer) with the
// replicas of the proxy running.
func restartNATS(t *testing.T, top *topology, down func()) {
	t.Helper()
	conns := make([]*nats.Conn, len(top.replicas))
	for i, r := range top.replicas {
		conns[i] = r.nc
	}
	top.ns = restartServer(t, top.ns, conns, down)
}

// restartServer stops ns, waits until every connection noticed, and starts
// a new server on the same port and store directory; down runs while NATS
// is down (nil: nothing). It returns the new server once every connection
// is back.
func restartServer(t *testing.T, ns *server.Server, conns []*nats.Conn, down func()) *server.Server {
	t.Helper()
	port := ns.Addr().(*net.TCPAddr).Port
	storeDir := ns.JetStreamConfig().StoreDir
	ns.Shutdown()
	ns.WaitForShutdown()
	waitStatus(t, conns...)
	if down != nil {
		down()
	}
	ns = startNATSAt(t, port, storeDir)
	deadline := time.Now().Add(10 * time.Second)
	for _, nc := range conns {
		for !nc.IsConnected() {
			if time.Now().After(deadline) {
				t.Fatalf("connection %s not back 10s after NATS came back", nc.Opts.Name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return ns
}

// ping sends a ping of c's session to endpoint and returns the status.
func (c *rawClient) ping(t *testing.T, endpoint string) int {
	t.Helper()
	resp, err := c.do(http.MethodPost, endpoint, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// eventually polls f every 20ms until it is true or within passes.
func eventually(within time.Duration, f func() bool) bool {
	deadline := time.Now().Add(within)
	for !f() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// recoveryBound is how long the cluster may take to serve again after NATS
// came back (loaded CI machines under -race included).
const recoveryBound = 10 * time.Second

// With file storage (the default) a NATS restart loses no session: one
// whose replica stopped before the restart (so that nobody publishes it
// again) is still found by a replica that never saw it, every session works
// on every replica, and new sessions elicit through the round-robin proxy.
func TestNATSRestartFileStorageLosesNothing(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	orphan := top.startReplica("r9") // not behind the proxy
	held := newRawClient()           // a session of a replica that keeps running
	defer held.close()
	if err := held.initialize(top.replicas[0].url); err != nil {
		t.Fatal(err)
	}
	gone := newRawClient() // a session of a replica that stops before NATS
	defer gone.close()
	if err := gone.initialize(orphan.url); err != nil {
		t.Fatal(err)
	}
	orphan.stop()

	restartNATS(t, top, nil)

	for _, c := range []*rawClient{held, gone} {
		for _, r := range top.replicas {
			if !eventually(recoveryBound, func() bool { return c.ping(t, r.url) == http.StatusOK }) {
				t.Errorf("session %s on %s after the restart: ping is %d, want 200", c.sid, r.name, c.ping(t, r.url))
			}
		}
	}
	w := workload{sessions: 4, calls: 5, parallel: 2}
	if ok, failures := runSession(t, top.url, runtime.Version20251125, w); ok != int64(w.total()) {
		t.Fatalf("new sessions after the restart: %d of %d calls completed; first failures: %v", ok, w.total(), failures)
	}
}

// A restart shorter than ReconnectGrace costs latency, not requests: a
// request for a session this replica has never seen, and an initialize,
// sent while NATS is down wait for it to come back and succeed, and the
// session initialized meanwhile is in the directory for every replica.
func TestNATSRestartWithinGraceLosesNothing(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	held := newRawClient() // served by r0 only
	defer held.close()
	if err := held.initialize(top.replicas[0].url); err != nil {
		t.Fatal(err)
	}
	fresh := newRawClient()
	defer fresh.close()
	var wg sync.WaitGroup
	var pingDuring int
	var initErr error
	restartNATS(t, top, func() {
		wg.Add(2)
		go func() { defer wg.Done(); pingDuring = held.ping(t, top.replicas[2].url) }()
		go func() { defer wg.Done(); initErr = fresh.initialize(top.replicas[1].url) }()
		time.Sleep(200 * time.Millisecond) // both wait for NATS now
	})
	wg.Wait()
	if pingDuring != http.StatusOK {
		t.Errorf("a session r0 served, on r2 while NATS restarted: %d, want 200", pingDuring)
	}
	if initErr != nil {
		t.Fatalf("initialize while NATS restarted: %v", initErr)
	} else if got := fresh.ping(t, top.replicas[2].url); got != http.StatusOK {
		t.Errorf("the session initialized while NATS restarted, on another replica: %d, want 200", got)
	}
}

// With memory storage a NATS restart empties the buckets: new sessions work
// again within a bounded time without restarting any replica, a session a
// running replica initialized or served is written again (a replica that
// never saw it finds it), and a session that only a replica stopped before
// the restart served is lost (404), as the package doc says.
func TestNATSRestartMemoryStorageRecovers(t *testing.T) {
	top := newTopologyStorage(t, startNATS(t), 3, jetstream.MemoryStorage, 0)
	orphan := top.startReplica("r9")
	held := newRawClient()
	defer held.close()
	if err := held.initialize(top.replicas[0].url); err != nil {
		t.Fatal(err)
	}
	gone := newRawClient() // only r9 ever served it
	defer gone.close()
	if err := gone.initialize(orphan.url); err != nil {
		t.Fatal(err)
	}
	served := newRawClient() // r9 initialized it, r1 served it too
	defer served.close()
	if err := served.initialize(orphan.url); err != nil {
		t.Fatal(err)
	}
	if got := served.ping(t, top.replicas[1].url); got != http.StatusOK {
		t.Fatalf("ping on r1 before the restart: %d", got)
	}
	orphan.stop()

	restartNATS(t, top, nil)
	back := time.Now()

	// New sessions: a ping of a fresh session on another replica than the
	// one that created it needs both the publish and the lookup.
	fresh := newRawClient()
	defer fresh.close()
	if !eventually(recoveryBound, func() bool {
		return fresh.initialize(top.replicas[1].url) == nil && fresh.ping(t, top.replicas[2].url) == http.StatusOK
	}) {
		t.Fatalf("no new session served across replicas within %v after NATS came back", recoveryBound)
	}
	t.Logf("memory storage: a new session served across replicas %v after NATS came back", time.Since(back).Round(time.Millisecond))
	w := workload{sessions: 4, calls: 5, parallel: 2}
	if ok, failures := runSession(t, top.url, runtime.Version20251125, w); ok != int64(w.total()) {
		t.Fatalf("new sessions after the restart: %d of %d calls completed; first failures: %v", ok, w.total(), failures)
	}
	// r2 never saw the held session: it finds what r0 published again.
	if !eventually(recoveryBound, func() bool { return held.ping(t, top.replicas[2].url) == http.StatusOK }) {
		t.Errorf("the session r0 holds, on r2 after the restart: %d, want 200 (published again by r0)", held.ping(t, top.replicas[2].url))
	}
	if !eventually(recoveryBound, func() bool { return served.ping(t, top.replicas[2].url) == http.StatusOK }) {
		t.Errorf("a session r1 served, on r2 after the restart: %d, want 200 (written again by r1)", served.ping(t, top.replicas[2].url))
	}
	if got := gone.ping(t, top.replicas[2].url); got != http.StatusNotFound {
		t.Errorf("a session whose replica stopped before the restart: %d, want 404 (lost with memory storage)", got)
	}
}

// While NATS is down a replica that cannot look a session up answers a
// notification 202 (handled by no one), a request 503 with Retry-After and a
// JSON-RPC error, an answer 503 at once; when NATS is back, everything works
// again by itself: the answer posted again reaches its call, and a session
// initialized during the outage is served by every replica.
func TestNATSOutageDegradesClearly(t *testing.T) {
	// An outage longer than ReconnectGrace (here: no grace at all).
	top := newTopologyStorage(t, startNATS(t), 3, jetstream.FileStorage, -1)
	a, b, c := top.replicas[0], top.replicas[1], top.replicas[2]
	before := newRawClient() // a session b served before the outage
	defer before.close()
	if err := before.initialize(a.url); err != nil {
		t.Fatal(err)
	}
	if got := before.ping(t, b.url); got != http.StatusOK {
		t.Fatalf("ping on b with NATS up: %d", got)
	}
	var (
		during    *rawClient
		waiting   *http.Response // a call on a whose answer got 503
		waitingBR *bufio.Reader
		waitingID string
	)
	restartNATS(t, top, func() {
		// b keeps the view it built: NATS is not asked.
		if got := before.ping(t, b.url); got != http.StatusOK {
			t.Errorf("a session b served before the outage, on b during it: %d, want 200", got)
		}
		during = newRawClient()
		if err := during.initialize(a.url); err != nil {
			t.Fatalf("initialize with NATS down: %v", err)
		}
		held := b.srv.SessionCount()
		for _, n := range []string{
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"stop"}}`,
		} {
			resp, err := during.do(http.MethodPost, b.url, []byte(n))
			if err != nil {
				t.Fatal(err)
			}
			if body := readAll(resp); resp.StatusCode != http.StatusAccepted || body != "" {
				t.Errorf("%s on b with NATS down: %s %q, want 202 with no body", n, resp.Status, body)
			}
		}
		if got := b.srv.SessionCount(); got != held {
			t.Errorf("b holds %d sessions after notifications it could not place, want %d", got, held)
		}
		resp, err := during.do(http.MethodPost, b.url, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		var rpc struct {
			ID    json.RawMessage   `json:"id"`
			Error *runtime.RPCError `json:"error"`
		}
		body := readAll(resp)
		if err := json.Unmarshal([]byte(body), &rpc); err != nil || rpc.Error == nil || rpc.Error.Code != runtime.CodeInternalError || !strings.Contains(rpc.Error.Message, "session directory unavailable") {
			t.Errorf("request on b with NATS down: body %s (%v), want a JSON-RPC error naming the session directory", body, err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request on b with NATS down: %s, Retry-After %q, Content-Type %q; want 503 with Retry-After, application/json",
				resp.Status, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"))
		}
		// An answer for a call on a, landing on c that cannot look the
		// session up: an error at once, not a wait.
		call, br, id, err := during.call(a.url, "during")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		status, text, err := during.answer(c.url, id, "during")
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusServiceUnavailable || !strings.Contains(text, "unavailable") {
			t.Errorf("answer on c with NATS down: %d %s, want 503", status, text)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("answer on c with NATS down took %v to fail, want at once", took)
		} else {
			t.Logf("NATS down: an answer on a replica that cannot look its session up failed in %v", took.Round(time.Microsecond))
		}
		waiting, waitingBR, waitingID = call, br, id
	})
	defer during.close()
	defer waiting.Body.Close()
	// Back by itself: the session made during the outage is published when
	// a reconnects, and b and c serve it.
	for _, r := range []*replica{b, c} {
		if !eventually(recoveryBound, func() bool { return during.ping(t, r.url) == http.StatusOK }) {
			t.Errorf("the session initialized during the outage, on %s after NATS came back: %d, want 200", r.name, during.ping(t, r.url))
		}
	}
	// The answer that got 503, posted again once NATS is back, reaches its
	// call.
	if status, text, err := during.answer(c.url, waitingID, "during"); err != nil || status != http.StatusAccepted {
		t.Fatalf("the answer posted again on c after NATS came back: %d %s %v", status, text, err)
	}
	if got, err := result(waiting, waitingBR); err != nil || got != "hello during from r0" {
		t.Fatalf("the call on a: %q %v", got, err)
	}
	w := workload{sessions: 4, calls: 5, parallel: 2}
	if ok, failures := runSession(t, top.url, runtime.Version20251125, w); ok != int64(w.total()) {
		t.Fatalf("after the outage: %d of %d calls completed; first failures: %v", ok, w.total(), failures)
	}
}

// Storage and Replicas outside what NATS offers are refused before any
// round trip; a bucket that exists with another storage makes New fail
// with NATS's reason instead of silently keeping the old one.
func TestNewStorageOptions(t *testing.T) {
	ns := startNATS(t)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	for _, o := range []natscluster.Options{
		{Storage: jetstream.StorageType(7)},
		{Replicas: -1},
		{Replicas: 6},
	} {
		o.Conn, o.Replica = nc, "a"
		if _, err := natscluster.New(ctx, o); !errors.Is(err, natscluster.ErrInvalidOptions) {
			t.Errorf("Storage %d, Replicas %d: %v, want ErrInvalidOptions", o.Storage, o.Replicas, err)
		}
	}
	// One server cannot keep three copies.
	if _, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: "a", Bucket: "three", ClaimBucket: "three_claims", Replicas: 3}); err == nil {
		t.Error("Replicas 3 on a single NATS server: no error")
	}
	mem, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: "a", Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	_ = mem.Close()
	if _, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: "b"}); err == nil || !strings.Contains(err.Error(), `session bucket "elicit_sessions"`) {
		t.Errorf("file storage over a memory bucket: %v, want the session bucket's error", err)
	}
}

// After a restart that lost the directory, the entries replicas write
// again never replace a fresher one with a staler copy: the replica that
// looked a session up long ago and the one that refreshed it since both
// write it back, and the directory ends with the later expiry.
func TestRestoreKeepsTheFreshestEntry(t *testing.T) {
	ns := startNATS(t)
	ctx := context.Background()
	var (
		conns    []*nats.Conn
		clusters []*natscluster.Cluster
	)
	for _, name := range []string{"fresh", "stale", "reader"} {
		nc, err := nats.Connect(ns.ClientURL(), nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		cl, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: name, Storage: jetstream.MemoryStorage})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cl.Close() })
		conns, clusters = append(conns, nc), append(clusters, cl)
	}
	fresh, stale, reader := clusters[0], clusters[1], clusters[2]
	id := strings.Repeat("ab", 16)
	soon := time.Now().Add(10 * time.Minute).UTC().Truncate(time.Second)
	later := soon.Add(10 * time.Minute)
	if err := fresh.Publish(ctx, cluster.SessionState{ID: id, ProtocolVersion: runtime.Version20251125, ExpiresAt: soon}); err != nil {
		t.Fatal(err)
	}
	if _, err := stale.Lookup(ctx, id); err != nil { // remembers the entry expiring soon
		t.Fatal(err)
	}
	if err := fresh.Publish(ctx, cluster.SessionState{ID: id, ProtocolVersion: runtime.Version20251125, ExpiresAt: later}); err != nil {
		t.Fatal(err)
	}
	restartServer(t, ns, conns, nil)
	var st cluster.SessionState
	if !eventually(recoveryBound, func() bool {
		var err error
		st, err = reader.Lookup(ctx, id)
		return err == nil && st.ExpiresAt.Equal(later)
	}) {
		t.Fatalf("after the restart the directory says the session expires at %v, want %v", st.ExpiresAt, later)
	}
	// Both replicas have written back by now or never will; the entry stays.
	time.Sleep(200 * time.Millisecond)
	if st, err := reader.Lookup(ctx, id); err != nil || !st.ExpiresAt.Equal(later) {
		t.Fatalf("later: %v %v, want expiry %v", st.ExpiresAt, err, later)
	}
}

// lockedBuffer is a log sink safe for the Cluster's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// After a reconnection a replica writes back what the directory lacks:
// every session it remembers when NATS lost the bucket (memory storage),
// and none when NATS kept it (file storage), so that a NATS restart does
// not cost every replica a write per session. Options.Logger says so. A
// claim outlives the restart with file storage only (the package doc says
// so): with memory storage the same key can be claimed again.
func TestRecoveryWritesOnlyWhatTheDirectoryLacks(t *testing.T) {
	for _, tc := range []struct {
		storage      jetstream.StorageType
		want         string
		claimedAgain bool
	}{
		{jetstream.FileStorage, "bucket_recreated=false checked=0 written=0", false},
		{jetstream.MemoryStorage, "bucket_recreated=true checked=3 written=3", true},
	} {
		t.Run(tc.storage.String(), func(t *testing.T) {
			ns := startNATS(t)
			nc, err := nats.Connect(ns.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			var logs lockedBuffer
			cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: "a", Storage: tc.storage,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			for i := range 3 {
				st := cluster.SessionState{ID: fmt.Sprintf("%032x", i), ProtocolVersion: runtime.Version20251125, ExpiresAt: time.Now().Add(time.Hour)}
				if err := cl.Publish(context.Background(), st); err != nil {
					t.Fatal(err)
				}
			}
			if ok, err := cl.Claim(context.Background(), "call-1", time.Now().Add(time.Hour)); !ok || err != nil {
				t.Fatalf("first claim: %v %v", ok, err)
			}
			restartServer(t, ns, []*nats.Conn{nc}, nil)
			if !eventually(recoveryBound, func() bool { return strings.Contains(logs.String(), "sessions written back") }) {
				t.Fatalf("no recovery logged within %v; logs:\n%s", recoveryBound, logs.String())
			}
			if !strings.Contains(logs.String(), tc.want) {
				t.Errorf("recovery logged:\n%s\nwant %q", logs.String(), tc.want)
			}
			for i := range 3 {
				if _, err := cl.Lookup(context.Background(), fmt.Sprintf("%032x", i)); err != nil {
					t.Errorf("session %d after the restart: %v", i, err)
				}
			}
			if ok, err := cl.Claim(context.Background(), "call-1", time.Now().Add(time.Hour)); ok != tc.claimedAgain || err != nil {
				t.Errorf("the same claim after the restart: %v %v, want %v", ok, err, tc.claimedAgain)
			}
		})
	}
}

// TestNATSOutageLongerThanGraceFailsAtOnce: ReconnectGrace counts from when
// the connection was first found down, so in a long outage operations wait
// once, then fail at once instead of each waiting the grace again.
func TestNATSOutageLongerThanGraceFailsAtOnce(t *testing.T) {
	const grace = 300 * time.Millisecond
	top := newTopologyStorage(t, startNATS(t), 1, jetstream.FileStorage, grace)
	cl := top.replicas[0].cl
	restartNATS(t, top, func() {
		ctx := context.Background()
		start := time.Now()
		if _, err := cl.Lookup(ctx, "s1"); !errors.Is(err, cluster.ErrUnavailable) {
			t.Errorf("lookup with NATS down: %v, want ErrUnavailable", err)
		}
		if took := time.Since(start); took > grace+time.Second {
			t.Errorf("the first lookup took %v, want at most the grace (%v) and some", took, grace)
		}
		start = time.Now()
		if _, err := cl.Lookup(ctx, "s2"); !errors.Is(err, cluster.ErrUnavailable) {
			t.Errorf("second lookup with NATS down: %v, want ErrUnavailable", err)
		}
		if took := time.Since(start); took > grace/2 {
			t.Errorf("a lookup after the grace took %v, want at once", took)
		}
	})
	if _, err := cl.Lookup(context.Background(), "s3"); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Errorf("lookup with NATS back: %v, want ErrSessionNotFound", err)
	}
}
