package runtime

import (
	"context"
	"errors"
	"fmt"
	"github.com/go-elicit/elicit/runtime/cluster"
	"net/http"
	"time"
)

// How a Server uses Options.Cluster: see "Several replicas" in doc.go.

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
func (s *Server) sessionState(sess *Session) cluster.SessionState {
	return cluster.SessionState{
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

// clusterRetryAfter is the Retry-After, in seconds, of a 503 for a session
// the directory could not be asked about (about a reconnection of NATS).
const clusterRetryAfter = "2"

// remoteSession finds a session this replica does not hold in the cluster's
// directory and adopts a local view of it. When it returns true without a
// session it has answered itself: 503 with Retry-After when the directory
// cannot be asked, or 202 for a notification then (it has no reply to
// fail, and it reaches no handler: no session here can take it).
func (s *Server) remoteSession(w http.ResponseWriter, r *http.Request, id string, kind msgKind) (*Session, bool) {
	if s.opts.Cluster == nil || !validSessionID(id) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), clusterTimeout)
	defer cancel()
	st, err := s.opts.Cluster.Lookup(ctx, id)
	switch {
	case errors.Is(err, cluster.ErrSessionNotFound):
		return nil, false
	case err != nil:
		s.log.Warn("session directory unavailable", "session", id, "err", err)
		if kind == notificationMessage {
			w.WriteHeader(http.StatusAccepted)
			return nil, true
		}
		w.Header().Set("Retry-After", clusterRetryAfter)
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
func (s *Server) adoptSession(st cluster.SessionState) (*Session, error) {
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
	cc, ok := s.opts.Cluster.(cluster.Canceler)
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
