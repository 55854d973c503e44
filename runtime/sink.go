package runtime

import (
	"errors"
	"net/http"
	"strconv"
	"sync"
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

	// rc and streamID are made on the upgrade: most replies are plain
	// JSON and need neither (the id costs a read of crypto/rand).
	rc       *http.ResponseController
	streamID string
	// writeTimeout is the http.Server's WriteTimeout once outliveTimeouts
	// lifted the request's deadlines: each write gets that long.
	writeTimeout time.Duration

	mu       sync.Mutex
	streamed bool // upgraded to SSE
	closed   bool // final response written (or the request is over)
	nextID   uint64
	failed   error // first write error: the client went away
}

func newHTTPSink(w http.ResponseWriter, streamOK bool, header func(http.Header)) *httpSink {
	return &httpSink{w: w, streamOK: streamOK, header: header}
}

func (s *httpSink) canSend() bool { return s.streamOK }

// send writes a message that precedes the response (a request or a
// notification), upgrading to SSE first if needed.
func (s *httpSink) send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errSinkClosed
	}
	if s.failed != nil {
		return s.failed
	}
	if !s.streamed {
		if !s.streamOK {
			return errCannotStream
		}
		s.upgradeLocked()
	}
	return s.eventLocked(msg)
}

// outliveTimeouts lifts the read and write deadlines the http.Server set
// for the request, whose body has been read in full: a call may take longer
// than ReadTimeout (whose expiry would cancel the request's context) and
// WriteTimeout (which would drop its reply). Each write of the reply then
// gets WriteTimeout of its own (armWriteLocked), so a client that stops
// reading still cannot hold the connection.
func (s *httpSink) outliveTimeouts(r *http.Request) {
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if hs == nil || hs.ReadTimeout <= 0 && hs.WriteTimeout <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rc = http.NewResponseController(s.w)
	_ = s.rc.SetReadDeadline(time.Time{})
	_ = s.rc.SetWriteDeadline(time.Time{})
	s.writeTimeout = hs.WriteTimeout
}

// armWriteLocked gives the write that follows writeTimeout, when set.
func (s *httpSink) armWriteLocked() {
	if s.writeTimeout > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// upgradeLocked switches the reply to text/event-stream.
func (s *httpSink) upgradeLocked() {
	s.streamed = true
	if s.rc == nil {
		s.rc = http.NewResponseController(s.w)
	}
	s.streamID = newID()[:16]
	// Known trap 1: the server's WriteTimeout (and ReadTimeout, whose expiry
	// cancels the request context) would kill a stream that waits on a human.
	_ = s.rc.SetWriteDeadline(time.Time{})
	_ = s.rc.SetReadDeadline(time.Time{})
	h := s.w.Header()
	if s.header != nil {
		s.header(h)
	}
	// Canonical keys assigned directly: Header.Set would canonicalize
	// them again on every reply.
	h["Content-Type"] = []string{"text/event-stream"}
	h["Cache-Control"] = []string{"no-cache, no-transform"}
	h["X-Accel-Buffering"] = []string{"no"}
	s.w.WriteHeader(http.StatusOK)
}

// eventLocked writes one SSE event and flushes it.
func (s *httpSink) eventLocked(msg []byte) error { return s.writeEventLocked(msg, true) }

// writeEventLocked writes one SSE event, flushing it when flush is set. The
// last event is not flushed: the handler returns right after it, and
// net/http then sends it together with the stream's end in one write.
func (s *httpSink) writeEventLocked(msg []byte, flush bool) error {
	s.nextID++
	buf := make([]byte, 0, len(msg)+len(s.streamID)+40)
	buf = append(buf, "id: "...)
	buf = append(buf, s.streamID...)
	buf = append(buf, '-')
	buf = strconv.AppendUint(buf, s.nextID, 10)
	buf = append(buf, "\nevent: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	s.armWriteLocked()
	if _, err := s.w.Write(buf); err != nil {
		s.failed = err
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
		if s.failed != nil || msg == nil {
			return s.failed
		}
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
	h["Content-Type"] = []string{"application/json"} // canonical keys, as on the upgrade
	h["Content-Length"] = []string{strconv.Itoa(len(msg))}
	s.armWriteLocked()
	s.w.WriteHeader(status)
	_, err := s.w.Write(msg)
	return err
}

// close marks the sink finished without writing (the handler is gone).
func (s *httpSink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// streaming reports whether the reply has been upgraded to SSE.
func (s *httpSink) streaming() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streamed
}
