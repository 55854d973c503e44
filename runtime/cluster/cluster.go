// Package cluster is the interface between the runtime and what shares its
// sessions among replicas: for implementers of a cluster (runtime/natscluster
// is one, on NATS). A server's author only passes one in
// runtime.Options.Cluster; what a cluster does for the server is in the
// runtime package doc, section "Several replicas".
package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

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
	// calls it once, from runtime.NewServer.
	Attach(peer Peer)
	// Publish records or refreshes a session so every replica can find it
	// until st.ExpiresAt.
	Publish(ctx context.Context, st SessionState) error
	// Lookup returns a session this replica does not hold; an error that
	// matches ErrSessionNotFound when the directory has none.
	Lookup(ctx context.Context, sessionID string) (SessionState, error)
	// Deliver hands a client's JSON-RPC response to the replica that sent
	// the request and waits until it took it: nil when it resolved a
	// pending elicitation, ErrNotPending when that replica waits for
	// no such id, ErrReplicaUnreachable when it does not answer.
	Deliver(ctx context.Context, replica, sessionID string, response []byte) error
	// End removes a session from the directory and tells every replica
	// (this one included) that it ended.
	End(ctx context.Context, sessionID string) error
}

// Canceler is a Cluster that also carries a client's
// notifications/cancelled to the replica running the call it names: a call
// runs on the replica its POST reached, the notification is another POST
// and may reach another one. Without it a cancel reaches the calls of the
// replica it lands on only (a client that closes the call's stream and
// does not resume it still cancels it anywhere, once the server's
// Options.StreamResumeWindow has passed).
type Canceler interface {
	// Cancel tells every replica but this one that the client of
	// sessionID cancelled the request whose id key is requestKey (opaque:
	// pass it to Peer.CancelCall as it is). Like the notification
	// it carries, it is best effort and waits for no replica's reply.
	Cancel(ctx context.Context, sessionID, requestKey, reason string) error
}

// Peer is what a Cluster calls on the local server (see Attach).
type Peer interface {
	// DeliverAnswer resolves the elicitation pending here whose id the
	// response carries; ErrNotPending when there is none.
	DeliverAnswer(sessionID string, response []byte) error
	// EndSession ends the local view of a session that ended elsewhere:
	// its waiting elicitations return runtime.ErrSessionClosed.
	EndSession(sessionID string)
	// CancelCall cancels the call of sessionID running here whose id key
	// is requestKey (see Canceler); false when none runs here.
	CancelCall(sessionID, requestKey, reason string) bool
	// ResumeStream resumes a stream of sessionID kept here for a GET on
	// another replica (see Resumer): it calls send with each event after
	// lastEventID, in order, then with each event and keep-alive comment of
	// the stream as they come (nil first: the stream is found, open the
	// reply), and returns nil when the stream let go of the reader (its
	// end, a newer resumption, a failed send), ctx.Err() when ctx ended
	// first; ErrStreamNotFound or ErrEventsDropped before any send. send
	// must not be called again once it failed or ResumeStream returned.
	ResumeStream(ctx context.Context, sessionID, lastEventID string, send func(event []byte) error) error
}

// Resumer is a Cluster that also relays a resumed stream: a client whose
// call's SSE stream broke sends a GET with Last-Event-ID, which may reach a
// replica other than the one running the call (the event id names it).
// Without it such a GET gets 404, and the call is cancelled once its resume
// window ends.
type Resumer interface {
	// Resume asks replica for the stream of sessionID that lastEventID
	// names and hands every event it sends, as the SSE bytes to write, to
	// send (nil first: the stream is found), each acknowledged before the
	// next is sent: a failed send tells the owner its reader is gone. It
	// returns nil at the end of the stream, ErrStreamNotFound or
	// ErrEventsDropped as the owner's Peer.ResumeStream does,
	// ErrReplicaUnreachable when replica does not answer, and ctx.Err()
	// once ctx ended.
	Resume(ctx context.Context, replica, sessionID, lastEventID string, send func(event []byte) error) error
}

// SessionState is what the directory knows of a session.
type SessionState struct {
	ID              string `json:"id"`
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities and ClientInfo are what the session keeps (see
	// runtime.Session.ClientCapabilities and runtime.Session.ClientInfo): at most
	// runtime.MaxClientCapabilitiesBytes, and a name and a version of at most
	// runtime.MaxClientInfoBytes each, whatever the client sent.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	ClientInfo   json.RawMessage `json:"clientInfo,omitempty"`
	Subject      string          `json:"subject,omitempty"`
	// Replica initialized the session (for logs; any replica serves it).
	Replica   string    `json:"replica"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Errors of a Cluster, to be tested with errors.Is.
var (
	// ErrSessionNotFound: the directory has no such session.
	ErrSessionNotFound = errors.New("elicit: cluster: session not found")
	// ErrNotPending: the owning replica waits for no answer with
	// this id in this session.
	ErrNotPending = errors.New("elicit: cluster: no pending request with this id")
	// ErrReplicaUnreachable: the replica that sent the request did
	// not answer (it stopped or is partitioned away).
	ErrReplicaUnreachable = errors.New("elicit: cluster: replica unreachable")
	// ErrUnavailable: the cluster's transport cannot be reached.
	ErrUnavailable = errors.New("elicit: cluster unavailable")
	// ErrStreamNotFound: no stream that can be resumed has this event id
	// in this session (it ended more than the resume window ago, or was
	// never kept).
	ErrStreamNotFound = errors.New("elicit: cluster: no such stream to resume")
	// ErrEventsDropped: the stream no longer keeps the events that follow
	// the event id (its replay buffer is bounded).
	ErrEventsDropped = errors.New("elicit: cluster: the stream no longer keeps the events after this id")
)

// Claimer is a Cluster that also records the calls runtime.ClaimCall claims,
// for every replica: a replayed requestState may reach any of them.
// runtime/natscluster implements it.
type Claimer interface {
	// Claim records key until expires and reports true, or reports false
	// when key was recorded before (by any replica) and has not expired.
	// Two concurrent claims of one key: exactly one gets true.
	Claim(ctx context.Context, key string, expires time.Time) (bool, error)
}
