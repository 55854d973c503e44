package runtime

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// HTTP header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// ServeHTTP implements the Streamable HTTP transport: POST carries client
// messages, DELETE ends a session, GET with Last-Event-ID resumes a call's
// stream after its connection dropped (see "Resuming a stream" in the
// package doc). A GET without Last-Event-ID (a standalone server stream)
// is not offered (405), because every server message here belongs to a
// call and rides that call's stream.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.made() {
		httpError(w, http.StatusInternalServerError, CodeInternalError, errNotMade.Error())
		return
	}
	if !s.checkOrigin(w, r) {
		return
	}
	if s.shutdown.Load() {
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, "server is shutting down")
		return
	}
	r, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r)
	case http.MethodDelete:
		s.serveDELETE(w, r)
	case http.MethodGet:
		s.serveGET(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "method not allowed: use POST (and GET with Last-Event-ID to resume a stream)")
	}
}

// httpError answers with an HTTP error status and a JSON-RPC error body
// without an id, as the transport allows.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, encodeError(nil, &RPCError{Code: code, Message: msg}))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// accepts reports whether an Accept header allows JSON and SSE replies. A
// missing header accepts anything (RFC 9110). It reads the media ranges by
// hand (type/subtype, then parameters, q=0 excluding the range): this runs
// on every POST, and mime.ParseMediaType allocates a map per range.
func accepts(header []string) (jsonOK, sseOK bool) {
	if len(header) == 0 {
		return true, true
	}
	for _, line := range header {
		for rest := line; rest != ""; {
			var part string
			part, rest, _ = strings.Cut(rest, ",")
			mt, params, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			if excludedByQ(params) {
				continue
			}
			switch {
			case mt == "*/*":
				jsonOK, sseOK = true, true
			case strings.EqualFold(mt, "application/*"), strings.EqualFold(mt, "application/json"):
				jsonOK = true
			case strings.EqualFold(mt, "text/*"), strings.EqualFold(mt, "text/event-stream"):
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

// excludedByQ reports a media range's parameters that say q=0.
func excludedByQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && f == 0
		}
	}
	return false
}

func (s *Server) servePOST(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		httpError(w, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !sseOK {
		httpError(w, http.StatusNotAcceptable, CodeInvalidRequest, "Accept must allow application/json or text/event-stream")
		return
	}
	body, held, err := readBody(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes), r.ContentLength, s.opts.MaxBodyBytes, s.held)
	defer s.held.release(held) // the reply is written before this returns
	if err != nil {
		if err == errBodyBusy {
			httpBusy(w, nil)
			return
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, "body larger than "+strconv.FormatInt(s.opts.MaxBodyBytes, 10)+" bytes")
			return
		}
		httpError(w, http.StatusBadRequest, CodeParseError, "reading body: "+err.Error())
		return
	}
	lt := liftTimeouts(w, r)
	body = trimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		s.serveBatch(w, r, body, sseOK, lt)
		return
	}
	var msg message
	kind, rerr := readMessage(body, &msg) // body is not reused: msg may hold slices of it
	// Every reply with a body goes through the request's sink, which holds
	// its bytes in the budget while they are written (or replaces it when
	// they do not fit); a 202 (an answer, a notification) needs none.
	if rerr != nil {
		s.finish(s.newSink(w, r, sseOK, msg.ID, lt), replyError(http.StatusBadRequest, msg.ID, rerr))
		return
	}
	if isInputRequiredHTTP(r, &msg) {
		if kind == notificationMessage {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		sk := s.newSink(w, r, sseOK, msg.ID, lt)
		mm, rerr := checkInputRequiredHTTP(r, &msg)
		if rerr != nil { // every per-request rule failure is a 400
			s.finish(sk, replyError(http.StatusBadRequest, msg.ID, rerr))
			return
		}
		mm.subject = subjectOf(r)
		s.finish(sk, s.inputRequiredRequest(r.Context(), &msg, mm, sk))
		return
	}
	if msg.Method == "initialize" {
		sk := s.newSink(w, r, sseOK, msg.ID, lt)
		if r.Header.Get(HeaderSessionID) != "" {
			s.finish(sk, replyError(http.StatusBadRequest, msg.ID, rpcErrorf(CodeInvalidRequest, "initialize must not carry %s: the session is already initialized", HeaderSessionID)))
			return
		}
		sess, rep := s.initializeResult(&msg, subjectOf(r), true)
		if sess != nil {
			w.Header().Set(HeaderSessionID, sess.id)
		}
		s.finish(sk, rep)
		return
	}
	sess, ok := s.sessionForMessage(w, r, kind)
	if !ok {
		return
	}
	sess.touch()
	switch kind {
	case responseMessage:
		if status, text := s.routeReply(r.Context(), sess, &msg, body); status != http.StatusAccepted {
			httpError(w, status, CodeInvalidRequest, text)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	case notificationMessage:
		s.sessionNotification(sess, &msg)
		w.WriteHeader(http.StatusAccepted)
	default:
		ctx, sk := r.Context(), s.newSink(w, r, sseOK, msg.ID, lt)
		if sseOK && msg.Method == "tools/call" && s.opts.StreamResumeWindow > 0 {
			ctx = sk.resumable(r, sess) // its stream outlives the POST's connection
			defer sk.callOver()
		}
		s.finish(sk, s.sessionRequest(ctx, sess, &msg, sk))
	}
}

// finish writes a request's reply through its sink.
func (s *Server) finish(sk sink, rep reply) {
	if rep.cancelled && sk.streaming() {
		rep.frame = nil // the stream ends without a response
	}
	if err := sk.finish(rep.status, rep.frame); err != nil {
		s.log.Info("reply not delivered: the client went away", "err", err)
	}
}

// isJSONMediaType reports a Content-Type of application/json, parameters
// allowed (the exact value is checked first, without parsing).
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// readBody is io.ReadAll with the buffer sized from the Content-Length the
// request declares (up to limit, and 64 KiB ahead of the bytes): one
// allocation for a typical request instead of a growing series. It holds
// its buffer in h as the buffer grows (what a client has sent, not what it
// declares, so a slow body holds little) and returns how many bytes it held,
// to release, with errBodyBusy when they do not fit.
func readBody(r io.Reader, contentLength, limit int64, h *heldBytes) (b []byte, held int64, err error) {
	size := int64(512)
	if contentLength > 0 {
		size = min(contentLength, limit, 64<<10) + 1 // +1: room to read the EOF
	}
	b = make([]byte, 0, size)
	for {
		if more := int64(cap(b)) - held; more > 0 {
			if !h.tryHold(more) {
				return nil, held, errBodyBusy
			}
			held += more
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, held, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// errBodyBusy: a request body does not fit in Options.MaxHeldBytes.
var errBodyBusy = errors.New("request body does not fit in the bytes held for clients")

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// sessionFor applies the session rules of a non-initialize request: the
// session header is required (400), must name a live session (404), and a
// protocol version header must be one this server speaks (400).
func (s *Server) sessionFor(w http.ResponseWriter, r *http.Request) (*Session, bool) {
	return s.sessionForMessage(w, r, requestMessage)
}

// sessionForMessage is sessionFor for a message of the given kind (see
// remoteSession).
func (s *Server) sessionForMessage(w http.ResponseWriter, r *http.Request, kind msgKind) (*Session, bool) {
	id := firstHeader(r, HeaderSessionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "missing "+HeaderSessionID+" header: send initialize first")
		return nil, false
	}
	sess, ok := s.session(id)
	if !ok {
		var answered bool
		if sess, answered = s.remoteSession(w, r, id, kind); answered && sess == nil {
			return nil, false // the directory could not be asked: answered
		}
		ok = sess != nil
	}
	if !ok || sess.subject != subjectOf(r) { // another caller's session is as good as none
		if ok {
			s.log.Warn("session used by another subject", "session", id)
		}
		httpError(w, http.StatusNotFound, CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil, false
	}
	if v := firstHeader(r, HeaderProtocolVersion); v != "" && !isSessionVersion(v) {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "unsupported "+HeaderProtocolVersion+" "+strconv.Quote(v))
		return nil, false
	}
	s.refreshSession(r.Context(), sess)
	return sess, true
}

func (s *Server) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	s.log.Info("session deleted", "session", sess.id)
	sess.close(errSessionDeleted)
	if err := s.endEverywhere(r.Context(), sess.id); err != nil {
		s.log.Warn("session end not broadcast to the cluster", "session", sess.id, "err", err)
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, "session ended on this replica but the cluster could not be told: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
