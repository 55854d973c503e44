package runtime

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-elicit/elicit/runtime/cluster"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
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
	DefaultMaxHeldBytes           = 64 << 20
	DefaultMaxClaimedCalls        = 100000
	DefaultStreamKeepAlive        = 15 * time.Second
	DefaultStreamResumeWindow     = time.Minute
	DefaultMaxStreamReplayBytes   = 1 << 20
	DefaultMaxResumableStreams    = 32
)

// Options configures a Server. The zero value is usable.
type Options struct {
	// Name and Version are the serverInfo of initialize (default "elicit",
	// "0").
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
	// Origin header (non-browser clients) are not affected. An Origin no
	// browser sends (userinfo, a path, query or fragment, no scheme, the
	// header twice) is refused whatever this lists, and so, on a loopback
	// listener, is a malformed Host ("[::1").
	AllowedOrigins []string
	// MaxHeldBytes bounds the bytes the server holds for its clients, over
	// every connection and transport: the bodies (stdio: lines) of the
	// requests it serves, each reply while it is written, which a client
	// that does not read holds up to the http.Server's WriteTimeout, and
	// the events streams keep for a resumption (MaxStreamReplayBytes) (default
	// 64 MiB, raised to MaxBodyBytes; negative: no bound). When it is full,
	// a new HTTP request gets 503 with Retry-After and a JSON-RPC error, a
	// reply that does not fit is replaced by that error, a message sent
	// before a response fails with ErrServerBusy, and ServeStdio stops
	// reading until a request fits.
	MaxHeldBytes int64
	// MaxClaimedCalls caps the calls ClaimCall records in this process
	// (default 100000; each is dropped once its requestState has expired,
	// Options.RequestStateTTL after the claim). Past it, ClaimCall fails the
	// call as busy rather than forget a claim. A Cluster that is a
	// cluster.Claimer records them instead.
	MaxClaimedCalls int
	// StreamKeepAlive is how long an upgraded reply (an SSE stream) may
	// stay silent: after this long without an event, the server writes an
	// SSE comment (": keep-alive"), so a proxy's read timeout (nginx's
	// proxy_read_timeout is 60 s by default) does not cut the stream while
	// a person thinks. Default 15 s; negative: none. A plain JSON reply has
	// no timer. Give every replica of a cluster the same value.
	StreamKeepAlive time.Duration
	// StreamResumeWindow is how long the stream of a session's tools/call
	// (2025-03-26 to 2025-11-25) waits for its client to come back after
	// its connection dropped: a GET with Last-Event-ID within it replays
	// the events the client missed and continues the stream (see "Resuming
	// a stream" in the package doc); past it, the call is cancelled, as a
	// drop cancels it without resumption. A finished stream can be resumed
	// this long too (its response may have been lost in flight); its events
	// are freed at most an eighth of the window after that.
	// Default 1 minute; negative: streams are not kept, a drop cancels the
	// call at once.
	StreamResumeWindow time.Duration
	// MaxStreamReplayBytes bounds the events one stream keeps for a
	// resumption (default 1 MiB): past it, the oldest are dropped, and a
	// GET that asks for them gets 410. The kept events count in
	// MaxHeldBytes, which bounds them over the whole server.
	MaxStreamReplayBytes int64
	// MaxResumableStreams caps the streams one session keeps for a
	// resumption (default 32): a new stream past it evicts the session's
	// oldest finished one, or, when all of them still run, is not kept
	// (its drop cancels its call at once, and a GET for it gets 404).
	MaxResumableStreams int
	// Cluster shares sessions (initialize, Mcp-Session-Id) among the replicas
	// of one service and routes an elicitation answer that lands on another
	// replica to the one waiting for it (see "Several replicas" in the
	// package doc; runtime/natscluster is one on NATS). Nil keeps
	// everything in this process.
	Cluster cluster.Cluster
	// TracerProvider, when set, traces every request as the MCP semantic
	// conventions say (a SERVER span "{mcp.method.name} {target}", a child
	// of the trace context in params._meta or the HTTP headers), and every
	// elicitation as a child span of its call (see "Telemetry" in the
	// package doc). Nil traces nothing, at no cost.
	TracerProvider trace.TracerProvider
	// MeterProvider, when set, records mcp.server.operation.duration,
	// mcp.server.session.duration and the elicitation metrics (see
	// "Telemetry" in the package doc). Nil records nothing, at no cost.
	MeterProvider metric.MeterProvider

	// Tasks turns on tasks (the 2026-07-28 extension
	// io.modelcontextprotocol/tasks) for the tools whose Tool.TaskSupport
	// allows them: with a Store, such a call is answered with a task that
	// a restarted server still has (see "Tasks" in the package doc).
	// Zero: no tasks, at no cost.
	Tasks TaskOptions
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
	if o.MaxClaimedCalls <= 0 {
		o.MaxClaimedCalls = DefaultMaxClaimedCalls
	}
	if o.StreamKeepAlive == 0 {
		o.StreamKeepAlive = DefaultStreamKeepAlive
	}
	if o.StreamResumeWindow == 0 {
		o.StreamResumeWindow = DefaultStreamResumeWindow
	}
	if o.MaxStreamReplayBytes <= 0 {
		o.MaxStreamReplayBytes = DefaultMaxStreamReplayBytes
	}
	if o.MaxResumableStreams <= 0 {
		o.MaxResumableStreams = DefaultMaxResumableStreams
	}
	if o.MaxHeldBytes == 0 {
		o.MaxHeldBytes = DefaultMaxHeldBytes
	}
	if o.MaxHeldBytes > 0 {
		o.MaxHeldBytes = max(o.MaxHeldBytes, o.MaxBodyBytes)
	}
	o.SessionSetupTimeout = min(o.SessionSetupTimeout, o.SessionIdleTimeout)
	o.Tasks = o.Tasks.withDefaults()
	return o
}

// perSubjectCap is the per-subject session cap: none without Authenticate
// (every session then has the subject "").
func perSubjectCap(o Options) int {
	if o.Authenticate == nil {
		return 0
	}
	return o.MaxSessionsPerSubject
}
