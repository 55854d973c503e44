package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// Session is one client's MCP session: the negotiated protocol version, what
// the client declared it can do, and its running calls and pending
// elicitations. Handlers get it from CallToolRequest.Session; they ask
// through the call's context (Elicit[T], ElicitSchema, ElicitURL), which
// names the session. Its methods accept a nil or zero Session (a handler's
// unit test) and report nothing about it.
//
// On 2026-07-28 requests (no sessions in that protocol) a Session is a view
// of the one request: its capabilities come from the request's _meta and its
// elicitations are answered by the input_required round trip.
type Session struct {
	srv      *Server
	id       string
	protocol string
	clientFacts
	// subject is who Options.Authenticate said initialized the session.
	subject string
	entry   tableEntry // its place in Server.sessions

	started   time.Time    // for mcp.server.session.duration
	lastSeen  atomic.Int64 // unix nanos of the last request
	published atomic.Int64 // unix nanos of the last Cluster.Publish
	idle      *time.Timer

	calls callSet // running tools/call by client id key

	mu       sync.Mutex
	pending  map[string]*pendingElicit // by server request id
	closed   bool
	closeErr error
	done     chan struct{} // closed when the session ends

	inputRun *roundtrip.Run // set on a request view of the input_required mechanism

	tasks *sessionTasks // the 2025-11-25 tasks the session started (sessiontasks.go), under mu; nil before the first
}

func newSession(srv *Server, id, version string, facts clientFacts) *Session {
	s := &Session{
		srv:         srv,
		id:          id,
		protocol:    version,
		clientFacts: facts,
		pending:     map[string]*pendingElicit{},
		done:        make(chan struct{}),
	}
	s.started = time.Now()
	s.lastSeen.Store(s.started.UnixNano())
	return s
}

// initView makes s, a zero Session, the view of one 2026-07-28 request
// (see Session): its elicitations are run's, so it has no pending table,
// and it is never closed (close is for the sessions a server keeps), so
// its Done is viewDone.
func (s *Session) initView(srv *Server, version string, facts clientFacts, subject string, run *roundtrip.Run) {
	s.srv, s.protocol, s.clientFacts, s.subject, s.inputRun = srv, version, facts, subject, run
	s.done = viewDone
}

// viewDone is the Done of every request view: a channel never closed.
var viewDone = make(chan struct{})

// Caps on what an initialized session keeps of its initialize for its whole
// life (and publishes to Options.Cluster), so that a session costs the same
// whatever its client sent.
const (
	// MaxClientCapabilitiesBytes caps the capabilities object of an
	// initialize, compacted; a longer one is refused (-32602) by name.
	MaxClientCapabilitiesBytes = 4096
	// MaxClientInfoBytes caps each of clientInfo's name and version as
	// kept; longer ones are cut (on a UTF-8 boundary), the rest of
	// clientInfo is not kept.
	MaxClientInfoBytes = 256
)

// clientFacts is what a session keeps of what its client declared.
type clientFacts struct {
	caps elicitCaps
	// capabilities is the client's capabilities object: compacted, at
	// most MaxClientCapabilitiesBytes on an initialized session.
	capabilities json.RawMessage
	// clientInfo is {"name","version"} of the client's clientInfo, each
	// cut to MaxClientInfoBytes, on an initialized session.
	clientInfo json.RawMessage
}

// keepClientFacts is what an initialized session keeps of its initialize's
// capabilities and clientInfo: an error when capabilities are too long.
func keepClientFacts(capabilities, clientInfo json.RawMessage) (clientFacts, error) {
	f := clientFacts{caps: parseElicitCaps(capabilities), clientInfo: keptClientInfo(clientInfo)}
	if len(capabilities) == 0 {
		return f, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, capabilities); err != nil {
		return f, fmt.Errorf("capabilities: %v", err)
	}
	if buf.Len() > MaxClientCapabilitiesBytes {
		return f, fmt.Errorf("capabilities take %d bytes, more than the %d a session keeps: declare fewer (experimental) capabilities", buf.Len(), MaxClientCapabilitiesBytes)
	}
	f.capabilities = json.RawMessage(bytes.Clone(buf.Bytes()))
	return f, nil
}

// keptClientInfo re-encodes the name and version of a clientInfo, each cut
// to MaxClientInfoBytes; nil when it has neither.
func keptClientInfo(raw json.RawMessage) json.RawMessage {
	var ci struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &ci) != nil || ci.Name == "" && ci.Version == "" {
		return nil
	}
	b := append([]byte(`{"name":`), appendJSONString(nil, cutUTF8(ci.Name, MaxClientInfoBytes))...)
	b = append(append(b, `,"version":`...), appendJSONString(nil, cutUTF8(ci.Version, MaxClientInfoBytes))...)
	return append(b, '}')
}

// cutUTF8 cuts s to at most n bytes without splitting a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ID is the Mcp-Session-Id ("" on a 2026-07-28 request).
func (s *Session) ID() string {
	if s == nil {
		return ""
	}
	return s.id
}

// ProtocolVersion is the negotiated (or, on 2026-07-28, the request's)
// protocol version.
func (s *Session) ProtocolVersion() string {
	if s == nil {
		return ""
	}
	return s.protocol
}

// ClientInfo is the client's clientInfo. On an initialized session it is
// {"name":…,"version":…} re-encoded from initialize's, each cut to
// MaxClientInfoBytes (a session keeps nothing else of it, so that its cost
// does not depend on what the client sent); nil when it named neither. On
// a 2026-07-28 request it is the request's _meta clientInfo, raw.
func (s *Session) ClientInfo() json.RawMessage {
	if s == nil {
		return nil
	}
	return s.clientInfo
}

// Subject is the caller's identity as Options.Authenticate gave it ("" when
// the server authenticates nobody).
func (s *Session) Subject() string {
	if s == nil {
		return ""
	}
	return s.subject
}

// ClientCapabilities is the capabilities object the client declared:
// initialize's on an initialized session, compacted (an initialize with more
// than MaxClientCapabilitiesBytes of it is refused), the request's _meta one
// on 2026-07-28, raw (read per request, as that protocol requires). It lets a
// handler check a capability this package does not model, e.g. sampling.
func (s *Session) ClientCapabilities() json.RawMessage {
	if s == nil {
		return nil
	}
	return s.capabilities
}

// Done is closed when the session ends; a Session the server did not make
// (nil or zero) has no life, and its Done is closed already.
func (s *Session) Done() <-chan struct{} {
	if s == nil || s.done == nil {
		return closedChan
	}
	return s.done
}

// closedChan is the Done of a Session the server did not make.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// touch records a request in the session, postponing idle expiry and
// eviction.
func (s *Session) touch() {
	s.lastSeen.Store(time.Now().UnixNano())
	s.srv.sessions.use(s)
}

// armIdle starts the idle timer; it re-arms itself while the session is
// used. A session that sent nothing after initialize gets
// SessionSetupTimeout instead of SessionIdleTimeout.
func (s *Session) armIdle() {
	d := s.expiry()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = time.AfterFunc(d, s.idleCheck)
}

func (s *Session) expiry() time.Duration {
	if s.srv.sessions.established(s) {
		return s.srv.opts.SessionIdleTimeout
	}
	return s.srv.opts.SessionSetupTimeout
}

func (s *Session) idleCheck() {
	d := s.expiry()
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
var errSessionEvicted = &sessionClosedError{reason: "evicted: the server was full and the session was idle"}

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
	tasks := s.tasks
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
	s.srv.tel.Session(s.started, s.protocol, err == errStdioClosed, sessionErrorType(err))
	close(s.done)
	for _, p := range waiters {
		p.resolve(elicitReply{err: err})
	}
	if _, shutdown := err.(shutdownError); !shutdown {
		s.cancelCalls(err)
		if tasks != nil {
			tasks.cancelAll(s.srv, errTaskSessionEnded) // nobody can ask for them any more
		}
	}
}

// cancelCalls cancels every running call's context with cause.
func (s *Session) cancelCalls(cause error) { s.calls.cancelAll(cause) }

// addCall registers a running call; false when its id is already running.
// While a call runs the session is busy: it is never evicted.
func (s *Session) addCall(c *call) bool {
	if !s.calls.add(c) {
		return false
	}
	s.srv.sessions.busy(s, +1)
	return true
}

func (s *Session) removeCall(c *call) {
	s.calls.remove(c)
	s.srv.sessions.busy(s, -1)
}

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
