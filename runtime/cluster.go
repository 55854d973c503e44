package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Several replicas behind a load balancer. A 2026-07-28 request needs nothing
// shared but Options.RequestStateKeys: any replica serves any retry. A
// session (initialize, Mcp-Session-Id) is state, and its elicitation answer
// is a separate POST that may land on another replica than the one whose
// handler waits for it. Options.Cluster closes that gap:
//
//   - initialize publishes the session (id, version, capabilities, subject,
//     expiry) to a directory every replica reads;
//   - a replica that gets a request for a session it does not hold builds a
//     local view of it from the directory, so tools/list, ping and
//     tools/call work anywhere; each call runs, and elicits, on the replica
//     that received its POST, whose stream carries it;
//   - in a cluster the elicitation request ids name their replica
//     ("elicit-<replica>.<random>"), and an answer whose id is not pending
//     where it lands is forwarded to that replica: 202 once the owner took
//     it, 400 when nobody waits for it, 502 when that replica is gone, 503
//     when the cluster cannot be reached;
//   - DELETE on any replica ends the session everywhere and wakes its
//     waiters wherever they are;
//   - a client's notifications/cancelled that lands on another replica
//     than the call it names is passed on to every replica, when the
//     Cluster is also a ClusterCanceler (runtime/natscluster is).
//
// Without a Cluster everything stays in this process, as before.

// Cluster shares sessions (initialize, Mcp-Session-Id) and routes elicitation
// answers among the replicas of one service. runtime/natscluster implements
// it on NATS. Its methods are called concurrently; each should give up when
// ctx ends.
type Cluster interface {
	// ReplicaID names this replica, unique among the cluster's members. It
	// is made of letters, digits, '_' and '-' (it appears in request ids
	// and in the implementation's addresses).
	ReplicaID() string
	// Attach gives the cluster the local server it delivers to. The server
	// calls it once, from NewServer.
	Attach(peer ClusterPeer)
	// Publish records or refreshes a session so every replica can find it
	// until st.ExpiresAt.
	Publish(ctx context.Context, st SessionState) error
	// Lookup returns a session this replica does not hold; an error that
	// matches ErrClusterSessionNotFound when the directory has none.
	Lookup(ctx context.Context, sessionID string) (SessionState, error)
	// Deliver hands a client's JSON-RPC response to the replica that sent
	// the request and waits until it took it: nil when it resolved a
	// pending elicitation, ErrClusterNotPending when that replica waits for
	// no such id, ErrClusterReplicaUnreachable when it does not answer.
	Deliver(ctx context.Context, replica, sessionID string, response []byte) error
	// End removes a session from the directory and tells every replica
	// (this one included) that it ended.
	End(ctx context.Context, sessionID string) error
}

// ClusterCanceler is a Cluster that also carries a client's
// notifications/cancelled to the replica running the call it names: a call
// runs on the replica its POST reached, the notification is another POST
// and may reach another one. Without it a cancel reaches the calls of the
// replica it lands on only (a client that closes the call's stream still
// cancels it anywhere).
type ClusterCanceler interface {
	// Cancel tells every replica but this one that the client of
	// sessionID cancelled the request whose id key is requestKey (opaque:
	// pass it to ClusterPeer.CancelCall as it is). Like the notification
	// it carries, it is best effort and waits for no replica's reply.
	Cancel(ctx context.Context, sessionID, requestKey, reason string) error
}

// ClusterPeer is what a Cluster calls on the local server (see Attach).
type ClusterPeer interface {
	// DeliverAnswer resolves the elicitation pending here whose id the
	// response carries; ErrClusterNotPending when there is none.
	DeliverAnswer(sessionID string, response []byte) error
	// EndSession ends the local view of a session that ended elsewhere:
	// its waiting elicitations return ErrSessionClosed.
	EndSession(sessionID string)
	// CancelCall cancels the call of sessionID running here whose id key
	// is requestKey (see ClusterCanceler); false when none runs here.
	CancelCall(sessionID, requestKey, reason string) bool
}

// SessionState is what the directory knows of a session.
type SessionState struct {
	ID              string `json:"id"`
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities and ClientInfo are what the session keeps (see
	// Session.ClientCapabilities and Session.ClientInfo): at most
	// MaxClientCapabilitiesBytes, and a name and a version of at most
	// MaxClientInfoBytes each, whatever the client sent.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	ClientInfo   json.RawMessage `json:"clientInfo,omitempty"`
	Subject      string          `json:"subject,omitempty"`
	// Replica initialized the session (for logs; any replica serves it).
	Replica   string    `json:"replica"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Errors of a Cluster, to be tested with errors.Is.
var (
	// ErrClusterSessionNotFound: the directory has no such session.
	ErrClusterSessionNotFound = errors.New("elicit: cluster: session not found")
	// ErrClusterNotPending: the owning replica waits for no answer with
	// this id in this session.
	ErrClusterNotPending = errors.New("elicit: cluster: no pending request with this id")
	// ErrClusterReplicaUnreachable: the replica that sent the request did
	// not answer (it stopped or is partitioned away).
	ErrClusterReplicaUnreachable = errors.New("elicit: cluster: replica unreachable")
	// ErrClusterUnavailable: the cluster's transport cannot be reached.
	ErrClusterUnavailable = errors.New("elicit: cluster unavailable")
)

// clusterTimeout bounds one cluster operation made for an HTTP request.
const clusterTimeout = 5 * time.Second

// validReplicaID reports whether id can name a replica.
func validReplicaID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// attachCluster wires Options.Cluster at NewServer; a bad replica id is a
// configuration error (panic, like a bad RequestStateKeys entry).
func (s *Server) attachCluster() {
	c := s.opts.Cluster
	if c == nil {
		return
	}
	if !validReplicaID(c.ReplicaID()) {
		panic(fmt.Sprintf("elicit: Options.Cluster: invalid replica id %q: use 1 to 64 letters, digits, '_' or '-'", c.ReplicaID()))
	}
	s.replica = c.ReplicaID()
	c.Attach(clusterPeer{s})
}

// validSessionID reports whether id has the shape of the ids this runtime
// makes (32 hex digits); anything else is unknown without asking anyone.
func validSessionID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// sessionState is what the directory records of sess.
func (s *Server) sessionState(sess *Session) SessionState {
	return SessionState{
		ID:              sess.id,
		ProtocolVersion: sess.protocol,
		Capabilities:    sess.capabilities,
		ClientInfo:      sess.clientInfo,
		Subject:         sess.subject,
		Replica:         s.replica,
		ExpiresAt:       time.Now().Add(s.opts.SessionIdleTimeout),
	}
}

// publishSession records a new or still used session in the directory. A
// failure is logged, not fatal: the session keeps working on this replica
// (the only thing a client talking to this replica needs); elsewhere it is
// unknown until a later refresh succeeds.
func (s *Server) publishSession(ctx context.Context, sess *Session) {
	if s.opts.Cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	sess.published.Store(time.Now().UnixNano())
	if err := s.opts.Cluster.Publish(ctx, s.sessionState(sess)); err != nil {
		sess.published.Store(0) // try again on the next request
		s.log.Warn("session not published to the cluster: other replicas cannot serve it", "session", sess.id, "err", err)
	}
}

// refreshSession republishes a session used here, at most every quarter of
// the idle timeout, so the directory entry outlives no activity and dies
// with none.
func (s *Server) refreshSession(ctx context.Context, sess *Session) {
	if s.opts.Cluster == nil {
		return
	}
	last := sess.published.Load()
	if time.Duration(time.Now().UnixNano()-last) < s.opts.SessionIdleTimeout/4 {
		return
	}
	if !sess.published.CompareAndSwap(last, time.Now().UnixNano()) {
		return // another request refreshes it
	}
	s.publishSession(ctx, sess)
}

// remoteSession finds a session this replica does not hold in the cluster's
// directory and adopts a local view of it. It answers the HTTP error itself
// when it returns false.
func (s *Server) remoteSession(w http.ResponseWriter, r *http.Request, id string) (*Session, bool) {
	if s.opts.Cluster == nil || !validSessionID(id) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	st, err := s.opts.Cluster.Lookup(ctx, id)
	switch {
	case errors.Is(err, ErrClusterSessionNotFound):
		return nil, false
	case err != nil:
		s.log.Warn("session directory unavailable", "session", id, "err", err)
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, "session directory unavailable: "+err.Error())
		return nil, true
	case st.ID != id || !st.ExpiresAt.After(time.Now()):
		return nil, false
	}
	sess, err := s.adoptSession(st)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, err.Error())
		return nil, true
	}
	return sess, true
}

// adoptSession registers the local view of a session from the directory (or
// returns the one a concurrent request registered first).
func (s *Server) adoptSession(st SessionState) (*Session, error) {
	// The directory holds what a replica kept, within the same caps; a
	// longer entry (another version, another writer) keeps what fits.
	facts, err := keepClientFacts(st.Capabilities, st.ClientInfo)
	if err != nil {
		facts.capabilities = nil
	}
	sess := newSession(s, st.ID, st.ProtocolVersion, facts)
	sess.subject = st.Subject
	sess.published.Store(time.Now().UnixNano()) // the directory just had it
	if err := s.register(sess, true); err != nil {
		if have, ok := err.(errAlreadyAdopted); ok {
			return have.sess, nil
		}
		return nil, err
	}
	s.log.Debug("session adopted from the cluster", "session", st.ID, "from", st.Replica)
	return sess, nil
}

// endEverywhere tells the cluster a session was deleted here.
func (s *Server) endEverywhere(ctx context.Context, id string) error {
	if s.opts.Cluster == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	return s.opts.Cluster.End(ctx, id)
}

// clusterPeer is the Server as its Cluster sees it.
type clusterPeer struct{ s *Server }

func (p clusterPeer) CancelCall(sessionID, requestKey, reason string) bool {
	sess, ok := p.s.session(sessionID)
	return ok && sess.calls.cancel(requestKey, reason) // never forwarded again
}

// cancelElsewhere passes a client's cancel for a call that does not run
// here to the other replicas, when the cluster can.
func (s *Server) cancelElsewhere(sessionID, requestKey, reason string) {
	cc, ok := s.opts.Cluster.(ClusterCanceler)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := cc.Cancel(ctx, sessionID, requestKey, reason); err != nil {
		s.log.Warn("cancel not passed on to the other replicas", "session", sessionID, "err", err)
	}
}

func (p clusterPeer) EndSession(sessionID string) {
	if sess, ok := p.s.session(sessionID); ok {
		p.s.log.Info("session ended on another replica", "session", sessionID)
		sess.close(errSessionDeleted)
	}
}
