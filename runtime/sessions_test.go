package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	pingBody   = `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	acceptUser = `{"action":"accept","content":{"username":"ann"}}`
)

func initBody(version, capabilities string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"t","version":"1"}}}`, version, capabilities)
}

// bareInitialize opens a session the way a flood does: initialize, and
// nothing after it.
func (f *fixture) bareInitialize(headers ...string) (*client, *http.Response) {
	c := f.newClient()
	resp := c.post(initBody("2025-11-25", `{}`), headers...)
	c.sid = resp.Header.Get(HeaderSessionID)
	return c, resp
}

// asking starts an "ask" call on c and returns its stream, waiting on the
// elicitation whose id it returns: c's session is busy until it is answered.
func asking(t *testing.T, c *client, headers ...string) (*stream, string) {
	t.Helper()
	resp, _ := c.callTool("ask", `{}`, headers...)
	st := openStream(t, resp)
	id, _ := st.elicitation()
	return st, id
}

// TestSessionFloodEvictsIdle: a flood of anonymous initializes far past
// MaxSessions never gets 503 while a session is idle, evicts its own
// fresh sessions before any established one, then the least recently used
// idle ones, and never a session with a pending elicitation on an open
// stream, whose answer still delivers. Before, the 21st initialize got 503
// until sessions expired (30 minutes).
func TestSessionFloodEvictsIdle(t *testing.T) {
	const max = 20
	f := newFixture(t, Options{MaxSessions: max})
	busy := f.connect("2025-11-25", `{"elicitation":{}}`)
	st, eid := asking(t, busy)
	idle := f.connect("2025-11-25", `{}`)

	for i := 0; i < 5*max; i++ {
		c, resp := f.bareInitialize()
		c.expect(resp, http.StatusOK)
	}
	if n := f.srv.SessionCount(); n != max {
		t.Errorf("%d sessions after the flood, want the cap %d", n, max)
	}
	idle.expect(idle.post(pingBody), http.StatusOK) // fresh sessions went first

	// Sessions that complete the handshake evict the least recently used
	// idle session: idle's, eventually; busy's, never.
	for i := 0; i < 2*max; i++ {
		f.connect("2025-11-25", `{}`)
	}
	if body := idle.expect(idle.post(pingBody), http.StatusNotFound); !strings.Contains(body, "initialize a new one") {
		t.Errorf("evicted session: %s", body)
	}
	busy.expect(busy.post(pingBody), http.StatusOK)
	busy.expect(busy.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := st.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("the call of a busy session after the flood: %q isError=%v", text, isErr)
	}
	if o := f.waitOutcome(); o.err != nil {
		t.Errorf("the busy handler's Elicit: %v", o.err)
	}
}

// TestSessionCapAllBusy: only when every session runs a call does an
// initialize get 503, saying why.
func TestSessionCapAllBusy(t *testing.T) {
	f := newFixture(t, Options{MaxSessions: 2, StreamResumeWindow: 50 * time.Millisecond})
	var streams []*stream
	for i := 0; i < 2; i++ {
		st, _ := asking(t, f.connect("2025-11-25", `{"elicitation":{}}`))
		streams = append(streams, st)
	}
	c, resp := f.bareInitialize()
	if body := c.expect(resp, http.StatusServiceUnavailable); !strings.Contains(body, "every session is running a call") {
		t.Errorf("initialize with every session busy: %s", body)
	}
	for _, st := range streams {
		st.close()
		if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) {
			t.Errorf("closed stream: handler got %v", o.err)
		}
	}
	// Idle again: room is made.
	c, resp = f.bareInitialize()
	c.expect(resp, http.StatusOK)
}

// TestSessionSetupTimeout: a session that sends nothing after initialize
// ends after SessionSetupTimeout; one that completed the handshake lives
// on to SessionIdleTimeout.
func TestSessionSetupTimeout(t *testing.T) {
	f := newFixture(t, Options{SessionSetupTimeout: 100 * time.Millisecond})
	kept := f.connect("2025-11-25", `{}`)
	for i := 0; i < 10; i++ {
		c, resp := f.bareInitialize()
		c.expect(resp, http.StatusOK)
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.srv.SessionCount() > 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := f.srv.SessionCount(); n != 1 {
		t.Fatalf("%d sessions 10s after a 100ms setup timeout, want 1", n)
	}
	kept.expect(kept.post(pingBody), http.StatusOK)
}

// TestSessionCapPerSubject: behind Authenticate one subject can only evict
// its own sessions, and gets 429 when all of them are busy.
func TestSessionCapPerSubject(t *testing.T) {
	f := newFixture(t, Options{
		MaxSessionsPerSubject: 3,
		StreamResumeWindow:    50 * time.Millisecond, // the streams closed below are not resumed
		Authenticate: func(r *http.Request) (string, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return u, nil
			}
			return "", errors.New("no X-User header")
		},
	})
	bob := f.newClient()
	resp := bob.post(initBody("2025-11-25", `{}`), "X-User: bob")
	bob.sid = resp.Header.Get(HeaderSessionID)
	bob.expect(resp, http.StatusOK)
	bob.expect(bob.post(pingBody, "X-User: bob"), http.StatusOK)

	for i := 0; i < 20; i++ {
		c, resp := f.bareInitialize("X-User: eve")
		c.expect(resp, http.StatusOK)
	}
	if n := f.srv.SessionCount(); n != 4 {
		t.Errorf("%d sessions, want bob's and eve's 3", n)
	}
	bob.expect(bob.post(pingBody, "X-User: bob"), http.StatusOK)

	var streams []*stream
	for i := 0; i < 3; i++ {
		c := f.newClient()
		resp := c.post(initBody("2025-11-25", `{"elicitation":{}}`), "X-User: eve")
		c.sid = resp.Header.Get(HeaderSessionID)
		c.expect(resp, http.StatusOK)
		st, _ := asking(t, c, "X-User: eve")
		streams = append(streams, st)
	}
	c, resp := f.bareInitialize("X-User: eve")
	if body := c.expect(resp, http.StatusTooManyRequests); !strings.Contains(body, "too many sessions for this subject") {
		t.Errorf("eve's initialize with all her sessions busy: %s", body)
	}
	c, resp = f.bareInitialize("X-User: bob")
	c.expect(resp, http.StatusOK)
	for _, st := range streams {
		st.close()
		f.waitOutcome()
	}

	long := strings.Repeat("u", 2000)
	c = f.newClient()
	if body := c.expect(c.post(initBody("2025-11-25", `{}`), "X-User: "+long), http.StatusUnauthorized); !strings.Contains(body, "short identifier") {
		t.Errorf("a 2000-byte subject: %s", body)
	}
}

// BenchmarkSessionTableFull: an initialize into a full table (an eviction)
// and a request's use cost the same at every size: no operation scans the
// sessions.
func BenchmarkSessionTableFull(b *testing.B) {
	for _, size := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			var stopped atomic.Bool
			tab := newSessionTable(size, 0, &stopped)
			live := make([]*Session, 0, size)
			for i := range size {
				sess := &Session{id: fmt.Sprint("s", i)}
				if _, _, err := tab.add(sess, i%2 == 0); err != nil {
					b.Fatal(err)
				}
				live = append(live, sess)
			}
			ids := make([]string, b.N)
			for i := range ids {
				ids[i] = fmt.Sprint("n", i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tab.use(live[i%size])
				if _, evicted, err := tab.add(&Session{id: ids[i]}, false); err != nil || len(evicted) != 1 {
					b.Fatalf("add to a full table: %v, %d evicted", err, len(evicted))
				}
			}
		})
	}
}

// TestSessionUseWhileBusy: a request in a session whose call runs (an
// answer POST) has nothing to record, and takes no lock of the table: the
// busy session is in no idle list, so it is never the one evicted; once
// its call is over it is idle again and a use moves it to the front.
func TestSessionUseWhileBusy(t *testing.T) {
	var stopped atomic.Bool
	tab := newSessionTable(2, 0, &stopped)
	a, b := &Session{id: "a"}, &Session{id: "b"}
	for _, sess := range []*Session{a, b} {
		if _, _, err := tab.add(sess, true); err != nil {
			t.Fatal(err)
		}
	}
	tab.busy(a, +1)
	if !a.entry.busyKnown.Load() {
		t.Fatal("a busy established session is not known busy")
	}
	tab.mu.Lock() // a use of the busy session must not wait on the table
	tab.use(a)
	tab.mu.Unlock()
	if _, evicted, err := tab.add(&Session{id: "c"}, false); err != nil || len(evicted) != 1 || evicted[0] != b {
		t.Fatalf("a full table with a busy: evicted %v (%v), want b", evicted, err)
	}
	tab.busy(a, -1)
	if a.entry.busyKnown.Load() {
		t.Fatal("a session with no call running is still known busy")
	}
	tab.use(a) // idle again: the most recently used
	if _, evicted, err := tab.add(&Session{id: "d"}, false); err != nil || len(evicted) != 1 || evicted[0].id != "c" {
		t.Fatalf("evicted %v (%v), want the fresh c", evicted, err)
	}
}
