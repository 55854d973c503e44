package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// Session is one client's MCP session: the negotiated protocol version, what
// the client declared it can do, and its running calls and pending
// elicitations. Handlers get it from CallToolRequest.Session.
//
// On 2026-07-28 requests (no sessions in that protocol) a Session is a view
// of the one request: its capabilities come from the request's _meta and its
// elicitations are answered by the input_required round trip.
type Session struct {
	srv        *Server
	id         string
	protocol   string
	caps       elicitCaps
	clientInfo json.RawMessage
	// capabilities is the client's capabilities object, raw.
	capabilities json.RawMessage
	// subject is who Options.Authenticate said initialized the session.
	subject string

	lastSeen  atomic.Int64 // unix nanos of the last request
	published atomic.Int64 // unix nanos of the last Cluster.Publish
	idle      *time.Timer

	calls callSet // running tools/call by client id key

	mu       sync.Mutex
	pending  map[string]*pendingElicit // by server request id
	closed   bool
	closeErr error
	done     chan struct{} // closed when the session ends

	modern *roundtrip.Run // set on a 2026-07-28 request view
}

func newSession(srv *Server, id, version string, caps elicitCaps, clientInfo json.RawMessage) *Session {
	s := &Session{
		srv:        srv,
		id:         id,
		protocol:   version,
		caps:       caps,
		clientInfo: clientInfo,
		pending:    map[string]*pendingElicit{},
		done:       make(chan struct{}),
	}
	s.touch()
	return s
}

// ID is the Mcp-Session-Id ("" on a 2026-07-28 request).
func (s *Session) ID() string { return s.id }

// ProtocolVersion is the negotiated (or, on 2026-07-28, the request's)
// protocol version.
func (s *Session) ProtocolVersion() string { return s.protocol }

// ClientInfo is the clientInfo object the client sent, raw.
func (s *Session) ClientInfo() json.RawMessage { return s.clientInfo }

// Subject is the caller's identity as Options.Authenticate gave it ("" when
// the server authenticates nobody).
func (s *Session) Subject() string { return s.subject }

// ClientCapabilities is the capabilities object the client declared, raw:
// initialize's on a legacy session, the request's _meta one on 2026-07-28
// (read per request, as that protocol requires). It lets a handler check a
// capability this package does not model, e.g. sampling.
func (s *Session) ClientCapabilities() json.RawMessage { return s.capabilities }

// ClientSupportsElicit reports whether the client can be asked with a form:
// it declared the elicitation capability (form mode) and its protocol
// version has form elicitation. Handlers check it first and fall back to a
// plain tool error, so a client without it never waits on a question.
func (s *Session) ClientSupportsElicit() bool {
	return s.caps.form && hasFormElicitation(s.protocol)
}

// ClientSupportsElicitURL reports whether the client declared URL-mode
// elicitation (2025-11-25 and later).
func (s *Session) ClientSupportsElicitURL() bool {
	return s.caps.url && hasElicitMode(s.protocol)
}

// Done is closed when the session ends.
func (s *Session) Done() <-chan struct{} { return s.done }

// touch records activity, postponing idle expiry.
func (s *Session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

// armIdle starts the idle timer; it re-arms itself while the session is used.
func (s *Session) armIdle() {
	d := s.srv.opts.SessionIdleTimeout
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = time.AfterFunc(d, s.idleCheck)
}

func (s *Session) idleCheck() {
	d := s.srv.opts.SessionIdleTimeout
	idleFor := time.Since(time.Unix(0, s.lastSeen.Load()))
	if idleFor < d {
		s.mu.Lock()
		if !s.closed {
			s.idle.Reset(d - idleFor)
		}
		s.mu.Unlock()
		return
	}
	s.srv.log.Info("session expired", "session", s.id, "idle", idleFor.Round(time.Millisecond))
	s.close(errSessionExpired)
}

var errSessionExpired = &sessionClosedError{reason: "expired after being idle"}
var errSessionDeleted = &sessionClosedError{reason: "deleted by the client"}

// sessionClosedError is ErrSessionClosed with the reason.
type sessionClosedError struct{ reason string }

func (e *sessionClosedError) Error() string        { return ErrSessionClosed.Error() + ": " + e.reason }
func (e *sessionClosedError) Is(target error) bool { return target == ErrSessionClosed }

// close ends the session: it is forgotten by the server, every waiting
// elicitation returns err at once, and running calls' contexts are canceled
// (except on shutdown, where calls may still answer: see Server.Shutdown).
func (s *Session) close(err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.closeErr = err
	if s.idle != nil {
		s.idle.Stop()
	}
	waiters := make([]*pendingElicit, 0, len(s.pending))
	for id, p := range s.pending {
		waiters = append(waiters, p)
		delete(s.pending, id)
	}
	s.mu.Unlock()
	// Forget the session before waking anyone: a request that follows a
	// woken handler's answer must already get 404.
	s.srv.dropSession(s)
	close(s.done)
	for _, p := range waiters {
		p.resolve(elicitReply{err: err})
	}
	if _, shutdown := err.(shutdownError); !shutdown {
		s.cancelCalls(err)
	}
}

// cancelCalls cancels every running call's context with cause.
func (s *Session) cancelCalls(cause error) { s.calls.cancelAll(cause) }

// addCall registers a running call; false when its id is already running.
func (s *Session) addCall(c *call) bool { return s.calls.add(c) }

func (s *Session) removeCall(c *call) { s.calls.remove(c) }

// cancelCall handles notifications/cancelled for one of the client's
// requests. In a cluster, a call that does not run here may run on another
// replica: the cancel is passed on, and reported as handled.
func (s *Session) cancelCall(key, reason string) bool {
	if s.calls.cancel(key, reason) {
		return true
	}
	if s.srv.opts.Cluster == nil || s.id == "" {
		return false
	}
	s.srv.cancelElsewhere(s.id, key, reason)
	return true
}

// stopping returns a channel closed when the server starts shutting down.
func (s *Session) stopping() <-chan struct{} { return s.srv.stopping }

// callFrom returns the call that ctx belongs to, if it is one of s's.
func (s *Session) callFrom(ctx context.Context) (*call, bool) {
	c, ok := ctx.Value(callKey{}).(*call)
	if !ok || c.session != s {
		return nil, false
	}
	return c, true
}
