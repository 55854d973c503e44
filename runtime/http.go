package runtime

import (
	"context"
	"encoding/json"
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
// messages, DELETE ends a session; GET (a standalone server stream) is not
// offered (405), because every server message here belongs to a call and
// rides that call's stream.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.originAllowed(r.Header.Get("Origin")) {
		s.log.Warn("request from a forbidden origin", "origin", r.Header.Get("Origin"))
		httpError(w, http.StatusForbidden, CodeInvalidRequest, "origin not allowed")
		return
	}
	if s.shutdown.Load() {
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, "server is shutting down")
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePOST(w, r)
	case http.MethodDelete:
		s.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "method not allowed: use POST (GET streams are not offered)")
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
// missing header accepts anything (RFC 9110).
func accepts(header []string) (jsonOK, sseOK bool) {
	if len(header) == 0 {
		return true, true
	}
	for _, line := range header {
		for _, part := range strings.Split(line, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
					continue
				}
			}
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/*", "application/json":
				jsonOK = true
			case "text/*", "text/event-stream":
				sseOK = true
			}
		}
	}
	return jsonOK, sseOK
}

func (s *Server) servePOST(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !sseOK {
		httpError(w, http.StatusNotAcceptable, CodeInvalidRequest, "Accept must allow application/json or text/event-stream")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, "body larger than "+strconv.FormatInt(s.opts.MaxBodyBytes, 10)+" bytes")
			return
		}
		httpError(w, http.StatusBadRequest, CodeParseError, "reading body: "+err.Error())
		return
	}
	body = trimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		// JSON-RPC batches were removed in 2025-06-18; this server answers
		// every request on its own stream and never accepted them.
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "JSON-RPC batches are not supported")
		return
	}
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil {
		httpError(w, http.StatusBadRequest, CodeParseError, "parse error: "+err.Error())
		return
	}
	if err := msg.validate(); err != nil {
		writeJSON(w, http.StatusBadRequest, encodeError(msg.ID, rpcErrorf(CodeInvalidRequest, "invalid request: %v", err)))
		return
	}
	if modernRequest(r, &msg) {
		s.serveModern(w, r, &msg, sseOK)
		return
	}
	if msg.Method == "initialize" {
		s.serveInitialize(w, r, &msg, sseOK)
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	sess.touch()
	switch {
	case msg.isResponse():
		s.serveReply(w, sess, &msg)
	case msg.isNotification():
		s.serveNotification(sess, &msg)
		w.WriteHeader(http.StatusAccepted)
	default:
		s.serveRequest(w, r, sess, &msg, jsonOK, sseOK)
	}
}

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
	id := r.Header.Get(HeaderSessionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "missing "+HeaderSessionID+" header: send initialize first")
		return nil, false
	}
	sess, ok := s.session(id)
	if !ok {
		httpError(w, http.StatusNotFound, CodeInvalidRequest, "session not found: it ended or never existed; initialize a new one")
		return nil, false
	}
	if v := r.Header.Get(HeaderProtocolVersion); v != "" && !isLegacyVersion(v) {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "unsupported "+HeaderProtocolVersion+" "+strconv.Quote(v))
		return nil, false
	}
	return sess, true
}

type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

func (s *Server) serveInitialize(w http.ResponseWriter, r *http.Request, msg *message, sseOK bool) {
	if !msg.isRequest() {
		writeJSON(w, http.StatusBadRequest, encodeError(nil, rpcErrorf(CodeInvalidRequest, "initialize must be a request")))
		return
	}
	if r.Header.Get(HeaderSessionID) != "" {
		writeJSON(w, http.StatusBadRequest, encodeError(msg.ID, rpcErrorf(CodeInvalidRequest, "initialize must not carry %s: the session is already initialized", HeaderSessionID)))
		return
	}
	var p initializeParams
	if len(msg.Params) == 0 || json.Unmarshal(msg.Params, &p) != nil || p.ProtocolVersion == "" {
		writeJSON(w, http.StatusOK, encodeError(msg.ID, rpcErrorf(CodeInvalidParams, "initialize needs params with protocolVersion, capabilities and clientInfo")))
		return
	}
	version := negotiate(p.ProtocolVersion)
	sess, err := s.newSession(version, p.Capabilities, p.ClientInfo)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, err.Error())
		return
	}
	s.log.Info("session started", "session", sess.id, "protocol", version, "elicit_form", sess.caps.form, "elicit_url", sess.caps.url)
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}, "logging": map[string]any{}},
		"serverInfo":      map[string]any{"name": s.opts.Name, "version": s.opts.Version},
	}
	if s.opts.Instructions != "" {
		result["instructions"] = s.opts.Instructions
	}
	frame, _ := encodeResponse(msg.ID, result) // plain maps always marshal
	w.Header().Set(HeaderSessionID, sess.id)
	writeJSON(w, http.StatusOK, frame)
}

// serveReply routes a client's response to the elicitation waiting on it.
// Only the session that sent the request can answer it: ids are looked up in
// that session's own table, so another session's answer never resolves it.
func (s *Server) serveReply(w http.ResponseWriter, sess *Session, msg *message) {
	if sess.deliver(msg) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.log.Warn("answer for no pending request", "session", sess.id, "id", string(msg.ID))
	httpError(w, http.StatusBadRequest, CodeInvalidRequest, "no pending request with id "+string(msg.ID)+" in this session")
}

func (s *Server) serveNotification(sess *Session, msg *message) {
	switch msg.Method {
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(msg.Params, &p) == nil && validID(p.RequestID) {
			if !sess.cancelCall(idKey(p.RequestID), p.Reason) {
				s.log.Debug("cancel for no running request", "session", sess.id, "id", string(p.RequestID))
			}
		}
	default:
		// notifications/initialized and anything unknown: nothing to do.
	}
}

func (s *Server) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	s.log.Info("session deleted", "session", sess.id)
	sess.close(errSessionDeleted)
	w.WriteHeader(http.StatusNoContent)
}

// serveRequest answers a request of a live session.
func (s *Server) serveRequest(w http.ResponseWriter, r *http.Request, sess *Session, msg *message, jsonOK, sseOK bool) {
	switch msg.Method {
	case "ping", "logging/setLevel":
		writeJSON(w, http.StatusOK, encodeRawResponse(msg.ID, []byte("{}")))
	case "tools/list":
		writeJSON(w, http.StatusOK, encodeRawResponse(msg.ID, s.toolsListResult()))
	case "tools/call":
		s.serveCall(w, r, sess, msg, sseOK)
	default:
		writeJSON(w, http.StatusOK, encodeError(msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s", msg.Method)))
	}
}

// serveCall runs a tools/call on the POST's own reply sink.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, sess *Session, msg *message, sseOK bool) {
	p, perr := parseCallParams(msg.Params)
	if perr != nil {
		writeJSON(w, http.StatusOK, encodeError(msg.ID, perr))
		return
	}
	t, ok := s.lookupTool(p.Name)
	if !ok {
		writeJSON(w, http.StatusOK, encodeError(msg.ID, rpcErrorf(CodeInvalidParams, "unknown tool: %q", p.Name)))
		return
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	c := &call{session: sess, key: idKey(msg.ID), id: msg.ID, cancelF: cancel,
		sink: newReplySink(w, sseOK, newID()[:16], nil)}
	if !sess.addCall(c) {
		writeJSON(w, http.StatusOK, encodeError(msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running in this session", msg.ID)))
		return
	}
	defer sess.removeCall(c)
	if !s.startCall() {
		writeJSON(w, http.StatusServiceUnavailable, encodeError(msg.ID, rpcErrorf(CodeInternalError, "server is shutting down")))
		return
	}
	defer s.endCall()

	req := &CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, call: c}
	res, rpcErr := s.runTool(context.WithValue(ctx, callKey{}, c), t, req)
	var frame []byte
	switch {
	case c.canceledByClient.Load():
		// The spec asks not to answer a cancelled request; a plain JSON
		// reply must carry something, so it says so.
		if c.sink.streamedNow() {
			frame = nil
		} else {
			frame = encodeError(msg.ID, rpcErrorf(CodeRequestCancelled, "request cancelled"))
		}
	case rpcErr != nil:
		frame = encodeError(msg.ID, rpcErr)
	default:
		var err error
		if frame, err = encodeResponse(msg.ID, res); err != nil {
			frame = encodeError(msg.ID, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", p.Name, err))
		}
	}
	if frame == nil {
		c.sink.close()
		return
	}
	if err := c.sink.finish(http.StatusOK, frame); err != nil {
		s.log.Info("result not delivered: the client went away", "session", sess.id, "tool", p.Name, "err", err)
	}
}
