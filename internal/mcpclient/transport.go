package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// transport moves JSON-RPC messages between the client and one server.
// Everything the protocol means — ids, _meta, answering server requests and
// elicitations, input_required retries, cancellation — is the client's and
// the same over every transport; a transport only carries bytes and hands
// every message it receives for a request to that request's exchange.
type transport interface {
	// roundTrip sends one request (body, with x.id) and returns its
	// response's result. Every message that arrives for the request before
	// the response goes through x.handleMessage.
	roundTrip(ctx context.Context, x *exchange, body []byte, name string) (json.RawMessage, error)
	// deliver sends a notification or a response, which gets no JSON-RPC
	// answer. n is the trace number of what it belongs to (0: none).
	deliver(ctx context.Context, n int64, body []byte, method string) error
	// close ends the connection; Client.Close calls it once.
	close() error
}

// exchange is one request in flight: its id, its trace number and the
// goroutines answering server requests that arrived for it. A transport
// that cannot tie server requests to a call (stdio) keeps one exchange
// without an id for the whole connection.
type exchange struct {
	c        *Client
	n        int64
	id       json.RawMessage
	method   string
	cancel   context.CancelCauseFunc
	handlers sync.WaitGroup
}

// request sends one JSON-RPC request and returns its result, handling
// whatever arrives before the response. name is the Mcp-Name header value
// (2026-07-28 over HTTP only).
func (c *Client) request(ctx context.Context, method, name string, params json.RawMessage) (_ json.RawMessage, err error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	if c.modern {
		if params, err = c.withMeta(params); err != nil {
			return nil, err
		}
	}
	id := idString(c.ids.Add(1))
	body, err := json.Marshal(wireMessage{JSONRPC: jsonrpcVersion, ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	x := &exchange{c: c, n: c.trace.next(), id: id, method: method, cancel: cancel}
	defer func() {
		// Stop answering on this request's behalf once it is over.
		cancel(nil)
		x.handlers.Wait()
		if err != nil && parent.Err() != nil {
			c.cancelled(x, context.Cause(parent))
		}
	}()
	return c.tr.roundTrip(ctx, x, body, name)
}

// cancelled tells the server that the caller gave up on a request, so its
// handler stops. initialize must not be cancelled, and 2026-07-28 servers on
// HTTP see the closed connection instead.
func (c *Client) cancelled(x *exchange, reason error) {
	if (c.modern && !c.stdio) || x.method == methodInitialize || c.isClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	params := map[string]any{"requestId": x.id, "reason": reason.Error()}
	if err := c.Notify(ctx, methodCancelled, params); err != nil {
		c.trace.notef(x.n, "could not send notifications/cancelled: %v", err)
	}
}

// handleMessage processes one message received for x. done reports that it
// was x's response; res and err are then its result or error. n numbers
// what the message starts in the trace (a server request's answer).
func (x *exchange) handleMessage(ctx context.Context, m *wireMessage, n int64) (json.RawMessage, bool, error) {
	switch {
	case m.isRequest():
		return nil, false, x.serverRequest(ctx, m, n)
	case m.isNotification():
		x.c.notification(n, m)
	case len(x.id) > 0 && bytes.Equal(bytes.TrimSpace(m.ID), x.id):
		if m.Error != nil {
			return nil, true, m.Error
		}
		if len(m.Result) == 0 {
			return nil, true, fmt.Errorf("%w: response to request %s has neither result nor error", ErrProtocol, x.id)
		}
		return m.Result, true, nil
	default:
		x.c.trace.notef(x.n, "ignoring a message that is not a response to request %s", x.id)
	}
	return nil, false, nil
}

// serverRequest answers a server-to-client request in its own goroutine,
// so messages keep being read (pings, notifications) while a person thinks
// about an elicitation. Failing to deliver the answer ends x (the call, or
// the stdio connection): the server would otherwise wait forever.
func (x *exchange) serverRequest(ctx context.Context, m *wireMessage, n int64) error {
	if x.c.modern {
		return fmt.Errorf("%w: server sent request %q in %s, where servers send none", ErrProtocol, m.Method, Version20260728)
	}
	x.handlers.Add(1)
	go func() {
		defer x.handlers.Done()
		if err := x.c.answer(ctx, n, m); err != nil && ctx.Err() == nil {
			x.cancel(fmt.Errorf("answering %s: %w", m.Method, err))
		}
	}()
	return nil
}

// answer computes the reply to a server request and delivers it. A request
// the server cancels (notifications/cancelled with its id) gets no reply.
func (c *Client) answer(ctx context.Context, n int64, m *wireMessage) error {
	ctx, stop := c.serving.add(ctx, m.ID)
	defer stop()
	reply := wireMessage{JSONRPC: jsonrpcVersion, ID: m.ID}
	switch m.Method {
	case "ping":
		reply.Result = json.RawMessage("{}")
	case methodElicit, MethodSample, MethodListRoots:
		res, err := c.serverRequestOf(ctx, m.Method, m.Params)
		if err != nil {
			if ctx.Err() != nil {
				c.trace.notef(n, "%s %s abandoned: %v", m.Method, m.ID, context.Cause(ctx))
				return nil // the call is over or the server gave up; nobody waits for this answer
			}
			var rpcErr *RPCError
			if !errors.As(err, &rpcErr) {
				rpcErr = &RPCError{Code: CodeInternalError, Message: err.Error()}
			}
			reply.Error = rpcErr
		} else {
			reply.Result = res
		}
	default:
		reply.Error = &RPCError{Code: CodeMethodNotFound, Message: fmt.Sprintf("method %q not supported by this client", m.Method)}
	}
	body, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	// The answer is delivered even if the call's result overtakes it (an
	// HTTP server may finish the stream before answering this POST), so it
	// is not cancelled with the call; it is bounded on its own.
	postCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	return c.tr.deliver(postCtx, n, body, "")
}

// elicit validates an elicitation/create request against the declared
// capability, asks OnElicit and encodes its answer. Protocol-level refusals
// are *RPCError values.
func (c *Client) elicit(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
	caps := c.opts.Capabilities.Elicitation
	if caps == nil {
		return nil, &RPCError{Code: CodeMethodNotFound, Message: "client did not declare the elicitation capability"}
	}
	var p ElicitParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &RPCError{Code: CodeInvalidParams, Message: "bad elicitation params: " + err.Error()}
	}
	mode := p.EffectiveMode()
	if mode != ModeForm && mode != ModeURL {
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("unknown elicitation mode %q", mode)}
	}
	if !caps.Supports(mode) {
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("client did not declare elicitation mode %q", mode)}
	}
	res, err := c.opts.OnElicit(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("elicitation handler: %w", err)
	}
	if res.Action == "" {
		return nil, errors.New("elicitation handler returned no action")
	}
	// Content is sent verbatim, whatever JSON value it is (an object, [],
	// "x", null...), so tests can see how a server treats content that is
	// not an object; only bytes that are not JSON at all cannot be sent.
	if len(res.Content) > 0 && !json.Valid(res.Content) {
		return nil, errors.New("elicitation handler returned content that is not valid JSON")
	}
	if len(res.Meta) > 0 && !isJSONObject(res.Meta) {
		return nil, errors.New("elicitation handler returned _meta that is not a JSON object")
	}
	return json.Marshal(res)
}

// serverRequestOf answers a server request of method, as a server-sent
// request or an input request: elicitation/create through OnElicit,
// sampling/createMessage and roots/list through OnRequest, when the client
// declared the capability. Protocol-level refusals are *RPCError values.
func (c *Client) serverRequestOf(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == methodElicit {
		return c.elicit(ctx, params)
	}
	caps := c.opts.Capabilities
	if method == MethodSample && caps.Sampling == nil || method == MethodListRoots && caps.Roots == nil {
		return nil, &RPCError{Code: CodeMethodNotFound, Message: "client did not declare the capability of " + method}
	}
	res, err := c.opts.OnRequest(ctx, method, params)
	if err != nil {
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return nil, fmt.Errorf("%s handler: %w", method, err)
	}
	if !isJSONObject(res) {
		return nil, fmt.Errorf("%s handler returned a result that is not a JSON object", method)
	}
	return res, nil
}

func (c *Client) notification(n int64, m *wireMessage) {
	switch m.Method {
	case methodElicitDone:
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		_ = json.Unmarshal(m.Params, &p) // only for the note
		c.trace.notef(n, "url elicitation %q complete", p.ElicitationID)
	case methodCancelled:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(m.Params, &p) == nil && hasID(p.RequestID) {
			reason := "the server cancelled the request"
			if p.Reason != "" {
				reason += ": " + p.Reason
			}
			if c.serving.cancel(p.RequestID, errors.New(reason)) {
				c.trace.notef(n, "server cancelled its request %s", bytes.TrimSpace(p.RequestID))
			}
		}
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(m.Method, m.Params)
	}
}

// servingSet holds the server requests being answered, by id, so the
// server's notifications/cancelled can stop the elicitation handler.
type servingSet struct {
	mu sync.Mutex
	m  map[string]context.CancelCauseFunc
}

func (s *servingSet) add(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := idKey(id)
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]context.CancelCauseFunc{}
	}
	s.m[key] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.m, key)
		s.mu.Unlock()
		cancel(nil)
	}
}

func (s *servingSet) cancel(id json.RawMessage, reason error) bool {
	s.mu.Lock()
	cancel, ok := s.m[idKey(id)]
	s.mu.Unlock()
	if ok {
		cancel(reason)
	}
	return ok
}

// idKey is a JSON-RPC id as a map key: 1 and "1" stay apart.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// withMeta adds the 2026-07-28 per-request _meta keys to params, keeping
// any other _meta keys the caller set.
func (c *Client) withMeta(params json.RawMessage) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
			return nil, errors.New("params must be a JSON object")
		}
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil || meta == nil {
			return nil, errors.New("params _meta must be a JSON object")
		}
	}
	caps, err := json.Marshal(c.opts.Capabilities)
	if err != nil {
		return nil, err
	}
	info, err := json.Marshal(c.opts.ClientInfo)
	if err != nil {
		return nil, err
	}
	meta[MetaProtocolVersion] = jsonString(c.requested)
	meta[MetaClientCapabilities] = caps
	meta[MetaClientInfo] = info
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// causeOr returns the reason ctx ended (a timeout, or why the call was
// aborted) if it did, else err.
func causeOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
	}
	return err
}

// Sleep waits d or until ctx ends, and then returns ctx's cause. It is the
// module's one such helper: the client's retry pauses, mcptest's wait
// directive and the conformance fixture's slow tools use it.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
