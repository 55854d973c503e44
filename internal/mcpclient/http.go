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
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// httpTransport is the Streamable HTTP transport: each request is a POST
// whose reply is application/json or a text/event-stream carrying the
// server's messages for it; notifications and answers are POSTs of their
// own (202 Accepted). The HTTP state (URL, session id, negotiated version
// header) lives on the Client, which listen.go shares.
type httpTransport struct{ c *Client }

func (t httpTransport) roundTrip(ctx context.Context, x *exchange, body []byte, name string) (json.RawMessage, error) {
	c := t.c
	resp, err := c.send(ctx, x.n, http.MethodPost, body, x.method, name, "")
	if err != nil {
		return nil, causeOr(ctx, err)
	}
	defer resp.Body.Close()
	if x.method == methodInitialize && resp.StatusCode/100 == 2 {
		if err := c.setSession(resp.Header.Get(runtime.HeaderSessionID)); err != nil {
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
		return nil, fmt.Errorf("%w: json reply carried no response to request %s", ErrProtocol, x.id)
	case contentTypeSSE:
		return x.stream(ctx, resp)
	default:
		return nil, fmt.Errorf("%w: unexpected content type %q", ErrProtocol, resp.Header.Get("Content-Type"))
	}
}

// deliver POSTs a notification or an answer; over HTTP it is an exchange
// of its own, so n is not used.
func (t httpTransport) deliver(ctx context.Context, _ int64, body []byte, method string) error {
	return t.c.post202(ctx, body, method)
}

// close DELETEs the session (a 404 or 405 answer counts as success), stops
// the standalone stream and closes idle connections the client made.
func (t httpTransport) close() error {
	c := t.c
	var err error
	if sid := c.session(); sid != "" {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		err = c.deleteSession(ctx)
		cancel()
	}
	if c.stopListen != nil {
		c.stopListen()
		<-c.listenDone
	}
	if c.own != nil {
		c.own.CloseIdleConnections()
	}
	return err
}

func (c *Client) deleteSession(ctx context.Context) error {
	n := c.trace.next()
	resp, err := c.send(ctx, n, http.MethodDelete, nil, "", "", "")
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2:
		c.drain(n, resp)
		return nil
	case resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusMethodNotAllowed:
		c.drain(n, resp)
		c.trace.notef(n, "server answered DELETE with %s; treating the session as ended", resp.Status)
		return nil
	}
	return fmt.Errorf("delete session: %w", c.statusError(n, http.MethodDelete, resp))
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
		if err := Sleep(ctx, pos.retry); err != nil {
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
	r := NewEventReader(body, c.opts.MaxMessageBytes)
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
		if res, done, err := x.handleMessage(ctx, m, x.n); err != nil || done {
			return res, done, err
		}
	}
	return nil, false, nil
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
		req.Header.Set(runtime.HeaderSessionID, sid)
	}
	if v := c.headerVersion(); v != "" {
		req.Header.Set(runtime.HeaderProtocolVersion, v)
	}
	if c.modern && rpcMethod != "" {
		req.Header.Set(runtime.HeaderMethod, rpcMethod)
		if rpcName != "" {
			req.Header.Set(runtime.HeaderName, rpcName)
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
	if resp.StatusCode == http.StatusNotFound && resp.Request != nil && resp.Request.Header.Get(runtime.HeaderSessionID) != "" {
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

func mediaType(h http.Header) string {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}
