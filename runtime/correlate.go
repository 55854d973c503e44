package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/cluster"
)

// The answer path of the session mechanism: the server sends
// elicitation/create with an id of its own (elicitID) on the stream of the
// call that asks, and the client's answer arrives as a JSON-RPC response —
// a separate POST over HTTP, a line over stdio. Correlation finds the
// handler that waits for it by that id, in the session it was sent on
// (Session.deliver): on this replica, or, in a cluster, through
// Cluster.Deliver on the replica the id names (routeReply, DeliverAnswer).

// pendingElicit is one elicitation waiting for the client's answer:
// resolve sets reply, once, and closes done. (A closed chan struct{} and a
// field are two allocations with the struct, where a buffered channel of
// replies was three.)
type pendingElicit struct {
	done  chan struct{} // closed when reply is set
	once  sync.Once
	reply elicitReply
}

func newPendingElicit() *pendingElicit { return &pendingElicit{done: make(chan struct{})} }

type elicitReply struct {
	result json.RawMessage
	rpcErr *RPCError
	err    error // the session ended
}

func (p *pendingElicit) resolve(r elicitReply) {
	p.once.Do(func() {
		p.reply = r
		close(p.done)
	})
}

// deliver routes a client's response to the pending elicitation with its id
// in this session; false when there is none (unknown, answered or expired).
func (s *Session) deliver(msg *message) bool {
	id, ok := stringID(msg.ID)
	if !ok {
		return false // our ids are strings
	}
	s.mu.Lock()
	p, ok := s.pending[string(id)] // looked up and deleted without copying id
	delete(s.pending, string(id))
	tasks := s.tasks
	s.mu.Unlock()
	if ok {
		p.resolve(elicitReply{result: msg.Result, rpcErr: msg.Error})
		if tasks != nil {
			tasks.answered(string(id)) // a task's request: the task is working again
		}
	}
	return ok
}

// stringID returns the value of a JSON-RPC id that is a string, as
// json.Unmarshal decodes it: the bytes between its quotes when it has no
// escapes (ours have none), a decoded copy otherwise; ok is false for any
// other id.
func stringID(id json.RawMessage) ([]byte, bool) {
	end, plain, ok := roundtrip.ScanString(id, 0)
	if !ok || end != len(id) {
		return nil, false
	}
	if plain {
		return id[1 : end-1], true
	}
	s, err := roundtrip.DecodeString(id, false)
	return []byte(s), err == nil
}

// outcome is what a resolved elicitation returns to ask.
func (r elicitReply) outcome() (json.RawMessage, error) {
	switch {
	case r.err != nil:
		return nil, r.err
	case r.rpcErr != nil:
		return nil, &ClientError{Code: r.rpcErr.Code, Message: r.rpcErr.Message, Data: r.rpcErr.Data}
	}
	return r.result, nil
}

// elicitIDPrefix starts every elicitation request id.
const elicitIDPrefix = "elicit-"

// elicitID is a fresh elicitation request id; in a cluster it names this
// replica so an answer landing elsewhere can be forwarded here. It need not
// be secret, only unique: an answer is looked up in its own session's table
// (Session.deliver), so another session that guesses an id finds nothing.
func (s *Server) elicitID() string {
	var buf [len(elicitIDPrefix) + 64 + 1 + 16]byte // the prefix, a replica id and the number: one allocation, the string's
	return string(s.appendSeqID(append(buf[:0], elicitIDPrefix...)))
}

// replicaOf returns the replica a response's id names ("" for none).
func replicaOf(id json.RawMessage) string {
	var sid string
	if json.Unmarshal(id, &sid) != nil || !strings.HasPrefix(sid, elicitIDPrefix) {
		return ""
	}
	rest := sid[len(elicitIDPrefix):]
	dot := strings.IndexByte(rest, '.')
	if dot <= 0 || !validReplicaID(rest[:dot]) {
		return ""
	}
	return rest[:dot]
}

// routeReply delivers a client's response (body is its JSON): to the
// elicitation pending on this replica, or through the cluster to the replica
// its id names. It returns the HTTP status and, unless 202, the error text.
func (s *Server) routeReply(ctx context.Context, sess *Session, msg *message, body []byte) (int, string) {
	if sess.deliver(msg) {
		return http.StatusAccepted, ""
	}
	notPending := "no pending request with id " + string(msg.ID) + " in this session"
	owner := replicaOf(msg.ID)
	if s.opts.Cluster == nil || owner == "" || owner == s.replica {
		s.log.Warn("answer for no pending request", "session", sess.id, "id", string(msg.ID))
		return http.StatusBadRequest, notPending
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	err := s.opts.Cluster.Deliver(ctx, owner, sess.id, body)
	switch {
	case err == nil:
		return http.StatusAccepted, ""
	case errors.Is(err, cluster.ErrNotPending):
		s.log.Warn("answer for no pending request", "session", sess.id, "id", string(msg.ID), "replica", owner)
		return http.StatusBadRequest, notPending
	case errors.Is(err, cluster.ErrReplicaUnreachable):
		s.log.Warn("answer for a replica that is gone", "session", sess.id, "id", string(msg.ID), "replica", owner, "err", err)
		return http.StatusBadGateway, "the replica " + strconv.Quote(owner) + " that sent request " + string(msg.ID) + " is unreachable: " + err.Error()
	default:
		s.log.Warn("answer not forwarded", "session", sess.id, "id", string(msg.ID), "replica", owner, "err", err)
		return http.StatusServiceUnavailable, "cannot forward the answer to replica " + strconv.Quote(owner) + ": " + err.Error()
	}
}

// DeliverAnswer resolves the elicitation pending here that a response
// forwarded by another replica answers.
func (p clusterPeer) DeliverAnswer(sessionID string, response []byte) error {
	var msg message
	if kind, _ := readMessage(response, &msg); kind != responseMessage {
		return fmt.Errorf("%w: not a JSON-RPC response", cluster.ErrNotPending)
	}
	sess, ok := p.s.session(sessionID)
	if !ok || !sess.deliver(&msg) {
		return cluster.ErrNotPending
	}
	sess.touch()
	return nil
}

// sessionReply routes a client's response to the elicitation waiting on it.
// Only the session that sent the request can answer it: ids are looked up
// in that session's own table, so another session's answer never resolves it.
func (s *Server) sessionReply(sess *Session, msg *message) bool {
	if sess.deliver(msg) {
		return true
	}
	s.log.Warn("answer for no pending request", "session", sess.id, "id", string(msg.ID))
	return false
}
