package natscluster

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// How a Cluster outlives a restart of NATS (see "NATS restarts" in the
// package doc): its buckets are created again when they are gone, and the
// sessions this replica published are published again.

// bucket is one key-value bucket, created or bound again when NATS lost it.
type bucket struct {
	js  jetstream.JetStream
	cfg jetstream.KeyValueConfig

	kv atomic.Pointer[jetstream.KeyValue] // set by bind

	mu      sync.Mutex // held while binding: one caller binds at a time
	boundAt time.Time
}

func newBucket(js jetstream.JetStream, opts Options, name string, ttl time.Duration) *bucket {
	return &bucket{js: js, cfg: jetstream.KeyValueConfig{
		Bucket: name, History: 1, TTL: ttl, Storage: opts.Storage, Replicas: opts.Replicas,
	}}
}

// handle returns the bucket's current handle.
func (b *bucket) handle() jetstream.KeyValue { return *b.kv.Load() }

// bind creates the bucket, or binds it when it exists, unless it was bound
// after since (by a concurrent caller that met the same fault): one round
// trip to JetStream for a crowd of failing requests, not one each.
func (b *bucket) bind(ctx context.Context, since time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !since.IsZero() && b.boundAt.After(since) {
		return nil
	}
	kv, err := b.js.CreateOrUpdateKeyValue(ctx, b.cfg)
	if err != nil {
		return err
	}
	b.kv.Store(&kv)
	b.boundAt = time.Now()
	return nil
}

// retryGone runs op on b; when op fails because the bucket is gone from
// NATS (a restarted server that kept it in memory), it creates the bucket
// again and runs op once more.
func retryGone[T any](ctx context.Context, b *bucket, op func(jetstream.KeyValue) (T, error)) (T, error) {
	start := time.Now()
	v, err := op(b.handle())
	if err == nil || !bucketGone(err) {
		return v, err
	}
	if berr := b.bind(ctx, start); berr != nil {
		return v, errors.Join(err, berr)
	}
	return op(b.handle())
}

// bucketGone reports an error of a key-value operation whose bucket does
// not exist on the server: a put that no stream answers, a direct get that
// no stream answers, a stream lookup that finds none.
func bucketGone(err error) bool {
	return errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, jetstream.ErrStreamNotFound) ||
		errors.Is(err, jetstream.ErrBucketNotFound) ||
		errors.Is(err, nats.ErrNoResponders)
}

// mySessions is what a replica published of each session, until the
// session's expiry: the directory's entries that this replica wrote, to
// write again after NATS lost them. It holds as many sessions as the
// directory holds of this replica's, and drops expired ones as it grows.
type mySessions struct {
	mu      sync.Mutex
	entries map[string]mySession
	sweepAt int // the size at which expired entries are dropped next
}

type mySession struct {
	raw     []byte // the directory entry (JSON cluster.SessionState)
	expires time.Time
}

// minSweep is the smallest size at which mySessions drops expired entries.
const minSweep = 64

// keep remembers a session's entry, unless it remembers one that expires
// later.
func (m *mySessions) keep(id string, raw []byte, expires time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]mySession{}
	}
	if have, ok := m.entries[id]; ok && have.expires.After(expires) {
		return
	}
	m.entries[id] = mySession{raw: raw, expires: expires}
	if len(m.entries) >= max(m.sweepAt, minSweep) {
		now := time.Now()
		for k, e := range m.entries {
			if !e.expires.After(now) {
				delete(m.entries, k)
			}
		}
		m.sweepAt = 2 * len(m.entries) // amortized O(1) per keep
	}
}

func (m *mySessions) forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, id)
}

// live returns the ids of the sessions that have not expired, dropping the
// others.
func (m *mySessions) live() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	ids := make([]string, 0, len(m.entries))
	for id, e := range m.entries {
		if e.expires.After(now) {
			ids = append(ids, id)
		} else {
			delete(m.entries, id)
		}
	}
	return ids
}

// get returns the latest entry of a live session.
func (m *mySessions) get(id string) (mySession, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[id]
	if !ok || !e.expires.After(time.Now()) {
		return mySession{}, false
	}
	return e, true
}

// watch recovers after every reconnection of the NATS connection, until
// Close.
func (c *Cluster) watch() {
	defer close(c.watchDone)
	for range c.status {
		c.recover()
	}
}

// maxRecoverBackoff caps the wait between two attempts to bind the buckets
// after a reconnection.
const maxRecoverBackoff = 2 * time.Second

// recover binds both buckets again (creating them when the server lost
// them), retrying while the connection stays up, then publishes again every
// session this replica published that has not expired.
func (c *Cluster) recover() {
	wait := 50 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(c.stopCtx, c.opts.RequestTimeout)
		err := errors.Join(c.kv.bind(ctx, time.Time{}), c.claims.bind(ctx, time.Time{}))
		cancel()
		if err == nil {
			break
		}
		if c.stopCtx.Err() != nil || !c.nc.IsConnected() {
			return // closed, or down again: the next reconnection recovers
		}
		c.log.Warn("natscluster: buckets not bound after reconnecting; retrying", "replica", c.opts.Replica, "wait", wait, "err", err)
		select {
		case <-c.stopCtx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, maxRecoverBackoff)
	}
	ids := c.mine.live()
	written := 0
	for _, id := range ids {
		e, ok := c.mine.get(id) // the latest, if it was refreshed meanwhile
		if !ok {
			continue
		}
		ctx, cancel := context.WithTimeout(c.stopCtx, c.opts.RequestTimeout)
		wrote, err := c.restore(ctx, id, e)
		cancel()
		if err != nil {
			c.log.Warn("natscluster: sessions not published again after reconnecting", "replica", c.opts.Replica, "written", written, "of", len(ids), "err", err)
			return
		}
		if wrote {
			written++
		}
	}
	c.log.Info("natscluster: reconnected: buckets bound, sessions published again", "replica", c.opts.Replica, "remembered", len(ids), "written", written)
}

// restore writes a remembered entry back unless the directory has one that
// expires as late or later (written by another replica, or kept on file):
// a stale copy never replaces a fresher one, and a directory NATS kept
// costs a read per session, not a write.
func (c *Cluster) restore(ctx context.Context, id string, e mySession) (bool, error) {
	kv := c.kv.handle()
	_, err := kv.Create(ctx, id, e.raw)
	if !errors.Is(err, jetstream.ErrKeyExists) {
		return err == nil, err
	}
	have, err := kv.Get(ctx, id)
	if err != nil {
		return false, err
	}
	var st struct {
		ExpiresAt time.Time `json:"expiresAt"`
	}
	if json.Unmarshal(have.Value(), &st) == nil && !st.ExpiresAt.Before(e.expires) {
		return false, nil
	}
	_, err = kv.Update(ctx, id, e.raw, have.Revision())
	if errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil // rewritten meanwhile, by a replica that just used it
	}
	return err == nil, err
}
