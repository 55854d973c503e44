package runtime

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// The transport-neutral half of the server: what a request means and what
// it is answered with. A transport (Streamable HTTP, stdio) decodes a
// message, gives it a sink for whatever the request sends before its
// response, and writes the reply it gets back through that sink.

// reply is the answer to one message: a frame (nil: none) and the HTTP
// status it carries when the reply has not become a stream.
type reply struct {
	status int
	frame  []byte
	// cancelled marks the reply of a request the client cancelled: the
	// spec asks not to answer it, so a transport sends frame (a -32800
	// error) only where a reply must carry something (an HTTP reply that
	// has not become a stream).
	cancelled bool
}

// cancelledReply is the reply of a request the client cancelled.
func cancelledReply(id json.RawMessage) reply {
	r := replyError(http.StatusOK, id, rpcErrorf(CodeRequestCancelled, "request cancelled"))
	r.cancelled = true
	return r
}

func replyResult(id json.RawMessage, result []byte) reply {
	return reply{status: http.StatusOK, frame: encodeRawResponse(id, result)}
}

func replyError(status int, id json.RawMessage, e *RPCError) reply {
	return reply{status: status, frame: encodeError(id, e)}
}

// legacyRequest answers a request of a legacy (initialize) session.
func (s *Server) legacyRequest(ctx context.Context, sess *Session, msg *message, sk sink) reply {
	switch msg.Method {
	case "ping", "logging/setLevel":
		return replyResult(msg.ID, []byte("{}"))
	case "tools/list":
		return replyResult(msg.ID, s.toolsListResult())
	case "tools/call":
		return s.legacyCall(ctx, sess, msg, sk)
	default:
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s", msg.Method))
	}
}

// legacyCall runs a tools/call of a legacy session with sk as its stream.
func (s *Server) legacyCall(ctx context.Context, sess *Session, msg *message, sk sink) reply {
	p, perr := parseCallParams(msg)
	if perr != nil {
		return replyError(http.StatusOK, msg.ID, perr)
	}
	t, ok := s.lookupTool(p.Name)
	if !ok {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown tool: %q", p.Name))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &call{session: sess, key: idKey(msg.ID), id: msg.ID, cancelF: cancel, sink: sk}
	if !sess.addCall(c) {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running in this session", msg.ID))
	}
	defer sess.removeCall(c)
	if !s.startCall() {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	defer s.endCall()

	req := &CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, call: c}
	res, rpcErr := s.runTool(context.WithValue(ctx, callKey{}, c), t, req)
	switch {
	case c.canceledByClient.Load():
		return cancelledReply(msg.ID)
	case rpcErr != nil:
		return replyError(http.StatusOK, msg.ID, rpcErr)
	}
	frame, err := encodeResponse(msg.ID, res)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", p.Name, err))
	}
	return reply{status: http.StatusOK, frame: frame}
}

// legacyNotification handles a client notification of a legacy session.
func (s *Server) legacyNotification(sess *Session, msg *message) {
	if msg.Method != "notifications/cancelled" {
		return // notifications/initialized and anything unknown: nothing to do
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if roundtrip.StrictUnmarshal(msg.Params, &p) == nil && validID(p.RequestID) {
		if !sess.cancelCall(idKey(p.RequestID), p.Reason) {
			s.log.Debug("cancel for no running request", "session", sess.id, "id", string(p.RequestID))
		}
	}
}

// initializeResult negotiates a legacy session; register says whether the
// server keeps it by id (HTTP) or the transport holds it (stdio).
func (s *Server) initializeResult(msg *message, subject string, register bool) (*Session, reply) {
	if !msg.isRequest() {
		return nil, replyError(http.StatusBadRequest, nil, rpcErrorf(CodeInvalidRequest, "initialize must be a request"))
	}
	var p initializeParams
	if len(msg.Params) == 0 || roundtrip.StrictUnmarshal(msg.Params, &p) != nil || p.ProtocolVersion == "" {
		return nil, replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "initialize needs params with protocolVersion, capabilities and clientInfo"))
	}
	version := negotiate(p.ProtocolVersion)
	kept, err := keepClientFacts(p.Capabilities, p.ClientInfo)
	if err != nil {
		return nil, replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "initialize: %v", err))
	}
	sess, err := s.newSession(version, kept, subject, register)
	if err != nil {
		status := http.StatusServiceUnavailable
		if err == errTooManySessionsForSubject {
			status = http.StatusTooManyRequests
		}
		return nil, replyError(status, msg.ID, rpcErrorf(CodeInternalError, "%v", err))
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
	return sess, reply{status: http.StatusOK, frame: frame}
}

// modernRequest answers a 2026-07-28 request whose _meta has been checked.
func (s *Server) modernRequest(ctx context.Context, msg *message, mm modernMeta, sk sink) reply {
	switch msg.Method {
	case "server/discover":
		res := map[string]any{
			"supportedVersions": supportedVersions,
			"capabilities":      map[string]any{"tools": map[string]any{"listChanged": false}},
			"ttlMs":             0,
			"cacheScope":        "private",
		}
		if s.opts.Instructions != "" {
			res["instructions"] = s.opts.Instructions
		}
		return s.modernComplete(msg.ID, res)
	case "tools/list":
		var list struct {
			Tools json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(s.toolsListResult(), &list)
		return s.modernComplete(msg.ID, map[string]any{"tools": list.Tools, "ttlMs": 0, "cacheScope": "private"})
	case "tools/call":
		return s.modernToolCall(ctx, msg, mm, sk)
	default:
		return replyError(http.StatusNotFound, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s", msg.Method))
	}
}

// appendModernFields appends to an open JSON object (its closing brace cut
// off) the resultType and the server's identity, and closes it.
func (s *Server) appendModernFields(obj []byte, resultType string) []byte {
	if obj[len(obj)-1] != '{' {
		obj = append(obj, ',')
	}
	obj = append(obj, `"resultType":`...)
	obj = appendJSONString(obj, resultType)
	obj = append(obj, `,"_meta":{"`+metaServerInfo+`":{"name":`...)
	obj = appendJSONString(obj, s.opts.Name)
	obj = append(obj, `,"version":`...)
	obj = appendJSONString(obj, s.opts.Version)
	return append(obj, "}}}"...)
}

// startModernFrame starts the response frame of a 2026-07-28 result: up to
// the result object's opening brace, with room for size more bytes.
func (s *Server) startModernFrame(id json.RawMessage, size int) []byte {
	frame := make([]byte, 0, 160+len(id)+size+len(s.opts.Name)+len(s.opts.Version))
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	return append(frame, `,"result":{`...)
}

// endModernFrame closes a frame startModernFrame began, after the result's
// own fields: the fields every 2026-07-28 result carries, then the braces.
func (s *Server) endModernFrame(frame []byte, resultType string) []byte {
	return append(s.appendModernFields(frame, resultType), '}')
}

func (s *Server) modernComplete(id json.RawMessage, res map[string]any) reply {
	frame, err := encodeResponse(id, s.modernResult(res, "complete"))
	if err != nil {
		return replyError(http.StatusOK, id, rpcErrorf(CodeInternalError, "encoding the result: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}

// modernTool is t for one run of a 2026-07-28 call: a handler that returns
// ErrInputRequired itself after asking returns nothing instead, since its
// result is replaced by input_required anyway (runTool would format the
// error into an isError result only for it to be dropped).
func modernTool(t *registeredTool, mc *roundtrip.Run) *registeredTool {
	rt := *t
	rt.handler = func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		res, err := t.handler(ctx, req)
		if err == ErrInputRequired && mc.Asked() { // the sentinel itself: a wrapped one may say more
			return nil, nil
		}
		return res, err
	}
	return &rt
}

// modernToolCall runs one round of a 2026-07-28 tools/call: the handler
// either completes or elicits, and then the answer is input_required.
func (s *Server) modernToolCall(ctx context.Context, msg *message, mm modernMeta, sk sink) reply {
	p, perr := parseCallParams(msg)
	if perr != nil {
		return replyError(http.StatusOK, msg.ID, perr)
	}
	t, ok := s.lookupTool(p.Name)
	if !ok {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown tool: %q", p.Name))
	}
	rp, _ := msg.decodedParams() // parseCallParams has vetted them
	mp := modernCallParams{InputResponses: rp.InputResponses}
	mp.RequestState, mp.HasState = rp.requestState()
	mc, rerr := s.openRound(msg.Method, p, mp, mm.subject)
	if rerr != nil {
		return replyError(http.StatusOK, msg.ID, rerr)
	}
	if !s.startCall() {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	defer s.endCall()

	sess := newSession(s, "", mm.version, clientFacts{caps: parseElicitCaps(mm.capabilities), capabilities: mm.capabilities, clientInfo: mm.clientInfo})
	sess.subject = mm.subject
	sess.modern = mc
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &call{session: sess, id: msg.ID, cancelF: cancel, sink: sk, logLevel: mm.logLevel, modern: true}
	if mm.calls != nil { // the key finds the call for notifications/cancelled
		c.key = idKey(msg.ID)
		if !mm.calls.add(c) {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running", msg.ID))
		}
		defer mm.calls.remove(c)
	}
	req := &CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, Round: mc.Round(), call: c}
	res, rpcErr := s.runTool(context.WithValue(ctx, callKey{}, c), modernTool(t, mc), req)
	switch {
	case c.canceledByClient.Load():
		return cancelledReply(msg.ID)
	case mc.Asked():
		return reply{status: http.StatusOK, frame: s.inputRequired(msg, p, mc, mm.subject)}
	case rpcErr != nil:
		status := http.StatusOK
		if rpcErr.Code == CodeMissingCapability {
			status = http.StatusBadRequest
		}
		return replyError(status, msg.ID, rpcErr)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", p.Name, err))
	}
	// The frame is written once, the result's fields followed by those
	// every 2026-07-28 result carries.
	frame := s.startModernFrame(msg.ID, len(raw))
	frame = append(frame, raw[1:len(raw)-1]...)
	return reply{status: http.StatusOK, frame: s.endModernFrame(frame, "complete")}
}
