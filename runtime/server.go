package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// Defaults of Options.
const (
	DefaultSessionIdleTimeout     = 30 * time.Minute
	DefaultElicitTimeout          = 10 * time.Minute
	DefaultMaxPendingElicitations = 32
	DefaultMaxBodyBytes           = 4 << 20
	DefaultMaxSessions            = 10000
	DefaultMaxSessionsPerSubject  = 100
	DefaultSessionSetupTimeout    = time.Minute
	DefaultRequestStateTTL        = 30 * time.Minute
)

// Options configures a Server. The zero value is usable.
type Options struct {
	// Name and Version are the serverInfo of initialize (default "elicit", "0").
	Name    string
	Version string
	// Instructions is sent in the initialize result when set.
	Instructions string
	// Logger receives the server's logs; nil means silent.
	Logger *slog.Logger
	// SessionIdleTimeout ends a session that has sent no request for this
	// long (default 30 minutes); a handler waiting on it gets ErrSessionClosed.
	// Keep it above ElicitTimeout and your longest tool call.
	SessionIdleTimeout time.Duration
	// SessionSetupTimeout ends a session that has sent nothing since its
	// initialize (not even notifications/initialized) for this long
	// (default 1 minute, at most SessionIdleTimeout).
	SessionSetupTimeout time.Duration
	// ElicitTimeout bounds one elicitation when the call's context has no
	// earlier deadline (default 10 minutes: people are slow). When it fires,
	// the server sends notifications/cancelled and Elicit returns
	// ErrElicitTimeout. Negative means no timeout but the context's.
	ElicitTimeout time.Duration
	// MaxPendingElicitations caps the elicitations waiting in one session
	// (default 32); one more gets ErrElicitTooMany.
	MaxPendingElicitations int
	// MaxBodyBytes caps a POST body (default 4 MiB); larger gets 413.
	MaxBodyBytes int64
	// MaxSessions caps the live sessions (default 10000). An initialize past
	// it evicts the least recently used idle session, one that never sent
	// anything after its initialize first; a session running a call (or
	// waiting on an elicitation answer) is never evicted, and only when
	// every session is busy does an initialize get 503. An evicted
	// session's client gets 404 and initializes again.
	MaxSessions int
	// MaxSessionsPerSubject caps the live sessions of one subject when
	// Authenticate is set (default 100): past it, the subject's own least
	// recently used idle session is evicted, or, when all of them are
	// busy, the initialize gets 429.
	MaxSessionsPerSubject int
	// RequestStateKeys seal the requestState of 2026-07-28 input_required
	// results (AES-256-GCM, 32 bytes each). The first seals, all open, so keys
	// can be rotated; give every replica the same keys so any of them can
	// serve a retry. Empty means one random key for this process.
	RequestStateKeys [][]byte
	// RequestStateTTL is how long a client may take to retry an
	// input_required call (default 30 minutes).
	RequestStateTTL time.Duration
	// Authenticate, when set, identifies the caller of every HTTP request
	// (from its Authorization header, a client certificate, ...). An error
	// answers 401. A session is bound to the subject that initialized it
	// and a 2026-07-28 requestState to the subject it was issued to: the
	// spec requires elicitation to be bound to the user, and a session id
	// is never authorisation. Handlers read it with Session.Subject. A
	// subject longer than 1024 bytes is refused (401): sessions keep it.
	Authenticate func(r *http.Request) (subject string, err error)
	// AllowedHosts lists extra Host header names (host or host:port) a
	// server listening on a loopback address accepts. By default such a
	// server accepts only loopback host names (localhost, 127.0.0.0/8,
	// [::1]): a DNS-rebinding page reaches it under a foreign name.
	AllowedHosts []string
	// AllowedOrigins lists the Origin values (scheme://host[:port]) a browser
	// may call from; "*" allows any. A request with an Origin header that is
	// not allowed gets 403. Loopback origins (localhost, 127.0.0.0/8, [::1])
	// are always allowed; the request's own Host is not trusted (after DNS
	// rebinding a hostile page's Origin names it). Requests without an
	// Origin header (non-browser clients) are not affected.
	AllowedOrigins []string
	// Cluster shares legacy sessions among the replicas of one service and
	// routes an elicitation answer that lands on another replica to the one
	// waiting for it (see Cluster; runtime/natscluster is one on NATS). Nil
	// keeps everything in this process.
	Cluster Cluster
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "elicit"
	}
	if o.Version == "" {
		o.Version = "0"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.ElicitTimeout == 0 {
		o.ElicitTimeout = DefaultElicitTimeout
	}
	if o.MaxPendingElicitations <= 0 {
		o.MaxPendingElicitations = DefaultMaxPendingElicitations
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.RequestStateTTL <= 0 {
		o.RequestStateTTL = DefaultRequestStateTTL
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxSessionsPerSubject <= 0 {
		o.MaxSessionsPerSubject = DefaultMaxSessionsPerSubject
	}
	if o.SessionSetupTimeout <= 0 {
		o.SessionSetupTimeout = DefaultSessionSetupTimeout
	}
	o.SessionSetupTimeout = min(o.SessionSetupTimeout, o.SessionIdleTimeout)
	return o
}

// Server is an MCP server: tools plus the sessions of the clients that use
// them. It is an http.Handler for the Streamable HTTP transport; mount it on
// a path, e.g. mux.Handle("/mcp", srv). Make it with NewServer: a Server
// made otherwise (nil, or its zero value) serves nothing: ServeHTTP answers
// 500 and ServeStdio, ServeStdioProcess and Shutdown return an error that
// says to call NewServer, AddTool registers nothing and SessionCount is 0.
type Server struct {
	opts    Options
	log     *slog.Logger
	states  *roundtrip.Codec
	replica string // Options.Cluster's replica id; "" alone

	toolsMu sync.RWMutex
	tools   map[string]*registeredTool
	// toolList is the tools/list result, rebuilt on registration.
	toolList json.RawMessage

	sessions *sessionTable

	callsMu  sync.Mutex
	running  int           // tool calls running, for Shutdown
	drained  chan struct{} // closed by the last call to end once stopping
	shutdown atomic.Bool
	stopping chan struct{} // closed when Shutdown starts
	stopOnce sync.Once
}

type registeredTool struct {
	tool    Tool
	handler ToolHandler
}

// perSubjectCap is the per-subject session cap: none without Authenticate
// (every session then has the subject "").
func perSubjectCap(o Options) int {
	if o.Authenticate == nil {
		return 0
	}
	return o.MaxSessionsPerSubject
}

// NewServer returns a server with no tools. It panics if a RequestStateKeys
// entry is not 32 bytes long (a configuration error).
func NewServer(opts Options) *Server {
	opts = opts.withDefaults()
	states, err := newStateCodec(opts.RequestStateKeys, opts.RequestStateTTL)
	if err != nil {
		panic(err.Error())
	}
	s := &Server{
		opts:     opts,
		states:   states,
		log:      opts.Logger,
		tools:    map[string]*registeredTool{},
		stopping: make(chan struct{}),
		drained:  make(chan struct{}),
	}
	s.sessions = newSessionTable(opts.MaxSessions, perSubjectCap(opts), &s.shutdown)
	s.rebuildToolList()
	s.attachCluster()
	return s
}

// errNotMade is what a Server not made by NewServer answers.
var errNotMade = errors.New("elicit: this Server was not made by NewServer: create it with runtime.NewServer(runtime.Options{})")

// errNilContext is what a method that waits on a nil ctx returns.
var errNilContext = errors.New("elicit: nil context: pass context.Background() or a context that ends when serving should")

// made reports whether s was made by NewServer.
func (s *Server) made() bool { return s != nil && s.sessions != nil }

// AddTool registers (or replaces) a tool. An empty InputSchema becomes
// {"type":"object"}. A tool with no Name is not registered (no client
// could call it) and a nil handler registers a tool whose every call fails
// with -32603 saying so; both are logged as errors (Options.Logger).
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if !s.made() {
		return
	}
	if t.Name == "" {
		s.log.Error("elicit: AddTool: the tool has no name, so it is not registered: set Tool.Name")
		return
	}
	if h == nil {
		s.log.Error("elicit: AddTool: nil handler: every call of the tool fails", "tool", t.Name)
		name := t.Name
		h = func(context.Context, *CallToolRequest) (*CallToolResult, error) {
			return nil, rpcErrorf(CodeInternalError, "tool %q was registered with a nil handler: pass AddTool a ToolHandler", name)
		}
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	s.toolsMu.Lock()
	s.tools[t.Name] = &registeredTool{tool: t, handler: h}
	s.toolsMu.Unlock()
	s.rebuildToolList()
}

func (s *Server) rebuildToolList() {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	list := make([]Tool, 0, len(names))
	for _, n := range names {
		list = append(list, s.tools[n].tool)
	}
	raw, err := json.Marshal(struct {
		Tools []Tool `json:"tools"`
	}{list})
	if err != nil {
		panic(fmt.Sprintf("elicit: encoding tools/list: %v", err))
	}
	s.toolList = raw
}

func (s *Server) lookupTool(name string) (*registeredTool, bool) {
	s.toolsMu.RLock()
	defer s.toolsMu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

func (s *Server) toolsListResult() json.RawMessage {
	s.toolsMu.RLock()
	defer s.toolsMu.RUnlock()
	return s.toolList
}

// newID returns 128 random bits as 32 hex digits (visible ASCII, as session
// ids must be).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// newSession makes the session of a successful initialize. An HTTP session
// is registered (found by its Mcp-Session-Id, ended by DELETE, idle expiry
// or eviction); a stdio session lives as long as its connection.
func (s *Server) newSession(version string, kept clientFacts, subject string, register bool) (*Session, error) {
	sess := newSession(s, newID(), version, kept)
	sess.subject = subject
	if s.shutdown.Load() {
		return nil, shutdownError{}
	}
	if !register {
		return sess, nil
	}
	if err := s.register(sess, false); err != nil {
		return nil, err
	}
	s.publishSession(context.Background(), sess)
	return sess, nil
}

// register adds sess to the session table, closing the sessions it evicts,
// and arms its expiry; adopted says whether it is the local view of a
// session used elsewhere.
func (s *Server) register(sess *Session, adopted bool) error {
	have, evicted, err := s.sessions.add(sess, adopted)
	for _, old := range evicted {
		s.log.Info("session evicted to make room", "session", old.id)
		old.close(errSessionEvicted)
	}
	if err != nil {
		return err
	}
	if have != sess {
		return errAlreadyAdopted{have}
	}
	sess.armIdle()
	return nil
}

// errAlreadyAdopted: a concurrent request registered the same session.
type errAlreadyAdopted struct{ sess *Session }

func (errAlreadyAdopted) Error() string { return "session already registered" }

func (s *Server) session(id string) (*Session, bool) { return s.sessions.get(id) }

// dropSession forgets a session (it has been closed).
func (s *Server) dropSession(sess *Session) { s.sessions.remove(sess) }

// SessionCount reports the live sessions.
func (s *Server) SessionCount() int {
	if !s.made() {
		return 0
	}
	return s.sessions.len()
}

// Shutdown stops the server gracefully: new requests get 503, every waiting
// elicitation returns ErrServerShutdown at once (so its handler can answer),
// and Shutdown waits for running calls to write their results. If ctx ends
// first, the remaining calls' contexts are canceled and Shutdown returns
// ctx.Err() once they have returned. Call it before http.Server.Shutdown,
// which would otherwise wait for the open streams (or register it with
// http.Server.RegisterOnShutdown).
func (s *Server) Shutdown(ctx context.Context) error {
	switch {
	case !s.made():
		return errNotMade
	case ctx == nil:
		return errNilContext
	}
	s.stopOnce.Do(func() {
		s.callsMu.Lock()
		s.shutdown.Store(true)
		close(s.stopping)
		if s.running == 0 {
			close(s.drained)
		}
		s.callsMu.Unlock()
	})
	var err error
	select {
	case <-s.drained:
	case <-ctx.Done():
		err = ctx.Err()
		s.forEachSession(func(sess *Session) { sess.cancelCalls(shutdownError{}) })
		<-s.drained
	}
	s.forEachSession(func(sess *Session) { sess.close(shutdownError{}) })
	return err
}

func (s *Server) forEachSession(f func(*Session)) {
	for _, sess := range s.sessions.all() {
		f(sess)
	}
}

// startCall counts a call in; false once Shutdown has begun.
func (s *Server) startCall() bool {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.shutdown.Load() {
		return false
	}
	s.running++
	return true
}

// endCall counts a call out, telling Shutdown when the last one ends.
func (s *Server) endCall() {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	s.running--
	if s.running == 0 && s.shutdown.Load() {
		close(s.drained)
	}
}

// originAllowed implements the Origin check (DNS rebinding protection).
func (s *Server) originAllowed(origin string) bool {
	if origin == "" {
		return true
	}
	for _, o := range s.opts.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	// The request's own Host is deliberately not trusted: after DNS
	// rebinding, a hostile page's Origin and Host name the same host.
	return isLoopbackHost(u.Hostname())
}

// hostAllowed implements the Host check of a loopback listener: after DNS
// rebinding a hostile page reaches 127.0.0.1 under its own name.
func (s *Server) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	tcp, ok := local.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return true
	}
	host := r.Host
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	for _, h := range s.opts.AllowedHosts {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return isLoopbackHost(strings.Trim(name, "[]"))
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
