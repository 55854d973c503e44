package runtime

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// errSinkClosed: the POST's reply has been written in full; nothing more can
// go on its stream.
var errSinkClosed = errors.New("elicit: the request's reply stream is closed")

// errCannotStream: the POST's Accept header does not allow text/event-stream,
// so no server message can precede the response.
var errCannotStream = errors.New("the request's Accept header does not allow text/event-stream")

// sink is the reply channel of one request: where its server messages
// (elicitations, notifications) and finally its response go. Each
// transport has its own: a POST's reply (httpSink) or a stdio line writer.
type sink interface {
	// send writes a message that precedes the response.
	send(msg []byte) error
	// finish writes the response (nil: none) and closes the sink; status
	// is what an HTTP reply that has not been upgraded says.
	finish(status int, msg []byte) error
	// close closes the sink without writing.
	close()
	// streaming reports whether messages have preceded the response.
	streaming() bool
	// canSend reports whether the sink can carry messages before the
	// response at all.
	canSend() bool
}

// httpSink is the reply channel of one request POST. It answers with
// application/json unless something must be sent before the response (an
// elicitation, a progress or log notification); then it upgrades in place to
// text/event-stream, clears the write and read deadlines (the stream lives at
// human speed, longer than any sane http.Server timeout) and writes every
// message as an SSE event with an id. The response is always the last event.
type httpSink struct {
	w        http.ResponseWriter
	streamOK bool
	header   func(http.Header) // adds headers (session id) before the first write
	// held counts the reply's bytes while they are written (Options.
	// MaxHeldBytes); id is the request's, for the error that replaces a
	// response that does not fit.
	held *heldBytes
	id   []byte

	// rc and streamID are made on the upgrade: most replies are plain
	// JSON and need neither (the id costs a read of crypto/rand).
	rc       *http.ResponseController
	streamID string
	// writeTimeout bounds each write of the reply (liftTimeouts): the
	// http.Server's WriteTimeout, or HTTPWriteTimeout when it has none;
	// deadline is the write deadline armWriteLocked set last.
	writeTimeout time.Duration
	deadline     time.Time

	// srv is the server the reply belongs to (nil in a bare sink): its
	// options (StreamKeepAlive), its replica id (in the stream id) and its
	// table of streams kept for a resumption.
	srv *Server
	// req is the POST, for telemetry's client address (nil in a bare sink).
	req *http.Request
	// session is set (resumable) for a call whose stream may be resumed:
	// its session's id. base is the call's context's parent then, which
	// the POST's connection ending does not cancel; call is the call, which
	// its context's own cancellation cancels (sessionCall), and
	// stopWatch ends the watch on that connection, once one started;
	// watchOver is set once the call is over (resume.go).
	session   string
	base      callBase
	call      *call
	stopWatch func() bool
	watchOver bool
	connSeen  atomic.Bool // connectionGone has run: the connection needs no more looking at

	mu       sync.Mutex
	streamed bool // upgraded to SSE
	closed   bool // final response written (or the request is over)
	nextID   uint64
	failed   error // first write error: the client went away
	// timer is the stream's one timer (tick), from the upgrade on: the
	// keep-alive (Options.StreamKeepAlive) while the stream has a reader,
	// the resume window (Options.StreamResumeWindow) while a kept stream
	// has none.
	timer     *streamTimer // nil: none (streamTimers has it back)
	lastWrite time.Time    // of the last event or keep-alive
	rs        resumeState  // a kept stream's (resume.go)
	// keptBytes is what a running kept stream's events hold; the table of
	// kept streams reads it without the sink's lock.
	keptBytes atomic.Int64
}

func newHTTPSink(w http.ResponseWriter, streamOK bool, header func(http.Header)) *httpSink {
	return &httpSink{w: w, streamOK: streamOK, header: header}
}

// newSink is the sink of a request POST to s: its bytes held in s's
// budget, the server's deadlines lifted (lt, liftTimeouts), id the
// request's.
func (s *Server) newSink(w http.ResponseWriter, r *http.Request, streamOK bool, id []byte, lt liftedTimeouts) *httpSink {
	sk := newHTTPSink(w, streamOK, nil)
	sk.held, sk.id, sk.srv, sk.req = s.held, id, s, r
	sk.rc, sk.writeTimeout = lt.rc, lt.write
	return sk
}

func (s *httpSink) canSend() bool { return s.streamOK }

// send writes a message that precedes the response (a request or a
// notification), upgrading to SSE first if needed.
func (s *httpSink) send(msg []byte) error {
	s.mu.Lock()
	if !s.closed && s.session != "" && s.goneBeforeUpgradeLocked() {
		c := s.call
		s.mu.Unlock()
		s.connectionGone() // cancels the call: its client went away before anything was sent
		return ctxError(c.own)
	}
	defer s.mu.Unlock()
	if s.closed {
		return errSinkClosed
	}
	if s.failed != nil {
		return s.failed
	}
	if !s.streamOK {
		return errCannotStream
	}
	if !s.held.tryHold(eventSize(msg)) {
		return ErrServerBusy
	}
	if !s.streamed {
		s.upgradeLocked()
	}
	return s.eventLocked(msg)
}

// liftTimeouts lifts the read and write deadlines the http.Server set for
// a POST whose body has been read in full, before anything else is done
// with it: a call may take longer than ReadTimeout (whose expiry would
// cancel the request's context) and WriteTimeout (which would drop its
// reply), and so may a session's lookup or an answer's delivery through a
// Cluster. Each write of the reply must then end within the write timeout
// it returns (armWriteLocked), so a client that stops reading still cannot
// hold the connection, nor the reply's bytes in Options.MaxHeldBytes: the
// http.Server's WriteTimeout, or HTTPWriteTimeout when it has none (an
// adopter's own, http.ListenAndServe's), since otherwise a client that
// never reads would hold its reply for as long as it keeps the connection.
func liftTimeouts(w http.ResponseWriter, r *http.Request) liftedTimeouts {
	lt := liftedTimeouts{write: HTTPWriteTimeout}
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if hs == nil || hs.ReadTimeout <= 0 && hs.WriteTimeout <= 0 {
		return lt
	}
	lt.rc = http.NewResponseController(w)
	_ = lt.rc.SetReadDeadline(time.Time{})
	_ = lt.rc.SetWriteDeadline(time.Time{})
	if hs.WriteTimeout > 0 {
		lt.write = hs.WriteTimeout
	}
	return lt
}

// liftedTimeouts is what liftTimeouts did: the ResponseController it made
// (nil when there was nothing to lift) and the bound of each write.
type liftedTimeouts struct {
	rc    *http.ResponseController
	write time.Duration
}

// writeDeadliner is what net/http's response writers implement, which
// ResponseController calls; asserted directly, a deadline costs no
// ResponseController on a reply that needs none otherwise.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// armWriteLocked bounds the write that follows by writeTimeout, when set:
// the write deadline is set writeTimeout ahead, unless the one set last is
// still at least half of it ahead (a reply's writes, an event and the next
// one, often follow each other within microseconds: each then costs no
// timer of its own). So a write gets at least half of writeTimeout and
// never more than all of it. (net/http clears the connection's write
// deadline after the handler's reply is flushed, so the next request on it
// is not affected.)
func (s *httpSink) armWriteLocked() {
	if s.writeTimeout <= 0 {
		return
	}
	now := time.Now()
	if s.deadline.Sub(now) >= s.writeTimeout/2 {
		return
	}
	deadline := now.Add(s.writeTimeout)
	s.deadline = deadline
	if s.rc == nil {
		if d, ok := s.w.(writeDeadliner); ok {
			_ = d.SetWriteDeadline(deadline)
			return
		}
		s.rc = http.NewResponseController(s.w) // a wrapped writer: unwrapped by rc
	}
	_ = s.rc.SetWriteDeadline(deadline)
}

// upgradeLocked switches the reply to text/event-stream.
func (s *httpSink) upgradeLocked() {
	s.streamed = true
	if s.rc == nil {
		s.rc = http.NewResponseController(s.w)
	}
	if s.srv != nil {
		s.streamID = s.srv.newStreamID()
	} else {
		s.streamID = newID()[:16]
	}
	// Known trap 1: the server's WriteTimeout (and ReadTimeout, whose expiry
	// cancels the request context) would kill a stream that waits on a
	// human; so would a deadline a middleware set.
	_ = s.rc.SetWriteDeadline(time.Time{})
	_ = s.rc.SetReadDeadline(time.Time{})
	s.deadline = time.Time{}
	h := s.w.Header()
	if s.header != nil {
		s.header(h)
	}
	setStreamHeaders(h)
	s.w.WriteHeader(http.StatusOK)
	s.lastWrite = time.Now()
	if s.srv == nil {
		return
	}
	if s.session != "" {
		s.keepStreamLocked() // first: the stream it evicts gives its timer back, for this one
	}
	if d := s.srv.opts.StreamKeepAlive; d > 0 {
		s.resetTimerLocked(d)
	}
}

// setStreamHeaders sets the headers of an SSE reply. Canonical keys are
// assigned directly (Header.Set would canonicalize them again on every
// reply), the three values in one allocation, each capped so that
// appending to one cannot overwrite the next.
func setStreamHeaders(h http.Header) {
	values := []string{"text/event-stream", "no-cache, no-transform", "no"}
	h["Content-Type"] = values[0:1:1]
	h["Cache-Control"] = values[1:2:2]
	h["X-Accel-Buffering"] = values[2:]
}

// keepAliveComment is the SSE comment written on a silent stream: readers
// ignore it; proxies see bytes and keep the connection.
var keepAliveComment = []byte(": keep-alive\n\n")

// tick is the stream's timer. While the stream has a reader, it writes a
// keep-alive comment once the stream has been silent for
// Options.StreamKeepAlive, through the lock, the write deadline and the
// reader of an event: a failed write fails (or detaches) the stream as an
// event's would. While a kept stream waits for a resumption, it ends the
// resume window.
func (s *httpSink) tick() {
	s.mu.Lock()
	if s.timer == nil { // a firing of a timer given back since (stopTimerLocked)
		s.mu.Unlock()
		return
	}
	if s.rs.kept && s.rs.detached {
		abandoned, c := s.windowTickLocked(), s.call // read under the lock: callOver clears it
		s.mu.Unlock()
		if abandoned {
			s.srv.log.Info("call cancelled: its stream was not resumed within Options.StreamResumeWindow", "session", s.session, "stream", s.streamID)
			c.cancel(errStreamAbandoned)
		}
		return
	}
	defer s.mu.Unlock()
	every := s.srv.opts.StreamKeepAlive
	if s.closed || s.failed != nil || every <= 0 {
		return
	}
	if idle := time.Since(s.lastWrite); idle < every {
		s.timer.t.Reset(every - idle)
		return
	}
	s.lastWrite = time.Now()
	_ = s.emitLocked(keepAliveComment, true)
	if s.failed == nil && !s.rs.detached { // else failed, or the window runs
		s.timer.t.Reset(every)
	}
}

// streamTimer is a stream's timer, reused from stream to stream
// (streamTimers): its firing ticks the stream that holds it now, if any.
// A firing that started before the timer changed hands may tick the new
// holder, or the old one: tick takes either in stride (it checks the time
// it waits for, and returns on a sink without a timer).
type streamTimer struct {
	t  *time.Timer
	sk atomic.Pointer[httpSink]
}

func (st *streamTimer) fire() {
	if sk := st.sk.Load(); sk != nil {
		sk.tick()
	}
}

// streamTimers holds the stopped timers of streams that no longer need
// one: a stream's timer costs no allocation once the server runs.
var streamTimers sync.Pool

// resetTimerLocked sets the stream's timer to tick after d.
func (s *httpSink) resetTimerLocked(d time.Duration) {
	if s.timer != nil {
		s.timer.t.Reset(d)
		return
	}
	if st, _ := streamTimers.Get().(*streamTimer); st != nil {
		s.timer = st
		st.sk.Store(s)
		st.t.Reset(d)
		return
	}
	st := &streamTimer{}
	st.sk.Store(s)
	st.t = time.AfterFunc(d, st.fire)
	s.timer = st
}

// stopTimerLocked stops the stream's timer and gives it back.
func (s *httpSink) stopTimerLocked() {
	if st := s.timer; st != nil {
		st.t.Stop()
		st.sk.Store(nil)
		s.timer = nil
		streamTimers.Put(st)
	}
}

// emitLocked writes p, a whole event or comment, to where the stream's
// bytes go now: the POST's own reply, a resuming reader (resume.go), or
// nowhere while a resumable stream waits for its client. A failed write
// fails the sink, or detaches a resumable stream's reader.
func (s *httpSink) emitLocked(p []byte, flush bool) error {
	if s.rs.reader != nil {
		if err := s.rs.reader.send(p, flush); err != nil {
			s.detachLocked()
		}
		return nil
	}
	if s.rs.detached {
		return nil
	}
	s.armWriteLocked()
	if _, err := s.w.Write(p); err != nil {
		return s.writeFailedLocked(err)
	}
	if flush {
		if err := s.rc.Flush(); err != nil {
			return s.writeFailedLocked(err)
		}
	}
	return nil
}

// writeFailedLocked records a failed write of the POST's own reply: it
// fails the sink, or detaches a kept stream, which waits for its client to
// resume it.
func (s *httpSink) writeFailedLocked(err error) error {
	if s.rs.kept {
		s.detachLocked()
		return nil
	}
	s.failed = err
	return err
}

// eventLocked writes one SSE event and flushes it.
func (s *httpSink) eventLocked(msg []byte) error { return s.writeEventLocked(msg, true) }

// eventSize is the room for the SSE event that carries msg (its id is at
// most 64+1+16+1+20 bytes: replica, stream, number): what writeEventLocked
// releases once written (or a kept stream once it drops the event), held
// by its caller.
func eventSize(msg []byte) int64 { return int64(len(msg) + 137) }

// replySize is what a reply written whole holds: its bytes.
func replySize(msg []byte) int64 { return int64(len(msg)) }

// writeEventLocked writes one SSE event, whose eventSize the caller held,
// flushing it when flush is set, and releases it. The last event is not
// flushed: the handler returns right after it, and net/http then sends it
// together with the stream's end in one write.
func (s *httpSink) writeEventLocked(msg []byte, flush bool) error {
	size := eventSize(msg)
	s.nextID++
	s.lastWrite = time.Now()
	if s.rs.kept {
		return s.logEventLocked(msg, size, flush) // held while kept
	}
	defer s.held.release(size)
	big := len(msg) > 64<<10 // not copied: the held bytes are the message's alone
	buf := make([]byte, 0, size)
	if big {
		buf = buf[:0:eventSize(nil)]
	}
	buf = s.appendEventHead(buf)
	s.armWriteLocked()
	if big {
		if err := s.writeAllLocked(buf, msg, eventEnd); err != nil {
			return err
		}
	} else if err := s.writeAllLocked(append(append(buf, msg...), eventEnd...)); err != nil {
		return err
	}
	if !flush {
		return nil
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = err
		return err
	}
	return nil
}

var eventEnd = []byte("\n\n")

// appendEventHead appends the head of the event nextID: its id and type,
// up to its data.
func (s *httpSink) appendEventHead(buf []byte) []byte {
	buf = append(buf, "id: "...)
	buf = append(buf, s.streamID...)
	buf = append(buf, '-')
	buf = strconv.AppendUint(buf, s.nextID, 10)
	return append(buf, "\nevent: message\ndata: "...)
}

// writeAllLocked writes parts in order; the first error fails the sink.
func (s *httpSink) writeAllLocked(parts ...[]byte) error {
	for _, p := range parts {
		if _, err := s.w.Write(p); err != nil {
			s.failed = err
			return err
		}
	}
	return nil
}

// finish writes the response and closes the sink. status applies only to a
// plain JSON reply (an SSE stream has already said 200).
func (s *httpSink) finish(status int, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errSinkClosed
	}
	s.closed = true
	if s.streamed {
		if s.rs.kept {
			return s.finishKeptLocked(msg)
		}
		s.stopTimerLocked()
		if s.failed != nil || msg == nil {
			return s.failed
		}
		msg, _ = s.held.holdReply(msg, s.id, eventSize) // busy: the stream ends with the error instead
		return s.writeEventLocked(msg, false)
	}
	h := s.w.Header()
	if s.header != nil {
		s.header(h)
	}
	if msg == nil {
		s.w.WriteHeader(http.StatusAccepted)
		return nil
	}
	msg, ok := s.held.holdReply(msg, s.id, replySize)
	if !ok {
		status = http.StatusServiceUnavailable
		h.Set("Retry-After", busyRetryAfter)
	}
	defer s.held.release(replySize(msg))
	// Canonical keys, as on the upgrade. A reply net/http buffers whole
	// (bufferBeforeChunkingSize) gets its Content-Length from net/http,
	// which counts it as it sends it, with no header entry to clone; a
	// longer one says it here, so that it is not sent chunked.
	if len(msg) <= netHTTPBuffered {
		h["Content-Type"] = []string{"application/json"}
	} else {
		values := []string{"application/json", strconv.Itoa(len(msg))} // one allocation; Content-Type's capped, so appending to it cannot overwrite Content-Length's
		h["Content-Type"] = values[:1:1]
		h["Content-Length"] = values[1:]
	}
	s.armWriteLocked()
	s.w.WriteHeader(status)
	_, err := s.w.Write(msg)
	return err
}

// netHTTPBuffered is the longest reply net/http's server holds back until
// the handler returns (its bufferBeforeChunkingSize), and then sends with
// a Content-Length it sets itself.
const netHTTPBuffered = 2048

// close marks the sink finished without writing (the handler is gone).
func (s *httpSink) close() {
	s.mu.Lock()
	s.closed = true
	s.stopTimerLocked()
	s.mu.Unlock()
}

// streaming reports whether the reply has been upgraded to SSE.
func (s *httpSink) streaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streamed
}
