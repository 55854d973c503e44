package runtime

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// timeoutFixture is a fixture served by NewHTTPServer's http.Server, with
// its timeouts shortened by set.
func timeoutFixture(t *testing.T, set func(*http.Server)) *fixture {
	return newFixture(t, Options{}, func(ts *httptest.Server) {
		hs := NewHTTPServer("", ts.Config.Handler)
		set(hs)
		ts.Config = hs
	})
}

// rawConn dials the fixture's server without an HTTP client, so the test
// sees exactly when the server closes the connection.
func rawConn(t *testing.T, f *fixture) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", f.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, bufio.NewReader(conn)
}

// closedWithin reports whether the server closes conn (a read gets EOF or
// a reset) within d, reading and dropping anything before that.
func closedWithin(conn net.Conn, r *bufio.Reader, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestHTTPServerIdleTimeout: a keep-alive connection that carries no
// request after its first is closed after IdleTimeout. Before, the
// example's server (ReadHeaderTimeout alone) held 20,000 such connections.
func TestHTTPServerIdleTimeout(t *testing.T) {
	f := timeoutFixture(t, func(hs *http.Server) { hs.IdleTimeout = 200 * time.Millisecond })
	conn, r := rawConn(t, f)
	body := initBody("2025-11-25", `{}`)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("initialize: %d, close=%v", resp.StatusCode, resp.Close)
	}
	if !closedWithin(conn, r, 10*time.Second) {
		t.Error("an idle keep-alive connection still open 10s after a 200ms IdleTimeout")
	}
}

// TestHTTPServerTrickledBody: a body sent a byte at a time is cut off at
// ReadTimeout, long before it is complete.
func TestHTTPServerTrickledBody(t *testing.T) {
	f := timeoutFixture(t, func(hs *http.Server) { hs.ReadTimeout = 300 * time.Millisecond })
	conn, r := rawConn(t, f)
	const length = 100 // 100 bytes at one per 50ms: 5s
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", length)
	sent := make(chan int, 1)
	go func() {
		n := 0
		for ; n < length; n++ {
			if _, err := conn.Write([]byte{' '}); err != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		sent <- n
	}()
	if !closedWithin(conn, r, 10*time.Second) {
		t.Fatal("a trickled body still held its connection after 10s with a 300ms ReadTimeout")
	}
	conn.Close()
	if n := <-sent; n == length {
		t.Errorf("the whole trickled body (%d bytes at one per 50ms) was read with a 300ms ReadTimeout", n)
	}
}

// TestHTTPServerTimeoutsLeaveCalls: an elicitation answered after the
// ReadTimeout and the WriteTimeout still delivers its result on the
// stream, and so does a plain call that outlasts both (before, the
// ReadTimeout canceled its context and the WriteTimeout dropped its reply).
func TestHTTPServerTimeoutsLeaveCalls(t *testing.T) {
	const limit = 200 * time.Millisecond
	f := timeoutFixture(t, func(hs *http.Server) { hs.ReadTimeout, hs.WriteTimeout = limit, limit })
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	st, eid := asking(t, c)
	time.Sleep(3 * limit)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := st.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("elicitation answered after the timeouts: %q isError=%v", text, isErr)
	}
	if o := f.waitOutcome(); o.err != nil {
		t.Errorf("Elicit: %v", o.err)
	}

	go func() {
		time.Sleep(3 * limit)
		close(f.release)
	}()
	body := c.expect(c.post(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{}}}`), http.StatusOK)
	if text, isErr := resultText(t, body); isErr || text != "released" {
		t.Errorf("a plain call longer than the timeouts: %s", body)
	}
}

// TestHTTPServerStreamWriteTimeout: on a stream whose client stops
// reading, each event write gets WriteTimeout: the handler's send fails
// instead of blocking for as long as the client likes. Before, the upgrade
// cleared the write deadline for good.
//
// The stream of a session's call outlives its write failing: it waits for
// its client to resume it, and the sends fail once StreamResumeWindow has
// passed without one (the call is cancelled then).
func TestHTTPServerStreamWriteTimeout(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: 300 * time.Millisecond}, func(ts *httptest.Server) {
		hs := NewHTTPServer("", ts.Config.Handler)
		hs.WriteTimeout = 200 * time.Millisecond
		ts.Config = hs
	})
	sent := make(chan error, 1)
	chunk := strings.Repeat("x", 64<<10)
	f.srv.AddTool(Tool{Name: "chatty"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var err error
		for i := 0; i < 4096 && err == nil; i++ { // 256 MiB at most: far more than the sockets buffer
			err = req.Log("info", "t", chunk)
		}
		sent <- err
		return TextResult("done"), nil
	})
	c := f.connect("2025-11-25", `{}`)
	resp, _ := c.callTool("chatty", `{}`)
	defer resp.Body.Close() // and never read
	select {
	case err := <-sent:
		if err == nil {
			t.Fatal("256 MiB of events written to a client that reads none")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("an event write still blocked 20s after a 200ms WriteTimeout")
	}
}

// deadlineWriter records the write deadlines set on it.
type deadlineWriter struct {
	http.ResponseWriter
	set []time.Time
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.set = append(w.set, t)
	return nil
}

// TestWriteDeadlineRenewedAtHalf: each write of a reply is bounded by the
// write timeout; a deadline set less than half of it ago is left as it is
// (the write still gets at least half), one closer than that is renewed.
func TestWriteDeadlineRenewedAtHalf(t *testing.T) {
	w := &deadlineWriter{ResponseWriter: httptest.NewRecorder()}
	sk := newHTTPSink(w, true, nil)
	sk.writeTimeout = time.Minute
	sk.mu.Lock()
	defer sk.mu.Unlock()
	start := time.Now()
	sk.armWriteLocked()
	sk.armWriteLocked() // right after: the first deadline stands
	if len(w.set) != 1 || w.set[0].Sub(start) < time.Minute {
		t.Fatalf("deadlines set %v, want one a minute ahead", w.set)
	}
	sk.deadline = time.Now().Add(29 * time.Second) // less than half of the timeout left
	sk.armWriteLocked()
	if len(w.set) != 2 || time.Until(w.set[1]) < 59*time.Second {
		t.Fatalf("deadlines set %v, want the second renewed to a minute ahead", w.set)
	}
}
