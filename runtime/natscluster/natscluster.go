// Package natscluster is a cluster.Cluster on NATS: several replicas of an
// elicit server behind a load balancer without sticky sessions serve the
// sessions (initialize, Mcp-Session-Id) of 2025-03-26 to 2025-11-25 as if
// they were one process.
//
//	nc, err := nats.Connect(natsURL, nats.MaxReconnects(-1)) // reconnect for ever
//	...
//	cl, err := natscluster.New(ctx, natscluster.Options{Conn: nc, Replica: "web-1"})
//	...
//	defer cl.Close()
//	srv := runtime.NewServer(runtime.Options{Cluster: cl, RequestStateKeys: keys})
//
// Give every replica its own Replica id, the same Prefix and Bucket, and the
// same runtime.Options.RequestStateKeys (2026-07-28 calls need nothing else:
// their state travels sealed in the request).
//
// What travels where:
//
//	sessions   JetStream key-value bucket Bucket (see "NATS restarts"), one entry
//	           per session (JSON cluster.SessionState), expiring SessionTTL
//	           after its last refresh
//	answers    request/reply on PREFIX.answer.REPLICA: the replica that
//	           got an elicitation answer it does not wait for sends it to the
//	           replica named in the request id, which replies "ok" or
//	           "not-pending"
//	ends       PREFIX.end carries the id of a session deleted anywhere
//	claims     JetStream key-value bucket ClaimBucket (the same storage), one
//	           entry per call runtime.ClaimCall claimed (its nonce, in hex),
//	           created once (a second Create of the key fails: the replay),
//	           expiring ClaimTTL after it was made
//	cancels    PREFIX.cancel carries a client's notifications/cancelled that
//	           landed on another replica than the call it names (headers:
//	           session, request key, sender; the reason is the payload);
//	           every replica but the sender cancels the call if it runs it
//	tasks      JetStream key-value bucket TaskBucket (the same storage), for
//	           Cluster.TaskStore: one entry per task and one per owner
//	           (see tasks.go), each written by compare-and-set, expiring
//	           TaskTTL after its last write
//
// # NATS restarts
//
// The buckets are JetStream key-value buckets whose storage
// Options.Storage chooses and whose copies Options.Replicas sets. Each
// replica remembers the directory entries it wrote or read (the sessions it
// initialized or served, until they expire: at most what the directory
// holds). A publish, lookup, end or claim that finds a bucket gone ("no
// response from stream", stream not found) creates it again and tries once
// more. After its connection comes back (nats.go reconnects by itself, but
// by default gives up after 60 attempts: pass nats.MaxReconnects(-1)), and
// whenever the directory was created again, a replica binds both buckets
// again and writes back what the directory lacks: every entry it remembers
// when the directory is a new one, else only those it could not write
// while NATS was down (a directory NATS kept costs no writes); an entry
// that expires later, written by another replica, is never replaced. So,
// when nats-server restarts:
//
//   - with jetstream.FileStorage (the default: use it in production) the
//     buckets come back from the server's store directory: no session, no
//     claim and no task is lost;
//   - with jetstream.MemoryStorage the buckets come back empty. New
//     sessions work again as soon as the replicas have reconnected, without
//     restarting any of them, and every session a running replica
//     initialized or served comes back with that replica's reconnection.
//     Lost are the sessions no running replica has initialized or served
//     (their replicas stopped before NATS came back): a lookup of them
//     answers 404, and their clients initialize again, as the spec tells
//     them to; and every claim of runtime.ClaimCall: a requestState whose
//     call was claimed before the restart is accepted once more after it,
//     until its RequestStateTTL; and every task of Cluster.TaskStore
//     (tasks/get answers that it is not found). Until a replica has written its entries
//     again, another replica may answer 404 for its sessions.
//
// Recommended production settings: a NATS cluster of three servers with
// JetStream, Storage jetstream.FileStorage (the default), Replicas 3; a
// nats.Conn with nats.MaxReconnects(-1) and a short nats.ReconnectWait.
//
// # Faults
//
// While the connection is reconnecting, cluster operations wait for it
// until Options.ReconnectGrace (5s by default) has passed since the first of
// them found it down: a nats-server restart
// shorter than that costs the requests that arrive meanwhile latency, not a
// failure, and a session initialized meanwhile is in the directory before
// its client hears of it. When NATS stays unreachable longer (or the
// connection is closed), every cluster operation fails at once with an error
// matching cluster.ErrUnavailable, and the server degrades as the runtime
// package doc says ("Several replicas"): a client whose requests reach a
// replica holding its session keeps working (a replica holds the sessions
// it created and those it has served, until it evicts them or they idle
// out), a notification for a session the replica cannot look up gets 202
// (handled by no one), a request gets 503 with Retry-After, and an answer
// that must be forwarded gets 503. An answer for a replica that stopped
// matches cluster.ErrReplicaUnreachable (502) once no replica has listened
// for it during ReconnectGrace (a replica that is itself reconnecting
// listens again within it): only that replica's calls are lost, and with
// it their streams. Everything comes back by itself with the
// connection.
package natscluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/cluster"
)

// Defaults of Options.
const (
	DefaultPrefix         = "elicit"
	DefaultBucket         = "elicit_sessions"
	DefaultClaimBucket    = "elicit_claims"
	DefaultTaskBucket     = "elicit_tasks"
	DefaultRequestTimeout = 2 * time.Second
	DefaultReconnectGrace = 5 * time.Second
)

// Header and reply values of the answer protocol.
const (
	headerSession   = "Elicit-Session"
	headerRequest   = "Elicit-Request"
	headerReplica   = "Elicit-Replica"
	replyOK         = "ok"
	replyNotPending = "not-pending"
)

// Options configure a Cluster.
type Options struct {
	// Conn is the NATS connection (required, connected, with JetStream
	// enabled on the server). The Cluster does not close it.
	Conn *nats.Conn
	// Replica names this replica: unique in the cluster, 1 to 64 letters,
	// digits, '_' or '-' (required).
	Replica string
	// Prefix starts every subject (default "elicit"); replicas of one
	// service share it, another service uses its own.
	Prefix string
	// Bucket is the key-value bucket of the session directory (default
	// "elicit_sessions").
	Bucket string
	// SessionTTL is how long a session entry lives without a refresh
	// (default runtime.DefaultSessionIdleTimeout); match the servers'
	// SessionIdleTimeout.
	SessionTTL time.Duration
	// RequestTimeout bounds one NATS round trip (default 2s).
	RequestTimeout time.Duration
	// ReconnectGrace is how long operations wait for a NATS connection
	// that is reconnecting (a nats-server restart, a network blip), counted
	// from when the first of them found it down, before they fail with
	// cluster.ErrUnavailable (default 5s; negative: fail at once); past it,
	// operations fail at once until the connection is back. A restart
	// shorter than it costs the requests that land on a replica meanwhile
	// some latency instead of a 503; keep the
	// connection's own reconnect wait (nats.ReconnectWait, 2s by default)
	// well below it.
	ReconnectGrace time.Duration
	// ClaimBucket is the key-value bucket of the calls runtime.ClaimCall
	// claimed (default "elicit_claims"), and ClaimTTL how long each claim
	// lives (default runtime.DefaultRequestStateTTL); match the servers'
	// RequestStateTTL: a replay after it finds no claim, but no state of the
	// call opens any more either.
	ClaimBucket string
	ClaimTTL    time.Duration
	// TaskBucket is the key-value bucket of the tasks Cluster.TaskStore
	// keeps (default "elicit_tasks"; created on first use), and TaskTTL
	// how long an entry lives after its last write (default
	// runtime.DefaultTaskTTL); set it to at least the servers'
	// Options.Tasks.TTL: TaskStore refuses a task that would outlive it.
	TaskBucket string
	TaskTTL    time.Duration
	// Storage is where the NATS servers keep the buckets:
	// jetstream.FileStorage (the zero value, the default: use it in
	// production; a restart of nats-server loses nothing) or
	// jetstream.MemoryStorage (faster, and a restart empties the buckets:
	// see "NATS restarts" in the package doc for what is lost). Every replica
	// must say the same; a bucket that exists with another storage makes New
	// fail (delete the bucket to change it).
	Storage jetstream.StorageType
	// Replicas is how many JetStream servers keep a copy of each bucket
	// (default 1; at most 5, and at most the servers of the NATS cluster):
	// 3 rides out the loss of one server of a NATS cluster.
	Replicas int
	// Logger receives what the Cluster does by itself: creating the buckets
	// again and publishing the sessions again after NATS came back, and what
	// failed there; nil means silent.
	Logger *slog.Logger
}

// Cluster is a cluster.Cluster on a NATS connection. Its methods are safe
// for concurrent use.
type Cluster struct {
	opts       Options
	nc         *nats.Conn
	log        *slog.Logger
	kv         *bucket // the session directory
	claims     *bucket
	tasks      *bucket
	answerSubj string
	endSubj    string
	cancelSubj string

	peer atomic.Pointer[peerBox]

	// downSince is when an operation first found the connection down
	// (UnixNano; 0 while it is up): the start of ReconnectGrace (see up).
	downSince atomic.Int64

	// mine is the directory entries this replica wrote or read, until they
	// expire, to write back when NATS lost them.
	mine mySessions
	// syncedTo is the creation time of the directory's stream to which
	// every entry of mine was written (see bound).
	syncMu   sync.Mutex
	syncedTo time.Time

	// The watcher of the connection's status and of the directory (see
	// watch).
	status    chan nats.Status
	resync    chan struct{}
	stop      context.CancelFunc
	stopCtx   context.Context
	watchDone chan struct{}

	mu     sync.Mutex
	subs   []*nats.Subscription
	closed bool
}

type peerBox struct{ p cluster.Peer }

var (
	_ cluster.Cluster  = (*Cluster)(nil)
	_ cluster.Canceler = (*Cluster)(nil)
	_ cluster.Claimer  = (*Cluster)(nil)
)

// ErrInvalidOptions reports an unusable Options value.
var ErrInvalidOptions = errors.New("natscluster: invalid options")

// New joins the cluster: it creates (or binds) the session bucket and
// subscribes to this replica's answers and to session ends.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Conn == nil {
		return nil, fmt.Errorf("%w: Conn is required", ErrInvalidOptions)
	}
	if !validToken(opts.Replica) {
		return nil, fmt.Errorf("%w: Replica %q: use 1 to 64 letters, digits, '_' or '-'", ErrInvalidOptions, opts.Replica)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Bucket == "" {
		opts.Bucket = DefaultBucket
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = runtime.DefaultSessionIdleTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ReconnectGrace == 0 {
		opts.ReconnectGrace = DefaultReconnectGrace
	}
	if opts.ClaimBucket == "" {
		opts.ClaimBucket = DefaultClaimBucket
	}
	if opts.ClaimTTL <= 0 {
		opts.ClaimTTL = runtime.DefaultRequestStateTTL
	}
	if opts.TaskBucket == "" {
		opts.TaskBucket = DefaultTaskBucket
	}
	if opts.TaskTTL <= 0 {
		opts.TaskTTL = runtime.DefaultTaskTTL
	}
	if opts.Storage != jetstream.FileStorage && opts.Storage != jetstream.MemoryStorage {
		return nil, fmt.Errorf("%w: Storage %d: use jetstream.FileStorage or jetstream.MemoryStorage", ErrInvalidOptions, opts.Storage)
	}
	if opts.Replicas == 0 {
		opts.Replicas = 1
	}
	if opts.Replicas < 1 || opts.Replicas > 5 {
		return nil, fmt.Errorf("%w: Replicas %d: use 1 to 5", ErrInvalidOptions, opts.Replicas)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if !opts.Conn.IsConnected() {
		return nil, fmt.Errorf("%w: nats connection is %s", cluster.ErrUnavailable, opts.Conn.Status())
	}
	ctx, cancel := context.WithTimeout(ctx, 4*opts.RequestTimeout)
	defer cancel()
	js, err := jetstream.New(opts.Conn)
	if err != nil {
		return nil, fmt.Errorf("natscluster: jetstream: %w", err)
	}
	kv := newBucket(js, opts, opts.Bucket, opts.SessionTTL)
	if err := kv.bind(ctx, time.Time{}); err != nil {
		return nil, fmt.Errorf("natscluster: session bucket %q: %w", opts.Bucket, err)
	}
	claims := newBucket(js, opts, opts.ClaimBucket, opts.ClaimTTL)
	if err := claims.bind(ctx, time.Time{}); err != nil {
		return nil, fmt.Errorf("natscluster: claim bucket %q: %w", opts.ClaimBucket, err)
	}
	c := &Cluster{
		opts:       opts,
		nc:         opts.Conn,
		log:        logger,
		kv:         kv,
		claims:     claims,
		tasks:      newBucket(js, opts, opts.TaskBucket, opts.TaskTTL), // bound on first use (tasks.go)
		answerSubj: opts.Prefix + ".answer." + opts.Replica,
		endSubj:    opts.Prefix + ".end",
		cancelSubj: opts.Prefix + ".cancel",
	}
	ans, err := c.nc.Subscribe(c.answerSubj, c.onAnswer)
	if err != nil {
		return nil, fmt.Errorf("natscluster: subscribing to %s: %w", c.answerSubj, err)
	}
	end, err := c.nc.Subscribe(c.endSubj, c.onEnd)
	if err != nil {
		_ = ans.Unsubscribe()
		return nil, fmt.Errorf("natscluster: subscribing to %s: %w", c.endSubj, err)
	}
	cnl, err := c.nc.Subscribe(c.cancelSubj, c.onCancel)
	if err != nil {
		_ = ans.Unsubscribe()
		_ = end.Unsubscribe()
		return nil, fmt.Errorf("natscluster: subscribing to %s: %w", c.cancelSubj, err)
	}
	c.subs = []*nats.Subscription{ans, end, cnl}
	if err := c.subscribeResume(); err != nil { // resume.go
		_ = c.Close()
		return nil, err
	}
	// Make sure the server has the subscriptions before anyone is told
	// this replica exists.
	if err := c.nc.FlushWithContext(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("natscluster: %w", err)
	}
	c.stopCtx, c.stop = context.WithCancel(context.Background())
	c.status = c.nc.StatusChanged(nats.CONNECTED)
	c.resync = make(chan struct{}, 1)
	c.watchDone = make(chan struct{})
	c.syncedTo = kv.created // nothing remembered yet
	kv.onBound = c.bound    // before any other goroutine can bind
	go c.watch()
	return c, nil
}

// Close leaves the cluster: this replica gets no more answers or ends, and
// stops watching the connection. The NATS connection stays open.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	var errs []error
	for _, s := range c.subs {
		if err := s.Unsubscribe(); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
			errs = append(errs, err)
		}
	}
	c.mu.Unlock()
	if c.watchDone != nil {
		c.stop()
		c.nc.RemoveStatusListener(c.status) // closes it: watch returns
		<-c.watchDone
	}
	return errors.Join(errs...)
}

// ReplicaID implements cluster.Cluster.
func (c *Cluster) ReplicaID() string { return c.opts.Replica }

// Attach implements cluster.Cluster.
func (c *Cluster) Attach(peer cluster.Peer) { c.peer.Store(&peerBox{peer}) }

// Publish implements cluster.Cluster.
func (c *Cluster) Publish(ctx context.Context, st cluster.SessionState) error {
	if !validKey(st.ID) {
		return fmt.Errorf("natscluster: publish: invalid session id %q", st.ID)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("natscluster: encoding session %s: %w", st.ID, err)
	}
	// Kept even when the put fails: NATS coming back writes it then.
	seq := c.mine.keep(st.ID, raw, st.ExpiresAt, false)
	if err := c.up(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	if _, err := retryGone(ctx, c.kv, func(kv jetstream.KeyValue) (uint64, error) { return kv.Put(ctx, st.ID, raw) }); err != nil {
		return c.fault("publishing session "+st.ID, err)
	}
	c.mine.wrote(st.ID, seq)
	return nil
}

// Lookup implements cluster.Cluster.
func (c *Cluster) Lookup(ctx context.Context, sessionID string) (cluster.SessionState, error) {
	var st cluster.SessionState
	if !validKey(sessionID) {
		return st, cluster.ErrSessionNotFound
	}
	if err := c.up(ctx); err != nil {
		return st, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	e, err := retryGone(ctx, c.kv, func(kv jetstream.KeyValue) (jetstream.KeyValueEntry, error) { return kv.Get(ctx, sessionID) })
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return st, cluster.ErrSessionNotFound
	case err != nil:
		return st, c.fault("looking up session "+sessionID, err)
	}
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return st, fmt.Errorf("natscluster: session %s: bad directory entry: %w", sessionID, err)
	}
	if st.ID == sessionID && st.ExpiresAt.After(time.Now()) {
		c.mine.keep(sessionID, e.Value(), st.ExpiresAt, true) // served here: written back if NATS loses it
	}
	return st, nil
}

// Deliver implements cluster.Cluster.
func (c *Cluster) Deliver(ctx context.Context, replica, sessionID string, response []byte) error {
	if !validToken(replica) {
		return fmt.Errorf("%w: invalid replica id %q", cluster.ErrNotPending, replica)
	}
	if err := c.up(ctx); err != nil {
		return err
	}
	msg := nats.NewMsg(c.opts.Prefix + ".answer." + replica)
	msg.Header.Set(headerSession, sessionID)
	msg.Data = response
	rep, err := c.request(ctx, msg)
	if err != nil {
		return c.replicaFault("forwarding an answer to", replica, err)
	}
	switch string(rep.Data) {
	case replyOK:
		return nil
	case replyNotPending:
		return cluster.ErrNotPending
	default:
		return fmt.Errorf("%w: replica %q replied %q", cluster.ErrNotPending, replica, rep.Data)
	}
}

// request sends msg and waits RequestTimeout for the reply. No responders
// may only mean that the replica listening is itself reconnecting (after a
// NATS restart the replicas come back one by one, and a subscription is
// resent only then): it tries again until ReconnectGrace has passed.
func (c *Cluster) request(ctx context.Context, msg *nats.Msg) (*nats.Msg, error) {
	giveUp := time.Now().Add(c.opts.ReconnectGrace)
	for {
		rctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
		rep, err := c.nc.RequestMsgWithContext(rctx, msg)
		cancel()
		if !errors.Is(err, nats.ErrNoResponders) || !time.Now().Before(giveUp) {
			return rep, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(noRespondersRetry):
		}
	}
}

// replicaFault reports the failure of a request to replica (op names it):
// no replica listening, or none answering within RequestTimeout, is
// cluster.ErrReplicaUnreachable; anything else is the transport's.
func (c *Cluster) replicaFault(op, replica string, err error) error {
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return fmt.Errorf("%w: %q: no replica listens (it stopped)", cluster.ErrReplicaUnreachable, replica)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return fmt.Errorf("%w: %q: no reply within %v", cluster.ErrReplicaUnreachable, replica, c.opts.RequestTimeout)
	}
	return c.fault(op+" "+replica, err)
}

// noRespondersRetry is how long request waits before it asks again.
const noRespondersRetry = 50 * time.Millisecond

// End implements cluster.Cluster.
func (c *Cluster) End(ctx context.Context, sessionID string) error {
	if !validKey(sessionID) {
		return fmt.Errorf("natscluster: end: invalid session id %q", sessionID)
	}
	c.mine.forget(sessionID) // even when NATS is down: never publish it again
	if err := c.up(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	// Forget it first, so no replica adopts it again after the broadcast.
	if _, err := retryGone(ctx, c.kv, func(kv jetstream.KeyValue) (struct{}, error) { return struct{}{}, kv.Delete(ctx, sessionID) }); err != nil {
		return c.fault("deleting session "+sessionID, err)
	}
	if err := c.nc.Publish(c.endSubj, []byte(sessionID)); err != nil {
		return c.fault("broadcasting the end of session "+sessionID, err)
	}
	if err := c.nc.FlushWithContext(ctx); err != nil {
		return c.fault("broadcasting the end of session "+sessionID, err)
	}
	return nil
}

// Cancel implements cluster.Canceler.
func (c *Cluster) Cancel(ctx context.Context, sessionID, requestKey, reason string) error {
	if !validKey(sessionID) {
		return fmt.Errorf("natscluster: cancel: invalid session id %q", sessionID)
	}
	if err := c.up(ctx); err != nil {
		return err
	}
	msg := nats.NewMsg(c.cancelSubj)
	msg.Header.Set(headerSession, sessionID)
	msg.Header.Set(headerRequest, requestKey)
	msg.Header.Set(headerReplica, c.opts.Replica)
	msg.Data = []byte(reason)
	if err := c.nc.PublishMsg(msg); err != nil {
		return c.fault("broadcasting a cancel in session "+sessionID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	if err := c.nc.FlushWithContext(ctx); err != nil {
		return c.fault("broadcasting a cancel in session "+sessionID, err)
	}
	return nil
}

// onCancel receives a cancel that landed on another replica.
func (c *Cluster) onCancel(m *nats.Msg) {
	if m.Header.Get(headerReplica) == c.opts.Replica {
		return // the sender already looked here
	}
	if b := c.peer.Load(); b != nil {
		b.p.CancelCall(m.Header.Get(headerSession), m.Header.Get(headerRequest), string(m.Data))
	}
}

// onAnswer receives an answer another replica forwards here.
func (c *Cluster) onAnswer(m *nats.Msg) {
	status := replyNotPending
	if b := c.peer.Load(); b != nil {
		if b.p.DeliverAnswer(m.Header.Get(headerSession), m.Data) == nil {
			status = replyOK
		}
	}
	_ = m.Respond([]byte(status)) // a lost reply times the sender out: it answers 502
}

// onEnd receives the end of a session deleted anywhere (here too).
func (c *Cluster) onEnd(m *nats.Msg) {
	c.mine.forget(string(m.Data))
	if b := c.peer.Load(); b != nil {
		b.p.EndSession(string(m.Data))
	}
}

// Claim implements cluster.Claimer: it creates key in the claim
// bucket, which fails for a key that exists (claimed by any replica, and
// not yet expired). Claims live ClaimTTL, whatever expires says.
func (c *Cluster) Claim(ctx context.Context, key string, expires time.Time) (bool, error) {
	if !validKey(key) {
		return false, fmt.Errorf("natscluster: claim key %q is not a key-value key", key)
	}
	if err := c.up(ctx); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	_, err := retryGone(ctx, c.claims, func(kv jetstream.KeyValue) (uint64, error) { return kv.Create(ctx, key, []byte(c.opts.Replica)) })
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyExists):
		return false, nil
	}
	return false, c.fault("claim", err)
}

// up waits for a connection that is reconnecting, until ReconnectGrace has
// passed since this replica first found it down (so a long outage costs each
// operation nothing more once the grace is over) and while ctx lasts, and
// fails at once when it is closed: a request sent meanwhile would only wait
// for its timeout, while the client waits on the HTTP reply.
func (c *Cluster) up(ctx context.Context) error {
	st := c.nc.Status()
	if st == nats.CONNECTED {
		c.downSince.Store(0)
		return nil
	}
	if c.opts.ReconnectGrace > 0 && (st == nats.RECONNECTING || st == nats.CONNECTING) {
		now := time.Now().UnixNano()
		c.downSince.CompareAndSwap(0, now)
		wait := time.Duration(c.downSince.Load() + int64(c.opts.ReconnectGrace) - now)
		if wait <= 0 {
			return fmt.Errorf("%w: nats connection %s for more than %v", cluster.ErrUnavailable, st, c.opts.ReconnectGrace)
		}
		grace := time.NewTimer(wait)
		defer grace.Stop()
		poll := time.NewTicker(upPoll)
		defer poll.Stop()
		for st == nats.RECONNECTING || st == nats.CONNECTING {
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: nats connection is %s: %w", cluster.ErrUnavailable, st, ctx.Err())
			case <-grace.C:
				return fmt.Errorf("%w: nats connection still %s after %v", cluster.ErrUnavailable, st, c.opts.ReconnectGrace)
			case <-poll.C:
			}
			if st = c.nc.Status(); st == nats.CONNECTED {
				c.downSince.Store(0)
				return nil
			}
		}
	}
	return fmt.Errorf("%w: nats connection is %s", cluster.ErrUnavailable, st)
}

// upPoll is how often up looks at a reconnecting connection's status.
const upPoll = 20 * time.Millisecond

// fault wraps a NATS failure of op as cluster.ErrUnavailable.
func (c *Cluster) fault(op string, err error) error {
	return fmt.Errorf("%w: %s: %w", cluster.ErrUnavailable, op, err)
}

// validToken reports whether s can be one NATS subject token of a replica.
func validToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// validKey reports whether s is usable as a key-value key (session ids are
// hex; anything else was never published).
func validKey(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
