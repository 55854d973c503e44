package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// The server's round trip in memory: the same exchanges as the round-trip
// benchmarks, every request handed to ServeHTTP with its request, body
// reader and response writer reused, so that what a round trip allocates is
// the server's (testing.AllocsPerRun counts every goroutine of the process).
// roundtrip_budget_test.go holds the budgets these drivers are held to.

// allocAsk is the tool "ask": it elicits testform.AskForm and answers
// "<name> <count>".
func allocAsk(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
	form, err := Elicit[testform.AskForm](ctx, "Name and count?")
	if err != nil {
		return nil, err // ErrInputRequired on a 2026-07-28 call's first run
	}
	return TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
}

// streamWriter is an http.ResponseWriter that can be upgraded to SSE: each
// Flush hands what was written so far to the reader waiting in next.
type streamWriter struct {
	h       http.Header
	status  int
	mu      sync.Mutex
	body    bytes.Buffer
	read    int           // bytes of body handed out by next
	flushed chan struct{} // one token per Flush
}

func newStreamWriter() *streamWriter {
	return &streamWriter{h: http.Header{}, flushed: make(chan struct{}, 8)}
}

func (w *streamWriter) Header() http.Header    { return w.h }
func (w *streamWriter) WriteHeader(status int) { w.status = status }

func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(p)
}

func (w *streamWriter) Flush() { w.flushed <- struct{}{} }

// SetWriteDeadline and SetReadDeadline make the writer take deadlines as
// net/http's does (http.ResponseController finds them), so the budgets
// count the server's allocations, not the error a writer without them
// makes on each deadline set.
func (w *streamWriter) SetWriteDeadline(time.Time) error { return nil }
func (w *streamWriter) SetReadDeadline(time.Time) error  { return nil }

// next waits for a Flush and returns the bytes written since the last call
// (valid until the writer is reset).
func (w *streamWriter) next() []byte {
	<-w.flushed
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.body.Bytes()[w.read:]
	w.read = w.body.Len()
	return b
}

func (w *streamWriter) reset() {
	clear(w.h)
	w.status = http.StatusOK
	w.mu.Lock()
	w.body.Reset()
	w.read = 0
	w.mu.Unlock()
}

// memRequest is a POST reused across calls: its body is reset each time.
type memRequest struct {
	req  *http.Request
	body bytes.Reader
	rc   io.ReadCloser
}

func newMemRequest(headers ...string) *memRequest {
	m := &memRequest{req: httptest.NewRequest(http.MethodPost, "/mcp", nil)}
	m.rc = io.NopCloser(&m.body)
	m.req.Header.Set("Content-Type", "application/json")
	m.req.Header.Set("Accept", acceptBoth)
	for i := 0; i+1 < len(headers); i += 2 {
		m.req.Header.Set(headers[i], headers[i+1])
	}
	return m
}

func (m *memRequest) with(payload []byte) *http.Request {
	m.body.Reset(payload)
	m.req.Body = m.rc
	m.req.ContentLength = int64(len(payload))
	return m.req
}

// sessionRoundTrip drives the 2025-11-25 round trip in memory: tools/call
// upgraded to SSE, elicitation/create on it, the answer POSTed (202), the
// result on the stream. The call's ServeHTTP runs on one goroutine kept for
// every round trip.
type sessionRoundTrip struct {
	srv     *Server
	call    *memRequest
	answer  *memRequest
	callW   *streamWriter
	answerW *streamWriter
	start   chan struct{}
	done    chan struct{}
	body    []byte // the answer POST's body, reused
}

var (
	allocCall        = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	allocAnswerHead  = []byte(`{"jsonrpc":"2.0","id":"`)
	allocAnswerTail  = []byte(`","result":` + benchAnswer + `}`)
	allocIDField     = []byte(`"id":"`)
	allocResultShown = []byte(`ada 3`)
)

// newSessionRoundTrip opens a 2025-11-25 session on srv; stop ends its
// goroutine.
func newSessionRoundTrip(srv *Server) (*sessionRoundTrip, error) {
	init := newMemRequest()
	w := newStreamWriter()
	srv.ServeHTTP(w, init.with([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"bench","version":"1"}}}`)))
	sid := w.h.Get(HeaderSessionID)
	if w.status != http.StatusOK || sid == "" {
		return nil, fmt.Errorf("initialize: status %d, session %q: %s", w.status, sid, w.body.Bytes())
	}
	init = newMemRequest(HeaderSessionID, sid, HeaderProtocolVersion, Version20251125)
	w.reset()
	srv.ServeHTTP(w, init.with([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	if w.status != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: status %d: %s", w.status, w.body.Bytes())
	}
	rt := &sessionRoundTrip{
		srv:     srv,
		call:    newMemRequest(HeaderSessionID, sid, HeaderProtocolVersion, Version20251125),
		answer:  newMemRequest(HeaderSessionID, sid, HeaderProtocolVersion, Version20251125),
		callW:   newStreamWriter(),
		answerW: newStreamWriter(),
		start:   make(chan struct{}),
		done:    make(chan struct{}),
	}
	go func() {
		for range rt.start {
			srv.ServeHTTP(rt.callW, rt.call.with(allocCall))
			rt.done <- struct{}{}
		}
	}()
	return rt, nil
}

func (rt *sessionRoundTrip) stop() { close(rt.start) }

// run is one round trip.
func (rt *sessionRoundTrip) run() error {
	rt.callW.reset()
	rt.start <- struct{}{}
	ev := rt.callW.next()
	i := bytes.Index(ev, allocIDField)
	if i < 0 {
		<-rt.done
		return fmt.Errorf("want an elicitation/create event: %s", ev)
	}
	id := ev[i+len(allocIDField):]
	id = id[:bytes.IndexByte(id, '"')]
	rt.body = append(append(append(rt.body[:0], allocAnswerHead...), id...), allocAnswerTail...)
	rt.answerW.reset()
	rt.srv.ServeHTTP(rt.answerW, rt.answer.with(rt.body))
	<-rt.done
	if rt.answerW.status != http.StatusAccepted {
		return fmt.Errorf("answer: status %d: %s", rt.answerW.status, rt.answerW.body.Bytes())
	}
	if !bytes.Contains(rt.callW.body.Bytes(), allocResultShown) {
		return fmt.Errorf("want the result %q on the stream: %s", allocResultShown, rt.callW.body.Bytes())
	}
	return nil
}

// inputRequiredRoundTrip drives the 2026-07-28 round trip in memory: the
// tools/call answered input_required, the retry with the answer and the
// requestState answered complete.
type inputRequiredRoundTrip struct {
	srv          *Server
	req          *memRequest
	w            *streamWriter
	first, retry []byte
}

func newInputRequiredRoundTrip(srv *Server) *inputRequiredRoundTrip {
	return &inputRequiredRoundTrip{
		srv: srv,
		req: newMemRequest(HeaderProtocolVersion, Version20260728, HeaderMethod, "tools/call", HeaderName, "ask"),
		w:   newStreamWriter(),
	}
}

func (rt *inputRequiredRoundTrip) post(payload []byte) ([]byte, error) {
	rt.w.reset()
	rt.srv.ServeHTTP(rt.w, rt.req.with(payload))
	if rt.w.status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", rt.w.status, rt.w.body.Bytes())
	}
	return rt.w.body.Bytes(), nil
}

// run is one round trip.
func (rt *inputRequiredRoundTrip) run() error {
	first, err := rt.post([]byte(benchInputRequiredFirst))
	if err != nil {
		return err
	}
	rt.first = append(rt.first[:0], first...)
	var ok bool
	if rt.retry, ok = appendRetry(rt.retry[:0], rt.first); !ok {
		return fmt.Errorf("want input_required with a requestState: %s", rt.first)
	}
	res, err := rt.post(rt.retry)
	if err != nil {
		return err
	}
	if !bytes.Contains(res, completeType) || !bytes.Contains(res, allocResultShown) {
		return fmt.Errorf("want the complete result: %s", res)
	}
	return nil
}

// allocsPerRoundTrip is testing.AllocsPerRun over run, failing t on the
// first error.
func allocsPerRoundTrip(t testing.TB, runs int, run func() error) float64 {
	t.Helper()
	var failed error
	n := testing.AllocsPerRun(runs, func() {
		if failed == nil {
			failed = run()
		}
	})
	if failed != nil {
		t.Fatal(failed)
	}
	return n
}

// newAllocRoundTrips serves the tool "ask" (allocAsk) and returns a
// driver of each round trip; tb's cleanup stops them.
func newAllocRoundTrips(tb testing.TB) (*sessionRoundTrip, *inputRequiredRoundTrip) {
	tb.Helper()
	srv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1})
	srv.AddTool(Tool{Name: "ask"}, allocAsk)
	return startAllocRoundTrips(tb, srv)
}

// startAllocRoundTrips returns a driver of each round trip of srv's tool
// "ask"; tb's cleanup stops them and srv.
func startAllocRoundTrips(tb testing.TB, srv *Server) (*sessionRoundTrip, *inputRequiredRoundTrip) {
	tb.Helper()
	tb.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	rt, err := newSessionRoundTrip(srv)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(rt.stop)
	return rt, newInputRequiredRoundTrip(srv)
}

// Allocation budgets of the server's round trip: today's counts, exact.
// They fail when a change makes the hot path allocate more, on any machine
// (allocation counts do not depend on load). A change that allocates less
// lowers them in the same commit. See also make bench-compare. The
// writers take deadlines as net/http's does, so a deadline set costs what
// it costs in production: nothing (a writer without them makes an error
// for each).
const (
	// 2025-11-25: tools/call on SSE, elicitation/create, answer POST,
	// result (the answer's POST, a 202, makes no sink). The call's context
	// is its only one, made over the request's values without its
	// cancellation (held in the sink), and it makes no cancellation of its
	// own: its wait for the answer waits on the answer, which a cancel
	// resolves, and on the POST's connection (handlerCtx.await,
	// httpSink.connDone). The stream's timer is one a finished stream gave
	// back (streamTimers). 1 is the stream's entry in the table of streams
	// kept for a resumption (keptStream), which is all a finished stream
	// keeps besides its events: not its sink, nor a timer.
	budgetSessionRoundTrip = 25
	// 2026-07-28: tools/call → input_required, retry → complete. Neither
	// run waits, so neither makes its context's cancellation (handlerCtx).
	budgetInputRequiredRoundTrip = 28
)

func TestRoundTripAllocs(t *testing.T) {
	skipAllocsUnderRace(t)
	rt, ir := newAllocRoundTrips(t)
	for _, c := range []struct {
		name   string
		run    func() error
		budget float64
	}{
		{"session 2025-11-25", rt.run, budgetSessionRoundTrip},
		{"input_required 2026-07-28", ir.run, budgetInputRequiredRoundTrip},
	} {
		checkAllocBudget(t, c.name, allocsPerRoundTrip(t, 200, c.run), c.budget)
	}
}

// Budgets of the dynamic form paths and of decoding an answer.
const (
	// ElicitSchema's hand-built schema (benchSchema), 2025-11-25 round trip.
	budgetElicitSchemaRoundTrip = 77
	// A generated form with run-time choices and per-call defaults
	// (newBenchDynamicServer: WithChoices, WithDefaults), 2026-07-28.
	budgetDynamicRoundTrip = 69
	// DecodeAnswer of testform.AskForm from an accepted result.
	budgetDecodeAnswer = 2
)

func TestDynamicFormAllocs(t *testing.T) {
	skipAllocsUnderRace(t)
	schemaSrv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1})
	schemaSrv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		content, err := ElicitSchema(ctx, "Name and count?", benchSchema)
		if err != nil {
			return nil, err
		}
		return TextResult(fmt.Sprint(content["name"], " ", content["count"])), nil
	})
	schemaRT, _ := startAllocRoundTrips(t, schemaSrv)
	_, dynRT := startAllocRoundTrips(t, newBenchDynamicServer())
	checkAllocBudget(t, "ElicitSchema, session 2025-11-25", allocsPerRoundTrip(t, 200, schemaRT.run), budgetElicitSchemaRoundTrip)
	checkAllocBudget(t, "WithChoices and WithDefaults, input_required 2026-07-28", allocsPerRoundTrip(t, 200, dynRT.run), budgetDynamicRoundTrip)
}

func TestDecodeAnswerAllocs(t *testing.T) {
	skipAllocsUnderRace(t)
	answer := json.RawMessage(benchAnswer)
	got := allocsPerRoundTrip(t, 1000, func() error {
		f, err := DecodeAnswer[testform.AskForm](answer)
		if err == nil && (f.Name != "ada" || f.Count != 3) {
			err = fmt.Errorf("decoded %+v", f)
		}
		return err
	})
	checkAllocBudget(t, "DecodeAnswer[testform.AskForm]", got, budgetDecodeAnswer)
}

// checkAllocBudget fails t when got exceeds budget, and says so when it is
// below (the budget should then come down).
func checkAllocBudget(t *testing.T, name string, got, budget float64) {
	t.Helper()
	switch {
	case got > budget:
		t.Errorf("%s: %.0f allocations, budget %.0f: the hot path allocates more than it did; find the new allocation (go test -bench %s -memprofile) or, if it is worth it, raise the budget in the same commit", name, got, budget, "RoundTripMem")
	case got < budget:
		t.Logf("%s: %.0f allocations, below the budget of %.0f: lower the budget", name, got, budget)
	}
}

// BenchmarkSessionRoundTripMem and BenchmarkInputRequiredRoundTripMem are
// the budgets' round trips as benchmarks, for -memprofile:
//
//	go test -run '^$' -bench RoundTripMem -benchmem -memprofile mem.out -memprofilerate 1 ./runtime/
func BenchmarkSessionRoundTripMem(b *testing.B) {
	rt, _ := newAllocRoundTrips(b)
	benchRoundTrips(b, rt.run)
}

func BenchmarkInputRequiredRoundTripMem(b *testing.B) {
	_, ir := newAllocRoundTrips(b)
	benchRoundTrips(b, ir.run)
}

func benchRoundTrips(b *testing.B, run func() error) {
	b.ReportAllocs()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHeaderNamesCanonical: the hot path looks the MCP headers up by these
// names without canonicalizing them (headerValue, firstHeader).
func TestHeaderNamesCanonical(t *testing.T) {
	for _, name := range []string{HeaderSessionID, HeaderProtocolVersion, HeaderMethod, HeaderName} {
		if c := http.CanonicalHeaderKey(name); c != name {
			t.Errorf("header name %q is not canonical (%q)", name, c)
		}
	}
}

// skipAllocsUnderRace skips t under the race detector, which allocates on
// its own behalf (the counts differ from a normal build's).
func skipAllocsUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
}
