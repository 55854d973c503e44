package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// The input_required mechanism (2026-07-28): no sessions, no initialize;
// every request carries its protocol version and the client's capabilities in
// _meta, and a server may not send requests on a stream. A handler that
// elicits is answered with an input_required result; the client asks its user
// and retries the call with the answers, and the handler runs again from the
// top, each Elicit now returning the answer for its key. Earlier answers
// travel in the sealed requestState, so a handler may elicit several times in
// sequence.

// Reserved _meta keys of the 2026-07-28 protocol.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// inputRequiredVersions are the per-request versions served statelessly.
var inputRequiredVersions = []string{Version20260728}

// supportedVersions is what server/discover and -32022 list, newest first.
var supportedVersions = append(append([]string{}, inputRequiredVersions...), sessionVersions...)

func isInputRequiredVersion(v string) bool {
	for _, m := range inputRequiredVersions {
		if m == v {
			return true
		}
	}
	return false
}

// ErrInputRequired is what Elicit returns on a 2026-07-28 request when the
// answer is not there yet. The handler should return at once (returning the
// error is fine): the runtime answers the call with input_required, whatever
// the handler returns, and runs the handler again when the client retries
// with the answer. Work done before an Elicit must therefore be safe to
// repeat; CallToolRequest.IsRetry tells a first run from a retry.
var ErrInputRequired = errors.New("elicit: input required: the client is asked and this handler runs again with the answer")

// requestMeta is the _meta of a 2026-07-28 request.
type requestMeta struct {
	version      string
	capabilities json.RawMessage
	clientInfo   json.RawMessage
	logLevel     string
	// subject is the authenticated caller (Options.Authenticate).
	subject string
	// calls tracks the transport's running calls for cancellation (stdio,
	// where notifications/cancelled exists in this mechanism); nil over HTTP,
	// where closing the stream cancels.
	calls *callSet
}

// isInputRequiredHTTP tells whether a request is served by the
// input_required mechanism: its _meta names a protocol version, or (without
// a session) its MCP-Protocol-Version header is not a session version.
func isInputRequiredHTTP(r *http.Request, msg *message) bool {
	if msg.Method == "" {
		return false // responses are answers to elicitation/create in a session
	}
	if hasMetaVersion(msg) {
		return true
	}
	v := strings.TrimSpace(firstHeader(r, HeaderProtocolVersion))
	return firstHeader(r, HeaderSessionID) == "" && v != "" && !isSessionVersion(v)
}

// hasMetaVersion reports a request whose _meta names a protocol version.
func hasMetaVersion(msg *message) bool {
	rp, err := msg.decodedParams()
	if err != nil {
		return false
	}
	_, ok := rp.Meta[metaProtocolVersion]
	return ok
}

// firstHeader is r.Header.Get(name) for a name already canonical (one of
// the Header* constants, TestHeaderNamesCanonical): a direct lookup, which
// spares canonicalizing the name again on every request.
func firstHeader(r *http.Request, name string) string {
	if vals := r.Header[name]; len(vals) > 0 {
		return vals[0]
	}
	return ""
}

// headerValue reads a header with optional white space trimmed and the
// =?base64?…?= sentinel decoded. name is one of the Header* constants,
// already canonical (TestHeaderNamesCanonical), as net/http makes the keys
// of a request it read: a direct lookup spares canonicalizing it again.
func headerValue(r *http.Request, name string) (string, bool) {
	vals := r.Header[name]
	if len(vals) == 0 {
		return "", false
	}
	v := strings.TrimSpace(vals[0])
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		raw, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return v, true
		}
		return string(raw), true
	}
	return v, true
}

// parseRequestMeta reads the _meta every 2026-07-28 request carries; its
// absence is -32602.
func parseRequestMeta(msg *message) (requestMeta, *RPCError) {
	var mm requestMeta
	p, err := msg.decodedParams()
	if err != nil {
		return mm, rpcErrorf(CodeInvalidParams, "invalid params: %v", err)
	}
	if len(msg.Params) == 0 || p.Meta == nil {
		return mm, rpcErrorf(CodeInvalidParams, "params._meta with %s and %s is required", metaProtocolVersion, metaClientCapabilities)
	}
	if mm.version = metaString(p.Meta[metaProtocolVersion]); mm.version == "" {
		return mm, rpcErrorf(CodeInvalidParams, "params._meta[%q] must be a string", metaProtocolVersion)
	}
	caps := p.Meta[metaClientCapabilities]
	if len(caps) == 0 || caps[0] != '{' {
		return mm, rpcErrorf(CodeInvalidParams, "params._meta[%q] must be an object", metaClientCapabilities)
	}
	mm.capabilities = caps
	mm.clientInfo = p.Meta[metaClientInfo]
	mm.logLevel = metaString(p.Meta[metaLogLevel])
	return mm, nil
}

// metaString is a _meta value that is a string, "" for any other value
// (what json.Unmarshal into a string leaves), the current protocol version
// without allocating.
func metaString(raw json.RawMessage) string {
	if string(raw) == `"`+Version20260728+`"` {
		return Version20260728
	}
	v, _ := roundtrip.StringValue(raw)
	return v
}

// checkRequestVersion is -32022, with what is supported, for a version this
// server does not serve statelessly.
func checkRequestVersion(mm requestMeta) *RPCError {
	if isInputRequiredVersion(mm.version) {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"supported": supportedVersions, "requested": clip(mm.version)})
	return &RPCError{Code: CodeUnsupportedVersion, Message: "unsupported protocol version", Data: data}
}

// checkInputRequiredHTTP applies the per-request rules of 2026-07-28 over
// HTTP, in the order the reference implementation uses, and returns the
// _meta.
func checkInputRequiredHTTP(r *http.Request, msg *message) (requestMeta, *RPCError) {
	header, ok := headerValue(r, HeaderProtocolVersion)
	if !ok || header == "" {
		return requestMeta{}, rpcErrorf(CodeHeaderMismatch, "missing %s header", HeaderProtocolVersion)
	}
	mm, rerr := parseRequestMeta(msg)
	if rerr != nil {
		return mm, rerr
	}
	if header != mm.version {
		return mm, rpcErrorf(CodeHeaderMismatch, "header mismatch: %s header value %q does not match body value %q", HeaderProtocolVersion, clip(header), clip(mm.version))
	}
	if rerr := checkRequestVersion(mm); rerr != nil {
		return mm, rerr
	}
	if method, _ := headerValue(r, HeaderMethod); method != msg.Method {
		return mm, rpcErrorf(CodeHeaderMismatch, "header mismatch: %s header value %q does not match body value %q", HeaderMethod, clip(method), clip(msg.Method))
	}
	switch msg.Method {
	case "tools/call", "prompts/get", "resources/read":
		target, _ := msg.decodedParams() // parseRequestMeta decoded them
		want := target.Name
		if msg.Method == "resources/read" {
			want = target.URI
		}
		if name, _ := headerValue(r, HeaderName); name != want {
			return mm, rpcErrorf(CodeHeaderMismatch, "header mismatch: %s header value %q does not match body value %q", HeaderName, clip(name), clip(want))
		}
	case "tasks/get", "tasks/update", "tasks/cancel": // the extension's routing header
		// Params that do not parse get their own error (taskRequest).
		if tp, perr := parseTaskParams(msg); perr == nil {
			if name, _ := headerValue(r, HeaderName); name != tp.TaskID {
				return mm, rpcErrorf(CodeHeaderMismatch, "header mismatch: %s header value %q does not match body value %q", HeaderName, clip(name), clip(tp.TaskID))
			}
		}
	}
	return mm, nil
}

// typedResult adds what every 2026-07-28 result carries: resultType and
// the server's identity.
func (s *Server) typedResult(result map[string]any, resultType string) map[string]any {
	result["resultType"] = resultType
	result["_meta"] = map[string]any{metaServerInfo: map[string]any{"name": s.opts.Name, "version": s.opts.Version}}
	return result
}

// inputRequiredRequest answers a 2026-07-28 request whose _meta has been
// checked.
func (s *Server) inputRequiredRequest(ctx context.Context, msg *message, mm requestMeta, sk sink) reply {
	if s.tel != nil {
		return s.observe(ctx, msg, mm.version, "", sk, func(ctx context.Context) reply { return s.answerInputRequired(ctx, msg, mm, sk) })
	}
	return s.answerInputRequired(ctx, msg, mm, sk)
}

// answerInputRequired is inputRequiredRequest's reply.
func (s *Server) answerInputRequired(ctx context.Context, msg *message, mm requestMeta, sk sink) reply {
	switch msg.Method {
	case "server/discover":
		res := map[string]any{
			"supportedVersions": supportedVersions,
			"capabilities":      s.discoverCapabilities(),
			"ttlMs":             0,
			"cacheScope":        "private",
		}
		if s.opts.Instructions != "" {
			res["instructions"] = s.opts.Instructions
		}
		return s.completeResult(msg.ID, res)
	case "tools/list":
		var list struct {
			Tools json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(s.toolsListResult(), &list)
		return s.completeResult(msg.ID, map[string]any{"tools": list.Tools, "ttlMs": 0, "cacheScope": "private"})
	case "tools/call":
		return s.inputRequiredCall(ctx, msg, mm, sk)
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.taskRequest(ctx, msg, mm)
	case "subscriptions/listen":
		return s.listen(ctx, msg, mm, sk)
	default:
		return replyError(http.StatusNotFound, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s", clip(msg.Method)))
	}
}

// appendResultType appends to an open JSON object (its closing brace cut
// off) the resultType and the server's identity, and closes it.
func (s *Server) appendResultType(obj []byte, resultType string) []byte {
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

// startTypedFrame starts the response frame of a 2026-07-28 result: up to
// the result object's opening brace, with room for size more bytes.
func (s *Server) startTypedFrame(id json.RawMessage, size int) []byte {
	frame := make([]byte, 0, 160+len(id)+size+len(s.opts.Name)+len(s.opts.Version))
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	return append(frame, `,"result":{`...)
}

// endTypedFrame closes a frame startTypedFrame began, after the result's
// own fields: the fields every 2026-07-28 result carries, then the braces.
func (s *Server) endTypedFrame(frame []byte, resultType string) []byte {
	return append(s.appendResultType(frame, resultType), '}')
}

func (s *Server) completeResult(id json.RawMessage, res map[string]any) reply {
	frame, err := encodeResponse(id, s.typedResult(res, "complete"))
	if err != nil {
		return replyError(http.StatusOK, id, rpcErrorf(CodeInternalError, "encoding the result: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}

// inputRequiredTool is t for one run of a 2026-07-28 call: a handler that
// returns ErrInputRequired itself after asking, or ErrContinueAsTask after
// ContinueAsTask made the call a task, returns nothing instead, since its
// result is replaced by input_required or the task anyway (runTool would
// format the error into an isError result only for it to be dropped).
func inputRequiredTool(t *registeredTool, mc *roundtrip.Run) *registeredTool {
	rt := *t
	rt.handler = func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		res, err := t.handler(ctx, req)
		// The sentinels themselves: a wrapped one may say more.
		if err == ErrInputRequired && mc.Asked() || err == ErrContinueAsTask && req.call.asTask.Load() {
			return nil, nil
		}
		return res, err
	}
	return &rt
}

// inputRequiredStatus is the HTTP status of a 2026-07-28 request's error
// reply: 400 for -32021 (the client lacks a capability the request needs,
// which the transport says with 400), 200 for the others.
func inputRequiredStatus(e *RPCError) int {
	if e.Code == CodeMissingCapability {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// requestRun is callRun with the Session view of the one 2026-07-28
// request and the run of its round, in the same allocation.
type requestRun struct {
	callRun
	sess  Session
	round roundtrip.Run
}

// inputRequiredCall runs one round of a 2026-07-28 tools/call: the handler
// either completes or elicits, and then the answer is input_required.
func (s *Server) inputRequiredCall(ctx context.Context, msg *message, mm requestMeta, sk sink) reply {
	p, perr := parseCallParams(msg)
	if perr != nil {
		return replyError(http.StatusOK, msg.ID, perr)
	}
	t, ok := s.lookupTool(p.Name)
	if !ok {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown tool: %q", clip(p.Name)))
	}
	turn, rerr := s.callTurn(mm, t)
	switch {
	case rerr != nil:
		return replyError(inputRequiredStatus(rerr), msg.ID, rerr)
	case turn == taskInside:
		return s.createTask(ctx, msg, mm, p, nil)
	}
	rp, _ := msg.decodedParams() // parseCallParams has vetted them
	mp := roundTripParams{InputResponses: rp.InputResponses}
	mp.RequestState, mp.HasState = rp.requestState()
	run := &requestRun{}
	mc := &run.round
	if rerr := s.openRound(mc, msg.Method, p, mp, mm.subject); rerr != nil {
		return replyError(http.StatusOK, msg.ID, rerr)
	}
	if s.tel != nil {
		run.call.rounds = s.tel.ResumeRound(ctx, mc.Telemetry())
	}
	sess := &run.sess
	sess.initView(s, mm.version, clientFacts{caps: parseElicitCaps(mm.capabilities), capabilities: mm.capabilities, clientInfo: mm.clientInfo}, mm.subject, mc)
	hctx := run.cancelableContext(ctx)
	defer hctx.end()
	ctx = hctx
	c := &run.call
	c.session, c.id, c.sink, c.logLevel, c.inputRequired, c.tasking = sess, msg.ID, sk, mm.logLevel, true, turn
	if !s.startCall(c) {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	defer s.endCall(c)
	if mm.calls != nil { // the key finds the call for notifications/cancelled
		c.key = idKey(msg.ID)
		if !mm.calls.add(c) {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running", msg.ID))
		}
		defer mm.calls.remove(c)
	}
	run.req = CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, Round: mc.Round(), call: c}
	res, rpcErr := s.runTool(hctx, inputRequiredTool(t, mc), &run.req)
	switch {
	case c.canceledByClient.Load():
		return cancelledReply(msg.ID)
	case mc.Asked():
		if s.tel != nil {
			s.tel.Round(ctx, mc.Round(), "input_required")
			mc.SetTelemetry(s.tel.SealRound(ctx, c.rounds))
		}
		return reply{status: http.StatusOK, frame: s.inputRequired(msg, p, mc, mm.subject)}
	case c.asTask.Load(): // ContinueAsTask: the round's answers go into the task
		if s.tel != nil {
			s.tel.Round(ctx, mc.Round(), "task")
		}
		return s.createTask(ctx, msg, mm, p, mc)
	case rpcErr != nil:
		return replyError(inputRequiredStatus(rpcErr), msg.ID, rpcErr)
	}
	// The frame is written once, the result's fields followed by those
	// every 2026-07-28 result carries.
	frame := s.startTypedFrame(msg.ID, toolResultSize(res))
	frame = frame[:len(frame)-1] // the result's opening brace: the result is written whole
	frame, written := appendToolResult(frame, res)
	if !written {
		raw, err := json.Marshal(res)
		if err != nil {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", p.Name, err))
		}
		frame = append(frame, raw...)
	}
	frame = frame[:len(frame)-1] // reopened for the fields that follow
	if s.tel != nil {
		s.tel.Round(ctx, mc.Round(), "complete")
	}
	return reply{status: http.StatusOK, frame: s.endTypedFrame(frame, "complete"), toolError: res.IsError}
}
