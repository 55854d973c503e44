package runtime

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// The session mechanism (2025-03-26, 2025-06-18, 2025-11-25): initialize
// negotiates a version and opens a session (Mcp-Session-Id over HTTP, the
// connection over stdio); a handler that elicits sends elicitation/create
// on its call's stream and waits for the client's answer (correlate.go).

type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

// sessionRequest answers a request of a session.
func (s *Server) sessionRequest(ctx context.Context, sess *Session, msg *message, sk sink) reply {
	if s.tel != nil {
		return s.observe(ctx, msg, sess.protocol, sess.id, sk, func(ctx context.Context) reply { return s.answerSession(ctx, sess, msg, sk) })
	}
	return s.answerSession(ctx, sess, msg, sk)
}

// answerSession is sessionRequest's reply.
func (s *Server) answerSession(ctx context.Context, sess *Session, msg *message, sk sink) reply {
	switch msg.Method {
	case "ping", "logging/setLevel":
		return replyResult(msg.ID, []byte("{}"))
	case "tools/list":
		if s.servesTasks(sess) {
			return replyResult(msg.ID, s.toolsListTasksResult())
		}
		return replyResult(msg.ID, s.toolsListResult())
	case "tools/call":
		return s.sessionCall(ctx, sess, msg, sk)
	default:
		if rep, ok := s.sessionTaskRequest(ctx, sess, msg, sk); ok {
			return rep
		}
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s", clip(msg.Method)))
	}
}

// sessionCall runs a tools/call of a session with sk as its stream.
func (s *Server) sessionCall(ctx context.Context, sess *Session, msg *message, sk sink) reply {
	p, perr := parseCallParams(msg)
	if perr != nil {
		return replyError(http.StatusOK, msg.ID, perr)
	}
	t, ok := s.lookupTool(p.Name)
	if !ok {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown tool: %q", clip(p.Name)))
	}
	if s.servesTasks(sess) {
		if rep, done := s.sessionTaskCall(sess, msg, p, t); done {
			return rep
		}
	} else if t.tool.TaskSupport == TaskRequired {
		return replyError(http.StatusOK, msg.ID, taskOnly(p.Name))
	}
	run := &callRun{}
	hctx := run.cancelableContext(ctx)
	defer hctx.end()
	c := &run.call
	if hs, ok := sk.(*httpSink); ok {
		hs.watchConnection(c) // a resumable stream's call: the POST's connection ending cancels it (before the upgrade)
	}
	c.session, c.key, c.id, c.sink, c.tasking = sess, idKey(msg.ID), msg.ID, sk, t.syncTurn()
	if !sess.addCall(c) {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running in this session", msg.ID))
	}
	defer sess.removeCall(c)
	if !s.startCall(c) {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	defer s.endCall(c)

	run.req = CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, call: c}
	res, rpcErr := s.runTool(hctx, t, &run.req)
	switch {
	case c.canceledByClient.Load():
		return cancelledReply(msg.ID)
	case rpcErr != nil:
		return replyError(http.StatusOK, msg.ID, rpcErr)
	}
	frame, err := encodeToolResponse(msg.ID, res)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", p.Name, err))
	}
	return reply{status: http.StatusOK, frame: frame, toolError: res.IsError}
}

// sessionNotification handles a client notification of a session.
func (s *Server) sessionNotification(sess *Session, msg *message) {
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

// initializeResult negotiates a session; register says whether the
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
	if s.servesTasks(sess) {
		result["capabilities"].(map[string]any)["tasks"] = sessionTaskCapabilities()
	}
	frame, _ := encodeResponse(msg.ID, result) // plain maps always marshal
	return sess, reply{status: http.StatusOK, frame: frame}
}
