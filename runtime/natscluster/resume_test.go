package natscluster_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// sseEvent is one event read off a stream: its id and data.
type sseEvent struct {
	id   string
	data []byte
}

// readIDEvent returns the next SSE event with its id.
func readIDEvent(r *bufio.Reader) (sseEvent, error) {
	var ev sseEvent
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return ev, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && ev.data != nil:
			return ev, nil
		case bytes.HasPrefix(line, []byte("id: ")):
			ev.id = string(line[4:])
		case bytes.HasPrefix(line, []byte("data: ")):
			ev.data = append(ev.data, line[6:]...)
		}
	}
}

// resumeGET sends a GET with Last-Event-ID to endpoint.
func resumeGET(c *rawClient, endpoint, lastEventID string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(runtime.HeaderSessionID, c.sid)
	req.Header.Set("Last-Event-ID", lastEventID)
	return c.hc.Do(req)
}

// TestResumeOnAnotherReplica: a call runs on replica c; its stream breaks
// after the elicitation event, and the client's GET with Last-Event-ID
// lands on replica b (no stickiness). b relays c's stream through NATS:
// the event after the id the GET names comes again, then the result the
// answer (POSTed to a) produces. A GET for a stream c does not keep, and
// one for the stream of a replica that stopped, get 404 and do not hang.
func TestResumeOnAnotherReplica(t *testing.T) {
	top := newTopology(t, startNATS(t), 3)
	a, b, c := top.replicas[0], top.replicas[1], top.replicas[2]
	cl := newRawClient()
	t.Cleanup(cl.close)
	if err := cl.initialize(a.url); err != nil {
		t.Fatal(err)
	}
	cl.n++
	resp, err := cl.do(http.MethodPost, c.url, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"tag":"x"}}}`, cl.n))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := readIDEvent(bufio.NewReader(resp.Body))
	resp.Body.Close() // the stream breaks
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ev.id, c.name+".") {
		t.Fatalf("event id %q does not name the replica %s", ev.id, c.name)
	}
	var elicit struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(ev.data, &elicit); err != nil {
		t.Fatal(err)
	}

	stream := ev.id[:strings.LastIndexByte(ev.id, '-')]
	re, err := resumeGET(cl, b.url, stream+"-0") // everything after event 0: the elicitation again
	if err != nil {
		t.Fatal(err)
	}
	defer re.Body.Close()
	if re.StatusCode != http.StatusOK || re.Header.Get("Content-Type") != "text/event-stream" {
		body, _ := io.ReadAll(re.Body)
		t.Fatalf("GET on %s: %s %s", b.name, re.Status, body)
	}
	br := bufio.NewReader(re.Body)
	again, err := readIDEvent(br)
	if err != nil || again.id != ev.id || !bytes.Equal(again.data, ev.data) {
		t.Fatalf("replayed through the cluster: %q %s (%v), want %q %s", again.id, again.data, err, ev.id, ev.data)
	}
	if status, body, err := cl.answer(a.url, elicit.ID, "ann"); err != nil || status != http.StatusAccepted {
		t.Fatalf("answer on %s: %d %s %v", a.name, status, body, err)
	}
	text, err := result(re, br)
	if err != nil || text != "hello ann from "+c.name {
		t.Fatalf("result relayed by %s: %q %v", b.name, text, err)
	}
	if err := c.waitOutcome(t); err != nil {
		t.Errorf("the handler on %s: %v", c.name, err)
	}

	for _, tc := range []struct{ name, last string }{
		{"a stream c does not keep", c.name + ".0123456789abcdef-1"},
		{"a stream of a replica that stopped", "gone.0123456789abcdef-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := resumeGET(cl, b.url, tc.last)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(resp)
			if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "no stream to resume") {
				t.Errorf("GET on %s: %s %s, want 404", b.name, resp.Status, body)
			}
		})
	}
}

// resumeReplica is a clustered server with short stream timers, for the
// relay's keep-alives and its reader's departure.
type resumeReplica struct {
	url      string
	nc       *nats.Conn
	outcomes chan error
}

func startResumeReplica(t *testing.T, natsURL, name string) *resumeReplica {
	t.Helper()
	nc, err := nats.Connect(natsURL, nats.Name(name))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: name, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := &resumeReplica{nc: nc, outcomes: make(chan error, 4)}
	srv := runtime.NewServer(runtime.Options{Cluster: cl, StreamKeepAlive: 50 * time.Millisecond, StreamResumeWindow: 300 * time.Millisecond})
	srv.AddTool(runtime.Tool{Name: "ask"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		_, err := runtime.ElicitSchema(ctx, "tag:x", askSchema)
		r.outcomes <- err
		return nil, err
	})
	hs := httptest.NewServer(srv)
	r.url = hs.URL + "/mcp"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.CloseClientConnections()
		hs.Close()
		_ = cl.Close()
		nc.Close()
	})
	return r
}

// relayedStream starts a call on replica ra, drops its stream and resumes
// it with a GET on replica rb, which relays it: it returns both replicas
// and the GET's reply.
func relayedStream(t *testing.T) (a, b *resumeReplica, re *http.Response, br *bufio.Reader) {
	t.Helper()
	ns := startNATS(t)
	a = startResumeReplica(t, ns.ClientURL(), "ra")
	b = startResumeReplica(t, ns.ClientURL(), "rb")
	cl := newRawClient()
	t.Cleanup(cl.close)
	if err := cl.initialize(a.url); err != nil {
		t.Fatal(err)
	}
	resp, err := cl.do(http.MethodPost, a.url, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := readIDEvent(bufio.NewReader(resp.Body))
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	re, err = resumeGET(cl, b.url, ev.id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { re.Body.Close() })
	if re.StatusCode != http.StatusOK {
		t.Fatalf("GET on rb: %s %s", re.Status, readAll(re))
	}
	return a, b, re, bufio.NewReader(re.Body)
}

// TestResumeRelayKeepsAliveAndLetsGo: the owner's keep-alive comments
// reach the client through the relaying replica; once that client goes
// away, the owner's next send finds no reader (the relay acknowledges no
// more), its stream waits for another resumption, and with none within
// StreamResumeWindow the call is cancelled.
func TestResumeRelayKeepsAliveAndLetsGo(t *testing.T) {
	a, _, re, br := relayedStream(t)
	for comments := 0; comments < 3; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the relayed stream ended: %v", err)
		}
		if line == ": keep-alive\n" {
			comments++
		}
	}
	re.Body.Close() // the client goes away from rb
	select {
	case err := <-a.outcomes:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler on ra got %v, want its call cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call on ra still runs 10s after its only reader left")
	}
}

// TestResumeRelayOwnerGone: a replica relaying a stream whose owner falls
// silent (its NATS connection is gone: no event, no keep-alive, no end)
// ends its GET after twice StreamKeepAlive plus 5s, so the client does not
// wait forever.
func TestResumeRelayOwnerGone(t *testing.T) {
	a, _, _, br := relayedStream(t)
	if line, err := br.ReadString('\n'); err != nil || line != ": keep-alive\n" {
		t.Fatalf("relayed stream: %q %v, want a keep-alive", line, err)
	}
	a.nc.Close() // the owner falls silent
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, br)
		ended <- err
	}()
	select {
	case <-ended:
	case <-time.After(15 * time.Second):
		t.Fatal("the relaying GET still open 15s after its owner fell silent")
	}
}

// TestResumeReaderGoneAnswersEventsInFlight: when the resuming reader goes
// away, events its owner had already sent to the relay are answered
// "gone" (or find no responder), not dropped: the owner learns at once
// that no one reads, rather than after RequestTimeout.
func TestResumeReaderGoneAnswersEventsInFlight(t *testing.T) {
	ns := startNATS(t)
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: "rb", RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	// The owner, "ra", played by hand: it accepts the resumption and sends
	// two events at once, without waiting for the first's acknowledgement.
	owner, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	replies := make(chan string, 2)
	sub, err := owner.Subscribe(natscluster.DefaultPrefix+".resume.ra", func(m *nats.Msg) {
		inbox := m.Header.Get("Elicit-Inbox")
		_ = m.Respond([]byte("ok"))
		for i := range 2 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				rep, err := owner.RequestWithContext(ctx, inbox, fmt.Appendf(nil, "data: %d\n\n", i))
				switch {
				case errors.Is(err, nats.ErrNoResponders):
					replies <- "no responders"
				case err != nil:
					replies <- err.Error()
				default:
					replies <- string(rep.Data)
				}
			}()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := owner.Flush(); err != nil {
		t.Fatal(err)
	}

	errGone := errors.New("the reader is gone")
	err = cl.Resume(context.Background(), "ra", "s1", "ra.1-1", func(ev []byte) error {
		time.Sleep(50 * time.Millisecond) // the other event arrives meanwhile
		return errGone
	})
	if !errors.Is(err, errGone) {
		t.Fatalf("Resume: %v, want the reader's error", err)
	}
	for range 2 {
		select {
		case r := <-replies:
			if r != "gone" && r != "no responders" {
				t.Errorf("the owner's event got %q, want \"gone\" or no responders", r)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("an event the owner sent is unanswered 10s after its reader left")
		}
	}
}
