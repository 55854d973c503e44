package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// exchange is one request in flight: its id, its trace number and the
// goroutines answering server requests that arrived on its stream.
type exchange struct {
	c        *Client
	n        int64
	id       json.RawMessage
	method   string
	cancel   context.CancelCauseFunc
	handlers sync.WaitGroup
}

// request sends one JSON-RPC request and returns its result, handling
// whatever arrives before the response on its stream. name is the Mcp-Name
// header value (2026-07-28 only).
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
		// Stop answering on this stream's behalf once the call is over.
		cancel(nil)
		x.handlers.Wait()
		if err != nil && parent.Err() != nil {
			c.cancelled(x, context.Cause(parent))
		}
	}()
	resp, err := c.send(ctx, x.n, http.MethodPost, body, method, name, "")
	if err != nil {
		return nil, causeOr(ctx, err)
	}
	defer resp.Body.Close()
	if method == methodInitialize && resp.StatusCode/100 == 2 {
		if err := c.setSession(resp.Header.Get(headerSessionID)); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode/100 != 2 {
		return nil, c.statusError(x.n, http.MethodPost, resp)
	}
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent {
		return nil, fmt.Errorf("%w: server answered the request with %s and no response", ErrProtocol, resp.Status)
	}
	switch mt := mediaType(resp.Header); mt {
	case contentTypeJSON:
		data, err := c.readBody(resp.Body)
		if err != nil {
			return nil, causeOr(ctx, err)
		}
		c.trace.body(x.n, data)
		res, done, err := x.handleData(ctx, data)
		if err != nil || done {
			return res, err
		}
		return nil, fmt.Errorf("%w: json reply carried no response to request %s", ErrProtocol, id)
	case contentTypeSSE:
		return x.stream(ctx, resp)
	default:
		return nil, fmt.Errorf("%w: unexpected content type %q", ErrProtocol, resp.Header.Get("Content-Type"))
	}
}

// cancelled tells the server that the caller gave up on a request, so its
// handler stops (legacy era; initialize must not be cancelled, and 2026-07-28
// servers see the closed connection).
func (c *Client) cancelled(x *exchange, reason error) {
	if c.modern || x.method == methodInitialize || c.isClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
	defer cancel()
	params := map[string]any{"requestId": x.id, "reason": reason.Error()}
	if err := c.Notify(ctx, "notifications/cancelled", params); err != nil {
		c.trace.notef(x.n, "could not send notifications/cancelled: %v", err)
	}
}

// stream reads a response stream until it carries our response. When the
// stream ends early after events with ids (2025-11-25 servers may close it
// on purpose), it resumes with a GET and Last-Event-ID, waiting the retry
// delay the server asked for.
func (x *exchange) stream(ctx context.Context, resp *http.Response) (json.RawMessage, error) {
	c := x.c
	pos := streamPos{retry: defaultRetry}
	body, fruitless := resp.Body, 0
	for {
		res, done, got, err := x.readEvents(ctx, body, &pos)
		if err != nil || done {
			return res, err
		}
		if got {
			fruitless = 0
		} else {
			fruitless++
		}
		if c.modern || pos.lastID == "" || fruitless >= maxResumeAttempts {
			return nil, fmt.Errorf("%w to request %s", ErrStreamEnded, x.id)
		}
		c.trace.notef(x.n, "stream ended before the response; resuming after %s with Last-Event-ID %q", pos.retry, pos.lastID)
		if err := sleep(ctx, pos.retry); err != nil {
			return nil, err
		}
		next, err := x.resume(ctx, pos.lastID)
		if err != nil {
			return nil, err
		}
		body.Close()
		body = next.Body
		defer next.Body.Close()
	}
}

// streamPos is what a stream said about resuming it.
type streamPos struct {
	lastID string
	retry  time.Duration
}

// readEvents handles the events of one SSE body until it ends (done false,
// err nil), carries our response (done true) or fails. got reports whether
// any event arrived.
func (x *exchange) readEvents(ctx context.Context, body io.Reader, pos *streamPos) (res json.RawMessage, done, got bool, err error) {
	c := x.c
	r := newSSEReader(body, c.opts.MaxMessageBytes)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			if ctx.Err() != nil {
				return nil, false, got, context.Cause(ctx)
			}
			return nil, false, got, nil
		}
		if err != nil {
			return nil, false, got, causeOr(ctx, fmt.Errorf("reading stream: %w", err))
		}
		got = true
		c.trace.event(x.n, ev)
		if ev.HasID {
			pos.lastID = ev.ID
		}
		if ev.HasRetry {
			pos.retry = ev.Retry
		}
		if ev.Data == "" {
			continue // a priming event: it only carries an id
		}
		if ev.Name != "" && ev.Name != eventMessage {
			c.trace.notef(x.n, "ignoring sse event of type %q", ev.Name)
			continue
		}
		res, done, err := x.handleData(ctx, []byte(ev.Data))
		if err != nil || done {
			return res, done, got, err
		}
	}
}

// resume opens a GET stream that replays events after lastID.
func (x *exchange) resume(ctx context.Context, lastID string) (*http.Response, error) {
	c := x.c
	n := c.trace.next()
	resp, err := c.send(ctx, n, http.MethodGet, nil, "", "", lastID)
	if err != nil {
		return nil, fmt.Errorf("resuming stream: %w", causeOr(ctx, err))
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, fmt.Errorf("resuming stream: %w", c.statusError(n, http.MethodGet, resp))
	}
	if mediaType(resp.Header) != contentTypeSSE {
		resp.Body.Close()
		return nil, fmt.Errorf("resuming stream: %w: unexpected content type %q", ErrProtocol, resp.Header.Get("Content-Type"))
	}
	c.trace.notef(x.n, "resumed on exchange [%d]", n)
	return resp, nil
}

// handleData processes the messages of one JSON body or SSE event. done
// reports that our response was among them.
func (x *exchange) handleData(ctx context.Context, data []byte) (json.RawMessage, bool, error) {
	msgs, err := decodeMessages(data)
	if err != nil {
		return nil, false, err
	}
	for _, m := range msgs {
		switch {
		case m.isRequest():
			if err := x.serverRequest(ctx, m); err != nil {
				return nil, false, err
			}
		case m.isNotification():
			x.c.notification(x.n, m)
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
	}
	return nil, false, nil
}

// serverRequest answers a server-to-client request in its own goroutine,
// so the stream keeps being read (pings, notifications) while a person
// thinks about an elicitation. Failing to deliver the answer fails the call:
// the server would otherwise wait forever.
func (x *exchange) serverRequest(ctx context.Context, m *wireMessage) error {
	if x.c.modern {
		return fmt.Errorf("%w: server sent request %q on a %s stream", ErrProtocol, m.Method, Version20260728)
	}
	x.handlers.Add(1)
	go func() {
		defer x.handlers.Done()
		if err := x.c.answer(ctx, m); err != nil && ctx.Err() == nil {
			x.cancel(fmt.Errorf("answering %s: %w", m.Method, err))
		}
	}()
	return nil
}

// answer computes the reply to a server request and POSTs it.
func (c *Client) answer(ctx context.Context, m *wireMessage) error {
	reply := wireMessage{JSONRPC: jsonrpcVersion, ID: m.ID}
	switch m.Method {
	case "ping":
		reply.Result = json.RawMessage("{}")
	case methodElicit:
		res, err := c.elicit(ctx, m.Params)
		if err != nil {
			if ctx.Err() != nil {
				return nil // the call is over; nobody waits for this answer
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
	// The answer is delivered even if the call's result overtakes its 202
	// (the server may finish the stream before answering this POST), so it
	// is not cancelled with the call; it is bounded on its own.
	postCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	return c.post202(postCtx, body, "")
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
	if len(res.Content) > 0 && !isJSONObject(res.Content) {
		return nil, errors.New("elicitation handler returned content that is not a JSON object")
	}
	if len(res.Meta) > 0 && !isJSONObject(res.Meta) {
		return nil, errors.New("elicitation handler returned _meta that is not a JSON object")
	}
	return json.Marshal(res)
}

func (c *Client) notification(n int64, m *wireMessage) {
	if m.Method == methodElicitDone {
		var p struct {
			ElicitationID string `json:"elicitationId"`
		}
		_ = json.Unmarshal(m.Params, &p) // only for the note
		c.trace.notef(n, "url elicitation %q complete", p.ElicitationID)
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(m.Method, m.Params)
	}
}

// post202 POSTs a notification or a response, which the server must accept
// without a JSON-RPC answer.
func (c *Client) post202(ctx context.Context, body []byte, method string) error {
	n := c.trace.next()
	resp, err := c.send(ctx, n, http.MethodPost, body, method, "", "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.statusError(n, http.MethodPost, resp)
	}
	if resp.StatusCode != http.StatusAccepted {
		c.trace.notef(n, "expected 202 Accepted, got %s", resp.Status)
	}
	c.drain(n, resp)
	return nil
}

// send makes one HTTP request with the MCP headers and traces it.
func (c *Client) send(ctx context.Context, n int64, method string, body []byte, rpcMethod, rpcName, lastEventID string) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url, rd)
	if err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(c.opts.Header)) {
		for _, v := range c.opts.Header[k] {
			req.Header.Add(k, v)
		}
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Accept", acceptPOST)
		req.Header.Set("Content-Type", contentTypeJSON)
	case http.MethodGet:
		req.Header.Set("Accept", contentTypeSSE)
	}
	if sid := c.session(); sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	if v := c.headerVersion(); v != "" {
		req.Header.Set(headerProtocol, v)
	}
	if c.modern && rpcMethod != "" {
		req.Header.Set(headerMethod, rpcMethod)
		if rpcName != "" {
			req.Header.Set(headerName, rpcName)
		}
	}
	if lastEventID != "" {
		req.Header.Set(headerLastEventID, lastEventID)
	}
	c.trace.request(n, req, body)
	resp, err := c.hc.Do(req)
	if err != nil {
		c.trace.notef(n, "transport error: %v", err)
		return nil, err
	}
	c.trace.response(n, resp)
	return resp, nil
}

// statusError turns a non-2xx answer into an error: the JSON-RPC error in
// its body if there is one, else an *HTTPError. A 404 on a request that
// carried a session id also matches ErrSessionNotFound.
func (c *Client) statusError(n int64, method string, resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyMax))
	c.trace.body(n, data)
	var err error
	if msgs, derr := decodeMessages(data); derr == nil && len(msgs) == 1 && msgs[0].Error != nil {
		err = fmt.Errorf("http %s: %w", resp.Status, msgs[0].Error)
	} else {
		msg := strings.TrimSpace(string(data))
		if len(msg) > errorMessageMax {
			msg = msg[:errorMessageMax] + "..."
		}
		err = &HTTPError{Method: method, StatusCode: resp.StatusCode, Status: resp.Status, Body: msg}
	}
	if resp.StatusCode == http.StatusNotFound && resp.Request != nil && resp.Request.Header.Get(headerSessionID) != "" {
		return fmt.Errorf("%w: %w", ErrSessionNotFound, err)
	}
	return err
}

func (c *Client) readBody(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(c.opts.MaxMessageBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("reading response: %w", err)
	}
	if len(data) > c.opts.MaxMessageBytes {
		return nil, fmt.Errorf("%w: response body exceeds %d bytes", ErrProtocol, c.opts.MaxMessageBytes)
	}
	return data, nil
}

// drain reads (and traces) what is left of a body so the connection can be
// reused.
func (c *Client) drain(n int64, resp *http.Response) {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyMax))
	c.trace.body(n, data)
}

// setSession records the session id from the initialize answer. The spec
// allows only visible ASCII.
func (c *Client) setSession(sid string) error {
	if len(sid) > sessionIDMaxLength {
		return fmt.Errorf("%w: session id longer than %d bytes", ErrProtocol, sessionIDMaxLength)
	}
	for i := 0; i < len(sid); i++ {
		if sid[i] < 0x21 || sid[i] > 0x7e {
			return fmt.Errorf("%w: session id %q has a byte outside visible ASCII", ErrProtocol, sid)
		}
	}
	c.mu.Lock()
	c.sessionID = sid
	c.mu.Unlock()
	return nil
}

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

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
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
