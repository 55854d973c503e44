package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
)

// The bytes a Server holds on behalf of its clients: the bodies (HTTP) and
// lines (stdio) of the requests it serves, each reply while it is being
// written, and the events a stream keeps for a resumption (resume.go). A client that does not read its replies holds them for as long
// as a write may take (HTTP: the http.Server's WriteTimeout; stdio: until
// the client reads), so without a bound a few such clients hold as much
// memory as they like. Options.MaxHeldBytes bounds the sum over every
// connection and transport:
//
//   - an HTTP request whose body does not fit gets 503 with Retry-After
//     before its body is read in full;
//   - a reply that does not fit is not written: the client gets a short
//     JSON-RPC error saying so instead (503 when the reply had not begun,
//     the last event of its stream otherwise), and a message a handler
//     sends before its response fails with ErrServerBusy;
//   - stdio stops reading until a request that fits can be held.
//
// One body or reply larger than the whole budget still goes through when
// nothing else is held: the budget bounds what clients hold together, and
// Options.MaxBodyBytes what one of them sends.

// ErrServerBusy is what a server message (an elicitation, a progress or log
// notification) fails with when the bytes held for unread replies have
// reached Options.MaxHeldBytes.
var ErrServerBusy = errors.New("elicit: server busy: the memory held for requests and unread replies is full (Options.MaxHeldBytes)")

// busyError is the JSON-RPC error of a request or reply refused for a full
// budget: -32603 (the server's condition, not the request's fault), as a
// server shutting down says, with a message that says to retry.
var busyError = RPCError{Code: CodeInternalError, Message: "server busy: the memory held for requests and unread replies is full; retry later"}

// busyRetryAfter is the Retry-After of a 503 for a full budget, in seconds.
const busyRetryAfter = "1"

// heldBytes counts the bytes held against max (no bound when max <= 0).
type heldBytes struct {
	max int64
	n   atomic.Int64
	// waiters counts stdio readers waiting in hold; freed wakes one.
	waiters atomic.Int32
	freed   chan struct{}
	// shed, when set, frees what can go (streams finished but kept for a
	// resumption) before a hold that does not fit is refused.
	shed func(need int64)
}

func newHeldBytes(max int64) *heldBytes {
	return &heldBytes{max: max, freed: make(chan struct{}, 1)}
}

// tryHold holds n bytes if they fit, or if nothing is held; when they do
// not, it sheds what can go and tries once more.
func (h *heldBytes) tryHold(n int64) bool {
	if h == nil || h.max <= 0 || n <= 0 {
		return true
	}
	if h.fits(n) {
		return true
	}
	if h.shed == nil {
		return false
	}
	h.shed(n)
	return h.fits(n)
}

// fits holds n bytes if they fit, or if nothing is held.
func (h *heldBytes) fits(n int64) bool {
	for {
		cur := h.n.Load()
		if cur > 0 && cur+n > h.max {
			return false
		}
		if h.n.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// force holds n bytes whether they fit or not: a short error that
// replaces a reply that did not.
func (h *heldBytes) force(n int64) {
	if h != nil && h.max > 0 {
		h.n.Add(n)
	}
}

// hold holds n bytes, waiting until they fit; false when ctx ended first.
func (h *heldBytes) hold(ctx context.Context, n int64) bool {
	if h.tryHold(n) {
		return true
	}
	h.waiters.Add(1)
	defer h.waiters.Add(-1)
	for !h.tryHold(n) { // tried again after counting as a waiter: no wake-up is lost
		select {
		case <-h.freed:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// release returns n bytes that tryHold or hold held.
func (h *heldBytes) release(n int64) {
	if h == nil || h.max <= 0 || n <= 0 {
		return
	}
	h.n.Add(-n)
	if h.waiters.Load() > 0 {
		select {
		case h.freed <- struct{}{}:
		default:
		}
	}
}

// busyFrame is the response that replaces a reply that does not fit.
func busyFrame(id json.RawMessage) []byte {
	e := busyError
	return encodeError(id, &e)
}

// holdReply holds size(reply) bytes for the reply to request id, or, when
// they do not fit, swaps it for the short busy error (held whatever the
// budget: a reply must end the request) and reports false. The caller
// releases size of the reply it gets back once it is written.
func (h *heldBytes) holdReply(reply []byte, id json.RawMessage, size func([]byte) int64) ([]byte, bool) {
	if h.tryHold(size(reply)) {
		return reply, true
	}
	reply = busyFrame(id)
	h.force(size(reply))
	return reply, false
}

// httpBusy answers 503 with Retry-After for a full budget.
func httpBusy(w http.ResponseWriter, id json.RawMessage) {
	w.Header().Set("Retry-After", busyRetryAfter)
	writeJSON(w, http.StatusServiceUnavailable, busyFrame(id))
}
