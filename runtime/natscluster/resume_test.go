package natscluster_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
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
