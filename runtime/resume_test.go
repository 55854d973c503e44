package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/go-elicit/elicit/runtime/cluster"
	"github.com/go-elicit/elicit/runtime/internal/netfault"
)

// get sends a GET that resumes the stream after lastEventID ("" : none).
func (c *client) get(lastEventID string, headers ...string) *http.Response {
	c.f.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.f.url, nil)
	if err != nil {
		c.f.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if c.sid != "" {
		req.Header.Set(HeaderSessionID, c.sid)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.f.t.Fatal(err)
	}
	return resp
}

// addSteps adds the tool "steps": n log notifications of size bytes, then
// the "ask" form, then the answer's username.
func addSteps(f *fixture, n, size int) {
	f.srv.AddTool(Tool{Name: "steps"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		for i := range n {
			if err := req.Log("info", "steps", fmt.Sprintf("step %d %s", i+1, strings.Repeat("s", size))); err != nil {
				return nil, err
			}
		}
		content, err := ElicitSchema(ctx, "Who are you?", userSchema)
		f.outcomes <- outcome{content, err}
		if err != nil {
			return nil, err
		}
		return TextResult(fmt.Sprintf("hello %v", content["username"])), nil
	})
}

// len reports the streams kept.
func (t *streamTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// get returns the stream the table keeps under id, if any.
func (t *streamTable) get(id string) *keptStream {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// waitKept waits until the server keeps n streams.
func waitKept(t *testing.T, srv *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for srv.streams.len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams kept, want %d", srv.streams.len(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStreamResumeReplaysAfterLastEventID: a client whose stream broke
// after the second of three events resumes it with GET and Last-Event-ID:
// the events after that id come again, with their ids, then the stream
// goes on to the call's response, which the answer POSTed meanwhile
// produces. The handler never saw the drop. Before, GET was 405 and the
// drop cancelled the call.
func TestStreamResumeReplaysAfterLastEventID(t *testing.T) {
	f := newFixture(t, Options{})
	addSteps(f, 2, 10)
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("steps", `{}`)
	st := openStream(t, resp)
	events := []event{st.mustNext(), st.mustNext(), st.mustNext()}
	st.close() // the connection drops

	re := openStream(t, c.get(events[0].id))
	defer re.close()
	for _, want := range events[1:] {
		if got := re.mustNext(); got.id != want.id || got.data != want.data {
			t.Fatalf("replayed %s %s, want %s %s", got.id, got.data, want.id, want.data)
		}
	}
	eid, _ := events[2].msg["id"].(string)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := re.result(); isErr || text != "hello ann" {
		t.Errorf("result on the resumed stream: %q isError=%v", text, isErr)
	}
	if o := f.waitOutcome(); o.err != nil {
		t.Errorf("the handler's Elicit: %v", o.err)
	}
	if _, ok := re.next(); ok {
		t.Error("the resumed stream goes on after the response")
	}
}

// TestStreamResumeAfterTheEnd: a call that ends while its client is away
// keeps its events for the resume window: a GET then gets the response it
// missed, and the stream is forgotten once the window has passed.
func TestStreamResumeAfterTheEnd(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: 500 * time.Millisecond})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`)
	st := openStream(t, resp)
	ev := st.mustNext()
	st.close()
	eid, _ := ev.msg["id"].(string)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("Elicit: %v", o.err)
	}
	re := openStream(t, c.get(ev.id))
	if text, isErr := re.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("the missed response: %q isError=%v", text, isErr)
	}
	re.close()
	waitKept(t, f.srv, 0)
	if n := f.srv.held.n.Load(); n != 0 {
		t.Errorf("%d bytes still held once the stream is forgotten", n)
	}
	body := c.expect(c.get(ev.id), http.StatusNotFound)
	if !strings.Contains(body, "no stream to resume") {
		t.Errorf("GET after the window: %s", body)
	}
}

// TestStreamResumeRefusals: what a GET that cannot resume anything gets,
// each time with a JSON-RPC error body that says why; none hangs.
func TestStreamResumeRefusals(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.connect("2025-11-25", `{"elicitation":{}}`)
	b := f.connect("2025-11-25", `{"elicitation":{}}`)
	st, _ := asking(t, a)
	defer st.close()
	var live string
	{ // the id of a's live stream: the elicitation's event
		resp, _ := a.callTool("ask", `{}`)
		s2 := openStream(t, resp)
		live = s2.mustNext().id
		defer s2.close()
	}
	for _, tc := range []struct {
		name   string
		c      *client
		last   string
		header string
		status int
		says   string
	}{
		{"no Last-Event-ID", a, "", "", http.StatusMethodNotAllowed, "must carry Last-Event-ID"},
		{"malformed id", a, "nonsense", "", http.StatusBadRequest, "malformed Last-Event-ID"},
		{"unknown stream", a, "0123456789abcdef-1", "", http.StatusNotFound, "no stream to resume"},
		{"an id the stream never sent", a, live[:strings.LastIndexByte(live, '-')] + "-99", "", http.StatusNotFound, "no stream to resume"},
		{"another session's stream", b, live, "", http.StatusNotFound, "no stream to resume"},
		{"another replica's, without a cluster", a, "r9.0123456789abcdef-1", "", http.StatusNotFound, "no stream to resume"},
		{"no SSE in Accept", a, live, "Accept: application/json", http.StatusNotAcceptable, "text/event-stream"},
		{"no session", &client{f: f, hc: a.hc}, live, "", http.StatusBadRequest, "missing " + HeaderSessionID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.header != "" {
				headers = append(headers, tc.header)
			}
			body := tc.c.expect(tc.c.get(tc.last, headers...), tc.status)
			if !strings.Contains(body, tc.says) || !strings.Contains(body, `"jsonrpc":"2.0"`) {
				t.Errorf("body %s, want a JSON-RPC error saying %q", body, tc.says)
			}
		})
	}
}

// TestStreamResumeWindowCancels: a stream no GET resumes within
// StreamResumeWindow cancels its call, as a drop did before, and is
// forgotten: its handler's context ends (the cause says why), a late GET
// gets 404, and no goroutine is left (TestMain checks).
func TestStreamResumeWindowCancels(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: 100 * time.Millisecond})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`)
	st := openStream(t, resp)
	ev := st.mustNext()
	st.close()
	o := f.waitOutcome()
	if !errors.Is(o.err, context.Canceled) || !errors.Is(o.err, errStreamAbandoned) {
		t.Fatalf("the handler got %v, want context.Canceled caused by errStreamAbandoned", o.err)
	}
	waitKept(t, f.srv, 0)
	c.expect(c.get(ev.id), http.StatusNotFound)
	waitPending(t, f.srv, 0)
	// The handler's response after the window holds nothing: nobody reads it.
	for deadline := time.Now().Add(5 * time.Second); f.srv.held.n.Load() != 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held after the abandoned call ended", f.srv.held.n.Load())
		}
	}
}

// TestStreamResumeOff: a negative StreamResumeWindow keeps nothing: a
// drop cancels the call at once, as before resumable streams.
func TestStreamResumeOff(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: -1})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	st, _ := asking(t, c)
	if n := f.srv.streams.len(); n != 0 {
		t.Errorf("%d streams kept with StreamResumeWindow < 0", n)
	}
	st.close()
	if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) {
		t.Fatalf("the handler got %v, want context.Canceled", o.err)
	}
}

// TestStreamsKeptPerSession: a session keeps MaxResumableStreams streams:
// a stream past it, while the others run, is not kept (its drop cancels
// its call at once, and a GET for it gets 404 naming the bound); once one
// has finished, a new stream evicts it.
func TestStreamsKeptPerSession(t *testing.T) {
	f := newFixture(t, Options{MaxResumableStreams: 1})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	kept, keptID := asking(t, c)
	resp, _ := c.callTool("ask", `{}`)
	over := openStream(t, resp)
	ev := over.mustNext()
	waitKept(t, f.srv, 1)
	over.close()
	if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) {
		t.Fatalf("the stream past the bound: handler %v, want cancelled at once", o.err)
	}
	if body := c.expect(c.get(ev.id), http.StatusNotFound); !strings.Contains(body, "MaxResumableStreams") {
		t.Errorf("GET for a stream not kept: %s", body)
	}
	c.expect(c.answer(keptID, acceptUser), http.StatusAccepted)
	if text, _ := kept.result(); !strings.Contains(text, "ann") {
		t.Errorf("the kept stream's result: %q", text)
	}
	kept.close()
	f.waitOutcome()
	resp, _ = c.callTool("ask", `{}`) // evicts the finished one
	st := openStream(t, resp)
	defer st.close()
	newest := st.mustNext().id
	waitKept(t, f.srv, 1)
	if f.srv.streams.get(newest[:strings.LastIndexByte(newest, '-')]) == nil {
		t.Error("the new stream is not the one kept")
	}
}

// TestFinishedStreamsLetGoOfTheirRequests: a finished stream kept for a
// resumption holds its events, not its request: the *http.Request, its
// context and the call's are free once the POST is over. Before, each of
// a session's up to MaxResumableStreams finished streams held them for
// StreamResumeWindow: about 4 KiB each, 8 MiB of live heap for 64 busy
// sessions, which the garbage collector marks again on every cycle.
func TestFinishedStreamsLetGoOfTheirRequests(t *testing.T) {
	var mu sync.Mutex
	var requests []weak.Pointer[http.Request]
	f := newFixture(t, Options{}, func(hs *httptest.Server) {
		h := hs.Config.Handler
		hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			requests = append(requests, weak.Make(r))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	const calls = 4
	for range calls {
		st, id := asking(t, c)
		c.expect(c.answer(id, acceptUser), http.StatusAccepted)
		if text, _ := st.result(); !strings.Contains(text, "ann") {
			t.Fatalf("result %q", text)
		}
		st.close()
		f.waitOutcome()
	}
	waitKept(t, f.srv, calls)
	f.http.CloseClientConnections() // net/http's own goroutines let go of the last request on each
	deadline := time.Now().Add(10 * time.Second)
	for {
		goruntime.GC()
		mu.Lock()
		held := 0
		for _, p := range requests {
			if p.Value() != nil {
				held++
			}
		}
		mu.Unlock()
		if held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests still reachable while %d finished streams are kept", held, len(requests), f.srv.streams.len())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := f.srv.streams.len(); n != calls {
		t.Errorf("%d streams kept after the GC, want %d: the test proves nothing without them", n, calls)
	}
}

// TestStreamSecondResumeReplacesFirst: one reader per stream: a second
// GET takes the stream over, and the first one's reply ends.
func TestStreamSecondResumeReplacesFirst(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`)
	st := openStream(t, resp)
	ev := st.mustNext()
	st.close()
	first := openStream(t, c.get(ev.id))
	defer first.close()
	second := openStream(t, c.get(ev.id))
	defer second.close()
	ended := make(chan bool, 1)
	go func() {
		_, ok := first.next()
		ended <- !ok
	}()
	select {
	case gotEnd := <-ended:
		if !gotEnd {
			t.Fatal("the replaced GET got an event")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the replaced GET still open 10s after another resumed the stream")
	}
	eid, _ := ev.msg["id"].(string)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := second.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("result on the second GET: %q isError=%v", text, isErr)
	}
	f.waitOutcome()
}

// TestStreamReplayBound: a stream keeps at most MaxStreamReplayBytes of
// its events (the newest): a GET that asks for older ones gets 410 saying
// so, and one within what is kept still resumes.
func TestStreamReplayBound(t *testing.T) {
	f := newFixture(t, Options{MaxStreamReplayBytes: 2000})
	addSteps(f, 10, 400)
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("steps", `{}`)
	st := openStream(t, resp)
	var events []event
	for range 11 {
		events = append(events, st.mustNext())
	}
	st.close()
	body := c.expect(c.get(events[0].id), http.StatusGone)
	if !strings.Contains(body, "no longer kept") || !strings.Contains(body, "MaxStreamReplayBytes") {
		t.Errorf("GET for dropped events: %s", body)
	}
	re := openStream(t, c.get(events[9].id))
	defer re.close()
	if got := re.mustNext(); got.id != events[10].id {
		t.Fatalf("replayed %s, want %s", got.id, events[10].id)
	}
	eid, _ := events[10].msg["id"].(string)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, _ := re.result(); text != "hello ann" {
		t.Errorf("result %q", text)
	}
	f.waitOutcome()
}

// TestStreamKeepAliveOnTheWire: an upgraded stream that stays silent gets
// an SSE comment every StreamKeepAlive; a plain JSON reply is not
// upgraded for it.
func TestStreamKeepAliveOnTheWire(t *testing.T) {
	f := newFixture(t, Options{StreamKeepAlive: 30 * time.Millisecond})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	st, eid := asking(t, c)
	defer st.close()
	readKeepAlives(t, st, 3)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := st.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("result after keep-alives: %q isError=%v", text, isErr)
	}
	f.waitOutcome()
	resp, _ := c.callTool("plain", `{}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("a plain call's reply: %s", ct)
	}
	readAll(t, resp)
}

// readKeepAlives reads st until n keep-alive comments have come (a
// StreamKeepAlive of 30ms), failing t after 5s.
func readKeepAlives(t *testing.T, st *stream, n int) {
	t.Helper()
	comments := 0
	deadline := time.Now().Add(5 * time.Second)
	for comments < n && time.Now().Before(deadline) {
		line, err := st.sc.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if line == ": keep-alive\n" {
			comments++
		}
	}
	if comments < n {
		t.Fatalf("%d keep-alive comments within 5s at a 30ms interval", comments)
	}
}

// TestStreamTimerReused: a stream's timer is given back when the stream
// is forgotten (streamTimers) and taken by the next one: the stream that
// evicted a finished one still gets its keep-alives, and its resume
// window still ends, cancelling its call, once its client is gone.
func TestStreamTimerReused(t *testing.T) {
	f := newFixture(t, Options{MaxResumableStreams: 1, StreamKeepAlive: 30 * time.Millisecond, StreamResumeWindow: 300 * time.Millisecond})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	first, eid := asking(t, c)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := first.result(); isErr || !strings.Contains(text, "ann") {
		t.Fatalf("first result: %q isError=%v", text, isErr)
	}
	f.waitOutcome()
	first.close()
	st, _ := asking(t, c) // evicts the first stream (or follows its window's end): its timer is back
	readKeepAlives(t, st, 3)
	st.close()
	if o := f.waitOutcome(); !errors.Is(o.err, errStreamAbandoned) {
		t.Fatalf("the handler got %v, want its call cancelled by errStreamAbandoned", o.err)
	}
	waitKept(t, f.srv, 0)
}

// TestStreamSlowerThanProxyReadTimeout: behind a proxy that cuts a
// connection silent for 300ms, people who answer after 1s still complete
// their calls (30 sessions at once): keep-alives keep the streams open.
// Without them (StreamKeepAlive < 0, StreamResumeWindow < 0: the runtime
// before), the proxy cuts every stream and every call is lost.
func TestStreamSlowerThanProxyReadTimeout(t *testing.T) {
	const calls = 30
	for _, tc := range []struct {
		name      string
		keepAlive time.Duration
		completes bool
	}{
		{"keep-alive", 100 * time.Millisecond, true},
		{"none", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{StreamKeepAlive: tc.keepAlive, StreamResumeWindow: -1})
			f.outcomes = make(chan outcome, calls)
			px, err := netfault.Start(f.http.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer px.Close()
			px.SetReadTimeout(300 * time.Millisecond)
			f.url = "http://" + px.Addr() + "/mcp"
			var wg sync.WaitGroup
			var completed atomic.Int32
			for range calls {
				c := f.connect("2025-11-25", `{"elicitation":{}}`)
				st, eid := asking(t, c)
				wg.Go(func() {
					defer st.close()
					time.Sleep(time.Second) // the person thinks
					resp := c.answer(eid, acceptUser)
					resp.Body.Close()
					if resp.StatusCode != http.StatusAccepted {
						return
					}
					if ev, ok := st.next(); ok && strings.Contains(ev.data, "hello") {
						completed.Add(1)
					}
				})
			}
			wg.Wait()
			t.Logf("%s: %d of %d calls completed after 1s behind a 300ms proxy read timeout; %d streams cut idle", tc.name, completed.Load(), calls, px.IdleCuts())
			if want := map[bool]int32{true: calls, false: 0}[tc.completes]; completed.Load() != want {
				t.Errorf("%d calls completed, want %d", completed.Load(), want)
			}
			if tc.completes && px.IdleCuts() != 0 {
				t.Errorf("the proxy cut %d silent connections", px.IdleCuts())
			}
			for range calls {
				f.waitOutcome()
			}
		})
	}
}

// TestStreamResumeThroughCutProxy: a connection cut by the network right
// after the elicitation event (a loopback proxy drops it) is resumed by a
// GET through the same proxy, and the call completes.
func TestStreamResumeThroughCutProxy(t *testing.T) {
	f := newFixture(t, Options{})
	px, err := netfault.Start(f.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	f.url = "http://" + px.Addr() + "/mcp"
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	px.CutAfter("elicitation/create")
	resp, _ := c.callTool("ask", `{}`)
	st := openStream(t, resp)
	ev := st.mustNext()
	if _, ok := st.next(); ok || px.Cuts() != 1 {
		t.Fatalf("the proxy did not cut the stream (%d cuts)", px.Cuts())
	}
	st.close()
	re := openStream(t, c.get(ev.id))
	defer re.close()
	eid, _ := ev.msg["id"].(string)
	c.expect(c.answer(eid, acceptUser), http.StatusAccepted)
	if text, isErr := re.result(); isErr || !strings.Contains(text, "ann") {
		t.Errorf("result on the resumed stream: %q isError=%v", text, isErr)
	}
	if o := f.waitOutcome(); o.err != nil {
		t.Errorf("Elicit: %v", o.err)
	}
}

// TestParseEventID: the event ids the server makes, and what is refused.
func TestParseEventID(t *testing.T) {
	for _, tc := range []struct {
		id, stream, replica string
		n                   uint64
		ok                  bool
	}{
		{"0123456789abcdef-1", "0123456789abcdef", "", 1, true},
		{"web-1.0123456789abcdef-42", "web-1.0123456789abcdef", "web-1", 42, true},
		{"0123456789abcdef", "", "", 0, false},
		{"0123456789ABCDEF-1", "", "", 0, false},
		{"0123456789abcdef-x", "", "", 0, false},
		{"we b.0123456789abcdef-1", "", "", 0, false},
		{".0123456789abcdef-1", "", "", 0, false},
		{"", "", "", 0, false},
	} {
		stream, replica, n, ok := parseEventID(tc.id)
		if stream != tc.stream || replica != tc.replica || n != tc.n || ok != tc.ok {
			t.Errorf("parseEventID(%q) = %q %q %d %v", tc.id, stream, replica, n, ok)
		}
	}
	// What newStreamID makes parses back, with its replica, and each
	// stream's differs from the last, also across the counter's wrap.
	srv := NewServer(Options{})
	defer srv.Shutdown(context.Background())
	srv.replica = "web-1"
	srv.seq.Store(^uint64(0) - 1)
	seen := map[string]bool{}
	for range 4 {
		id := srv.newStreamID()
		stream, replica, n, ok := parseEventID(id + "-7")
		if !ok || stream != id || replica != "web-1" || n != 7 || seen[id] {
			t.Errorf("newStreamID() = %q: parsed %q %q %d %v, seen before %v", id, stream, replica, n, ok, seen[id])
		}
		seen[id] = true
	}
}

// TestKeptStreamsYieldToLiveReplies: finished streams kept for a
// resumption hold their response in MaxHeldBytes, but a live reply that
// would not fit beside them frees them first instead of being refused as
// busy: one big response after another all go through.
func TestKeptStreamsYieldToLiveReplies(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 16 << 10, MaxHeldBytes: 32 << 10})
	big := strings.Repeat("b", 20<<10)
	f.srv.AddTool(Tool{Name: "big"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if err := req.Log("info", "big", "streaming"); err != nil { // upgraded: the stream is kept
			return nil, err
		}
		return TextResult(big), nil
	})
	c := f.connect("2025-11-25", `{}`)
	var first string
	for i := range 3 {
		resp, _ := c.callTool("big", `{}`)
		st := openStream(t, resp)
		if ev := st.mustNext(); i == 0 {
			first = ev.id
		}
		text, isErr := st.result()
		st.close()
		if isErr || text != big {
			t.Fatalf("call %d: isError=%v, %d bytes: %.80s", i, isErr, len(text), text)
		}
		// A response this large reaches the client while the server still
		// writes it; only once written is its stream finished, free to give way.
		waitStreamsFinished(t, f.srv)
	}
	if n := f.srv.streams.len(); n != 1 {
		t.Errorf("%d streams kept, want the last one (32 KiB hold one 20 KiB response)", n)
	}
	c.expect(c.get(first), http.StatusNotFound)
}

// TestStreamRequestDeadlineCancels: a request context that ends by its
// deadline (a middleware's timeout) is no dropped connection: the call is
// cancelled, not kept for a resumption.
func TestStreamRequestDeadlineCancels(t *testing.T) {
	f := newFixture(t, Options{StreamResumeWindow: time.Minute}, func(hs *httptest.Server) {
		next := hs.Config.Handler
		hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), 300*time.Millisecond)
			defer cancel()
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("ask", `{}`)
	st := openStream(t, resp)
	defer st.close()
	st.mustNext()
	select {
	case o := <-f.outcomes:
		if !errors.Is(o.err, context.DeadlineExceeded) {
			t.Fatalf("the handler got %v, want the request's deadline", o.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request's deadline did not end the call (kept for a resumption instead)")
	}
}

// TestRunningStreamsYieldToLiveReplies: a running stream's older events,
// written to its client already, give way in MaxHeldBytes too: another
// request is served instead of getting a busy error, and the running call
// still completes.
func TestRunningStreamsYieldToLiveReplies(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 16 << 10, MaxHeldBytes: 32 << 10})
	chunk := strings.Repeat("c", 4<<10)
	f.srv.AddTool(Tool{Name: "fill"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		for range 6 {
			if err := req.Log("info", "fill", chunk); err != nil {
				return nil, err
			}
		}
		<-f.release
		return TextResult("filled"), nil
	})
	var once sync.Once
	release := func() { once.Do(func() { close(f.release) }) }
	defer release() // before st.close: a failed check must not leave the handler waiting
	c := f.connect("2025-11-25", `{}`)
	resp, _ := c.callTool("fill", `{}`)
	st := openStream(t, resp)
	defer st.close()
	for range 6 {
		st.mustNext()
	}
	arg := strings.Repeat("p", 6<<10)
	presp, _ := c.callTool("plain", `{"p":"`+arg+`"}`)
	body := c.expect(presp, http.StatusOK)
	if !strings.Contains(body, arg) {
		t.Errorf("the plain call beside a full running stream: %.200s", body)
	}
	release()
	if text, isErr := st.result(); isErr || text != "filled" {
		t.Errorf("the running call: %q isError=%v", text, isErr)
	}
}

// waitStreamsFinished waits until every stream srv keeps has finished.
func waitStreamsFinished(t *testing.T, srv *Server) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		srv.streams.mu.Lock()
		running := 0
		for _, ks := range srv.streams.byID {
			if !ks.finished() {
				running++
			}
		}
		srv.streams.mu.Unlock()
		if running == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d kept streams still running", running)
		}
	}
}

// TestResumableCallDroppedBeforeTheUpgrade: a session's tools/call whose
// stream could be resumed is cancelled when its POST's connection drops
// before anything was streamed, as any call is. Its context watches the
// connection only once something can tell (handlerCtx): a handler that
// waits on Done and one that polls Err both see the drop, and one that
// never looks sends into a cancelled call, not into a stream kept for a
// client that never heard of it.
func TestResumableCallDroppedBeforeTheUpgrade(t *testing.T) {
	for _, how := range []string{"Done", "Err", "Send"} {
		t.Run(how, func(t *testing.T) {
			posted := make(chan context.Context, 1)
			f := newFixture(t, Options{}, func(hs *httptest.Server) {
				next := hs.Config.Handler
				hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Test-Call") != "" {
						posted <- r.Context()
					}
					next.ServeHTTP(w, r)
				})
			})
			entered, proceed := make(chan struct{}), make(chan struct{})
			f.srv.AddTool(Tool{Name: "work"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
				close(entered)
				switch how {
				case "Done":
					<-ctx.Done()
				case "Err":
					for ctx.Err() == nil {
						time.Sleep(time.Millisecond)
					}
				case "Send":
					<-proceed // the connection is gone by now; nothing here looked
					_, err := ElicitSchema(ctx, "Who are you?", userSchema)
					if !errors.Is(err, context.Canceled) {
						t.Errorf("Elicit after the drop: %v, want context.Canceled", err)
					}
				}
				f.outcomes <- outcome{err: context.Cause(ctx)}
				return nil, ctx.Err()
			})
			c := f.connect("2025-11-25", `{"elicitation":{}}`)
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", acceptBoth)
			req.Header.Set(HeaderSessionID, c.sid)
			req.Header.Set("X-Test-Call", "1")
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := c.hc.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			serverSide := <-posted
			<-entered
			cancel() // the client gives up: its connection closes
			<-done
			<-serverSide.Done() // net/http has seen it
			close(proceed)
			if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) { // the handler saw its connection drop
				t.Fatalf("cause %v, want context.Canceled", o.err)
			}
			waitPending(t, f.srv, 0)
			waitKept(t, f.srv, 0)
		})
	}
}

// TestFinishedStreamsExpire: a finished stream is its events alone, freed
// by one timer for all of them once their window is over; a GET past the
// window finds nothing even before that timer has run, and eviction,
// expiry and shedding each release what the events held, oldest first.
func TestFinishedStreamsExpire(t *testing.T) {
	held := newHeldBytes(1 << 20)
	tab := &streamTable{held: held, window: time.Hour}
	finish := func(id, session string, window time.Duration) *keptStream {
		t.Helper()
		tab.window = window
		ks, ok := tab.add(&httpSink{streamID: id, session: session}, 4)
		if !ok {
			t.Fatalf("stream %s not kept", id)
		}
		if !held.tryHold(100) {
			t.Fatal("held bytes full")
		}
		tab.finish(ks, []keptEvent{{n: 1, ev: []byte("event"), held: 100}}, 1, 100)
		return ks
	}
	finish("a", "s1", time.Hour)
	finish("b", "s1", -time.Second) // its window is over already
	finish("c", "s2", time.Hour)
	if sk, log, last, err := tab.lookup("a", "s1"); err != nil || sk != nil || len(log) != 1 || last != 1 {
		t.Fatalf("lookup of a finished stream: %v %v %d %v", sk, log, last, err)
	}
	if _, _, _, err := tab.lookup("a", "s2"); !errors.Is(err, cluster.ErrStreamNotFound) {
		t.Fatalf("another session's stream: %v, want ErrStreamNotFound", err)
	}
	if _, _, _, err := tab.lookup("b", "s1"); !errors.Is(err, cluster.ErrStreamNotFound) {
		t.Fatalf("a stream past its window: %v, want ErrStreamNotFound", err)
	}
	if n, h := tab.len(), held.n.Load(); n != 2 || h != 200 {
		t.Fatalf("after the lookup past the window: %d streams, %d bytes held; want 2 and 200", n, h)
	}
	tab.shed(1) // the oldest finished stream goes first
	if tab.get("a") != nil || tab.get("c") == nil || held.n.Load() != 100 {
		t.Fatalf("shed freed the wrong stream: a %v, c %v, %d bytes held", tab.get("a"), tab.get("c"), held.n.Load())
	}
	tab.mu.Lock()
	tab.first.windowEnd = time.Now().Add(-time.Second) // c's window ends
	tab.mu.Unlock()
	tab.expire()
	if n, h := tab.len(), held.n.Load(); n != 0 || h != 0 || tab.first != nil || tab.last != nil {
		t.Fatalf("after expire: %d streams, %d bytes held, list %v %v", n, h, tab.first, tab.last)
	}
	tab.expiry.Stop()
}

// TestKeptCallContextAfterTheCall: a handler that keeps its context past
// its call (a resumable one, whose parent holds the request's values
// without its cancellation) still gets the request's values and deadline
// from it, and its error, as from any context.
func TestKeptCallContextAfterTheCall(t *testing.T) {
	f := newFixture(t, Options{}, func(hs *httptest.Server) {
		next := hs.Config.Handler
		hs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, "v")))
		})
	})
	kept := make(chan context.Context, 1)
	f.srv.AddTool(Tool{Name: "keep"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if err := req.Log("info", "keep", "streaming"); err != nil { // upgraded: the stream is kept
			return nil, err
		}
		kept <- ctx
		return TextResult("kept"), nil
	})
	c := f.connect("2025-11-25", `{}`)
	resp, _ := c.callTool("keep", `{}`)
	st := openStream(t, resp)
	st.mustNext()
	if text, _ := st.result(); text != "kept" {
		t.Fatalf("result %q", text)
	}
	st.close()
	ctx := <-kept
	waitStreamsFinished(t, f.srv)
	if v := ctx.Value(ctxKey{}); v != "v" {
		t.Errorf("Value after the call = %v, want the request's", v)
	}
	if _, ok := ctx.Deadline(); ok {
		t.Error("a deadline the request never had")
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err after the call = %v, want context.Canceled", ctx.Err())
	}
}
