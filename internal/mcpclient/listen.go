package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// listen keeps the standalone GET stream of a legacy session open until
// Close, answering the server requests and passing on the notifications
// that arrive on it. A server that answers 405 has no such stream; the
// listener then stops quietly. A stream that ends is reopened (with
// Last-Event-ID when its events had ids) after the server's retry delay;
// the listener gives up after maxResumeAttempts openings in a row that
// fail or bring no events.
//
// ready is closed once the first opening got its answer (or failed), so
// Connect returns with the stream in place.
func (c *Client) listen(ctx context.Context, ready chan<- struct{}) {
	readyOnce := sync.OnceFunc(func() { close(ready) })
	defer readyOnce()
	x := &exchange{c: c, n: c.trace.next(), method: "GET stream"}
	ctx, cancel := context.WithCancelCause(ctx)
	x.cancel = cancel
	defer func() {
		cancel(nil)
		x.handlers.Wait()
	}()
	pos := streamPos{retry: defaultRetry}
	for fruitless := 0; fruitless < maxResumeAttempts; {
		got, err := c.listenOnce(ctx, x, &pos, readyOnce)
		if ctx.Err() != nil {
			return
		}
		var httpErr *HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusMethodNotAllowed {
			c.trace.notef(x.n, "server offers no standalone stream (405)")
			return
		}
		if err != nil {
			c.trace.notef(x.n, "standalone stream: %v", err)
		}
		if got {
			fruitless = 0
		} else {
			fruitless++
		}
		if Sleep(ctx, pos.retry) != nil {
			return
		}
	}
	c.trace.notef(x.n, "standalone stream: giving up after %d fruitless attempts", maxResumeAttempts)
}

func (c *Client) listenOnce(ctx context.Context, x *exchange, pos *streamPos, opened func()) (got bool, err error) {
	n := c.trace.next()
	resp, err := c.send(ctx, n, http.MethodGet, nil, "", "", pos.lastID)
	opened()
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return false, c.statusError(n, http.MethodGet, resp)
	}
	if mediaType(resp.Header) != contentTypeSSE {
		return false, fmt.Errorf("%w: unexpected content type %q", ErrProtocol, resp.Header.Get("Content-Type"))
	}
	c.trace.notef(x.n, "standalone stream open on exchange [%d]", n)
	_, _, got, err = x.readEvents(ctx, resp.Body, pos)
	return got, err
}
