package runtime

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
)

// Server is an MCP server: tools plus the sessions of the clients that use
// them. It is an http.Handler for the Streamable HTTP transport; mount it on
// a path, e.g. mux.Handle("/mcp", srv). Make it with NewServer: a Server
// made otherwise (nil, or its zero value) serves nothing: ServeHTTP answers
// 500 and ServeStdio, ServeStdioProcess and Shutdown return an error that
// says to call NewServer, SessionCount is 0, and AddTool panics saying so
// (see "Set-up mistakes panic" in the package doc).
type Server struct {
	opts    Options
	log     *slog.Logger
	states  *roundtrip.Codec
	replica string       // Options.Cluster's replica id; "" alone
	tel     *telemetry.T // Options.TracerProvider, MeterProvider; nil: none

	toolsMu sync.RWMutex
	tools   map[string]*registeredTool
	// toolList is the tools/list result, rebuilt on registration.
	toolList json.RawMessage
	// toolListTasks is toolList with each task tool's execution, for a
	// session served tasks (sessiontasks.go).
	toolListTasks json.RawMessage

	sessions *sessionTable
	held     *heldBytes  // Options.MaxHeldBytes (held.go)
	streams  streamTable // streams kept for a resumption (resume.go)
	claims   claimSet    // ClaimCall's, without a cluster.Claimer (claim.go)
	tasks    *taskRunner // Options.Tasks; nil without a store (tasks.go)
	// seq numbers the streams (newStreamID) and the elicitations (elicitID)
	// from a random start: unique in the process, and, with 64 random bits
	// to start from, across its restarts, whose sessions a Cluster keeps.
	seq atomic.Uint64

	callsMu sync.Mutex
	running int // tool calls running, for Shutdown
	// runningCalls lists the running calls Shutdown's deadline cancels
	// (startCall, linked through call.prevRunning and nextRunning).
	runningCalls *call
	drained      chan struct{} // closed by the last call to end once stopping
	shutdown     atomic.Bool
	stopping     chan struct{} // closed when Shutdown starts
	stopOnce     sync.Once
}

// NewServer returns a server with no tools. It panics if a RequestStateKeys
// entry is not 32 bytes long (see "Set-up mistakes panic" in the package
// doc).
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
		held:     newHeldBytes(opts.MaxHeldBytes),
		tel:      telemetry.New(opts.TracerProvider, opts.MeterProvider),
		tasks:    newTaskRunner(opts.Tasks),
	}
	s.sessions = newSessionTable(opts.MaxSessions, perSubjectCap(opts), &s.shutdown)
	var seq [8]byte
	_, _ = rand.Read(seq[:])
	s.seq.Store(binary.LittleEndian.Uint64(seq[:]))
	s.rebuildToolList()
	s.held.shed = s.streams.shed // finished streams kept for a resumption go first (resume.go)
	s.streams.held, s.streams.window = s.held, opts.StreamResumeWindow
	s.attachCluster()
	return s
}

// errNotMade is what a Server not made by NewServer answers.
var errNotMade = errors.New("elicit: this Server was not made by NewServer: create it with runtime.NewServer(runtime.Options{})")

// errNilContext is what a method that waits on a nil ctx returns.
var errNilContext = errors.New("elicit: nil context: pass context.Background() or a context that ends when serving should")

// made reports whether s was made by NewServer.
func (s *Server) made() bool { return s != nil && s.sessions != nil }

// newID returns 128 random bits as 32 hex digits (visible ASCII, as session
// ids must be).
func newID() string {
	var buf [32]byte
	return string(appendID(buf[:0]))
}

// appendID appends what newID returns to dst.
func appendID(dst []byte) []byte {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.AppendEncode(dst, b[:])
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
