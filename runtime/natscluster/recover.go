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
// directory entries this replica wrote or read are written back.

// bucket is one key-value bucket, created or bound again when NATS lost it.
type bucket struct {
	js  jetstream.JetStream
	cfg jetstream.KeyValueConfig
	// onBound, when set, learns the creation time of the bucket's stream
	// after each bind: a new one means the bucket was created again.
	onBound func(created time.Time)

	kv atomic.Pointer[jetstream.KeyValue] // set by bind

	mu      sync.Mutex // held while binding: one caller binds at a time
	boundAt time.Time
	created time.Time // of the stream bound last
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
	if st, err := kv.Status(ctx); err == nil {
		if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok && bs.StreamInfo() != nil {
			b.created = bs.StreamInfo().Created
		}
	}
	if b.onBound != nil {
		b.onBound(b.created)
	}
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

// mySessions is the directory entries a replica wrote or read, each until
// its session's expiry, to write back into a directory NATS lost (and
// those it could not write while NATS was down). It holds at most what the
// directory holds, and drops expired entries as it grows.
type mySessions struct {
	mu      sync.Mutex
	entries map[string]mySession
	seq     uint64
	sweepAt int // the size at which expired entries are dropped next
}

type mySession struct {
	raw     []byte // the directory entry (JSON cluster.SessionState)
	expires time.Time
	seq     uint64 // which keep this is
	written bool   // the directory has it (as far as this replica knows)
}

// minSweep is the smallest size at which mySessions drops expired entries.
const minSweep = 64

// keep remembers a session's entry, unless it remembers one that expires
// later, and returns its sequence number for wrote.
func (m *mySessions) keep(id string, raw []byte, expires time.Time, written bool) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil {
		m.entries = map[string]mySession{}
	}
	if have, ok := m.entries[id]; ok && have.expires.After(expires) {
		return 0
	}
	m.seq++
	m.entries[id] = mySession{raw: raw, expires: expires, seq: m.seq, written: written}
	if len(m.entries) >= max(m.sweepAt, minSweep) {
		now := time.Now()
		for k, e := range m.entries {
			if !e.expires.After(now) {
				delete(m.entries, k)
			}
		}
		m.sweepAt = 2 * len(m.entries) // amortized O(1) per keep
	}
	return m.seq
}

// wrote records that the entry kept as seq is in the directory.
func (m *mySessions) wrote(id string, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[id]; ok && e.seq == seq {
		e.written = true
		m.entries[id] = e
	}
}

func (m *mySessions) forget(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, id)
}

// toWrite returns the ids of the sessions that have not expired (all, or
// only those not written), dropping the expired ones.
func (m *mySessions) toWrite(all bool) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	ids := make([]string, 0, len(m.entries))
	for id, e := range m.entries {
		switch {
		case !e.expires.After(now):
			delete(m.entries, id)
		case all || !e.written:
			ids = append(ids, id)
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

// bound learns that the directory's stream was bound: when it is another
// stream than the one every remembered entry was written to (NATS lost
// the bucket and it was created again, here or by another replica),
// the watcher writes them all back.
func (c *Cluster) bound(created time.Time) {
	c.syncMu.Lock()
	lost := !created.Equal(c.syncedTo)
	c.syncMu.Unlock()
	if lost {
		select {
		case c.resync <- struct{}{}:
		default: // one is pending
		}
	}
}

// watch recovers after every reconnection of the NATS connection, and
// after the directory was found gone, until Close.
func (c *Cluster) watch() {
	defer close(c.watchDone)
	for {
		select {
		case _, ok := <-c.status:
			if !ok {
				return
			}
		case <-c.resync:
		case <-c.stopCtx.Done():
			return
		}
		c.recover()
	}
}

// maxRecoverBackoff caps the wait between two attempts to bind the buckets
// after a reconnection.
const maxRecoverBackoff = 2 * time.Second

// recover binds both buckets again (creating them when the server lost
// them), retrying while the connection stays up, then writes back the
// entries the directory lacks: all of them when its stream is not the one
// they were written to, else those that could not be written.
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
	c.kv.mu.Lock()
	created := c.kv.created
	c.kv.mu.Unlock()
	c.syncMu.Lock()
	all := !created.Equal(c.syncedTo)
	c.syncMu.Unlock()
	ids := c.mine.toWrite(all)
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
			c.log.Warn("natscluster: sessions not written back after reconnecting", "replica", c.opts.Replica, "written", written, "of", len(ids), "err", err)
			// Tried again after a pause, while the connection stays up
			// (and by the next reconnection or loss in any case).
			time.AfterFunc(maxRecoverBackoff, func() {
				select {
				case c.resync <- struct{}{}:
				default: // one is pending
				}
			})
			return
		}
		c.mine.wrote(id, e.seq)
		if wrote {
			written++
		}
	}
	if all {
		c.syncMu.Lock()
		c.syncedTo = created
		c.syncMu.Unlock()
	}
	c.log.Info("natscluster: buckets bound, sessions written back", "replica", c.opts.Replica, "bucket_recreated", all, "checked", len(ids), "written", written)
}

// restore writes a remembered entry back unless the directory has one that
// expires as late or later (written by another replica, or kept on file):
// a stale copy never replaces a fresher one.
//
// A key whose last operation was a delete is not written: the session
// ended (a DELETE on another replica, while this one could not hear of it).
func (c *Cluster) restore(ctx context.Context, id string, e mySession) (bool, error) {
	kv := c.kv.handle()
	if h, err := kv.History(ctx, id); err == nil && len(h) > 0 && h[len(h)-1].Operation() != jetstream.KeyValuePut {
		c.mine.forget(id)
		return false, nil
	}
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
