package natscluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime"
)

// Tasks (runtime.TaskStore): the cluster keeps them in the JetStream
// key-value bucket TaskBucket, so that every replica answers tasks/get,
// tasks/update and tasks/cancel, and a task waiting for a person outlives
// the replica that started it.
//
//	t.ID       the task, JSON
//	o.HASH     the ids of an owner's tasks and when each expires, JSON;
//	           HASH is the SHA-256 of the owner, in hex (a key holds only
//	           some characters; an owner is any subject)
//
// Every write is compare-and-set on the entry's revision: two replicas
// that change one task at once both succeed, one after the other, and
// the owner's count is exact. The bucket's TTL, Options.TaskTTL, removes
// an entry that long after its last write, never before its task
// expires: a task lives Options.Tasks.TTL of the runtime from its
// creation, so TaskTTL must be at least that (Create refuses a task that
// would outlive its entry).

// casAttempts bounds the retries of a compare-and-set that loses to
// concurrent writers.
const casAttempts = 16

// TaskStore returns the cluster's task store, for
// runtime.Options.Tasks.Store. Its bucket is created (or bound) on first
// use.
func (c *Cluster) TaskStore() runtime.TaskStore { return (*taskStore)(c) }

type taskStore Cluster

var _ runtime.TaskStore = (*taskStore)(nil)

// bucket returns the task bucket, bound once.
func (s *taskStore) bucket(ctx context.Context) (*bucket, error) {
	c := (*Cluster)(s)
	if c == nil || c.tasks == nil {
		return nil, errors.New("natscluster: TaskStore of a Cluster not made by New")
	}
	if c.tasks.kv.Load() == nil {
		if err := c.tasks.bind(ctx, time.Time{}); err != nil {
			return nil, fmt.Errorf("natscluster: task bucket %q: %w", c.opts.TaskBucket, err)
		}
	}
	return c.tasks, nil
}

func taskKey(id string) string { return "t." + id }

func ownerIndexKey(owner string) string {
	h := sha256.Sum256([]byte(owner))
	return "o." + hex.EncodeToString(h[:])
}

// ownedTask is one entry of an owner's index.
type ownedTask struct {
	ID      string    `json:"id"`
	Expires time.Time `json:"expires"`
}

// Create adds t and counts it against its owner; see runtime.TaskStore.
func (s *taskStore) Create(ctx context.Context, t *runtime.Task, maxPerOwner int) error {
	if t == nil || !validTaskID(t.ID) {
		return errors.New("natscluster: Create needs a task with an ID of letters, digits, '_' or '-'")
	}
	b, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	if ttl := (*Cluster)(s).opts.TaskTTL; time.Until(t.ExpiresAt) > ttl {
		return fmt.Errorf("natscluster: task %q expires in %v, later than the task bucket keeps it (Options.TaskTTL %v): set TaskTTL to at least the runtime's Options.Tasks.TTL", t.ID, time.Until(t.ExpiresAt).Round(time.Second), ttl)
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("natscluster: encoding task %q: %w", t.ID, err)
	}
	// The owner's index first: a task counted but not stored (Create
	// failing after) costs a slot until it expires, never the reverse.
	if err := s.reserve(ctx, b, t, maxPerOwner); err != nil {
		return err
	}
	if _, err := retryGone(ctx, b, func(kv jetstream.KeyValue) (uint64, error) { return kv.Create(ctx, taskKey(t.ID), raw) }); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("natscluster: task %q exists", t.ID)
		}
		return (*Cluster)(s).fault("storing task "+t.ID, err)
	}
	return nil
}

// reserve adds t to its owner's index, dropping the expired entries, or
// returns runtime.ErrTaskLimit.
func (s *taskStore) reserve(ctx context.Context, b *bucket, t *runtime.Task, maxPerOwner int) error {
	key := ownerIndexKey(t.Owner)
	for attempt := range casAttempts {
		if err := casBackoff(ctx, attempt); err != nil {
			return err
		}
		e, err := retryGone(ctx, b, func(kv jetstream.KeyValue) (jetstream.KeyValueEntry, error) { return kv.Get(ctx, key) })
		var list []ownedTask
		var rev uint64
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		case err != nil:
			return (*Cluster)(s).fault("reading the tasks of an owner", err)
		default:
			rev = e.Revision()
			if err := json.Unmarshal(e.Value(), &list); err != nil {
				return fmt.Errorf("natscluster: the task index %s does not decode: %w", key, err)
			}
		}
		now := time.Now()
		list = slices.DeleteFunc(list, func(o ownedTask) bool { return !now.Before(o.Expires) })
		if maxPerOwner > 0 && len(list) >= maxPerOwner {
			return runtime.ErrTaskLimit
		}
		list = append(list, ownedTask{ID: t.ID, Expires: t.ExpiresAt})
		raw, err := json.Marshal(list)
		if err != nil {
			return err
		}
		_, err = retryGone(ctx, b, func(kv jetstream.KeyValue) (uint64, error) {
			if rev == 0 {
				return kv.Create(ctx, key, raw)
			}
			return kv.Update(ctx, key, raw, rev)
		})
		switch {
		case err == nil:
			return nil
		case casLost(err):
			continue // another replica wrote the index meanwhile: count again
		default:
			return (*Cluster)(s).fault("writing the tasks of an owner", err)
		}
	}
	return fmt.Errorf("natscluster: the tasks of an owner changed %d times while counting them: try again", casAttempts)
}

// Get returns the task; see runtime.TaskStore.
func (s *taskStore) Get(ctx context.Context, id string) (*runtime.Task, error) {
	t, _, err := s.get(ctx, id)
	return t, err
}

func (s *taskStore) get(ctx context.Context, id string) (*runtime.Task, uint64, error) {
	if !validTaskID(id) {
		return nil, 0, runtime.ErrTaskNotFound
	}
	b, err := s.bucket(ctx)
	if err != nil {
		return nil, 0, err
	}
	e, err := retryGone(ctx, b, func(kv jetstream.KeyValue) (jetstream.KeyValueEntry, error) { return kv.Get(ctx, taskKey(id)) })
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return nil, 0, runtime.ErrTaskNotFound
	case err != nil:
		return nil, 0, (*Cluster)(s).fault("reading task "+id, err)
	}
	t := new(runtime.Task)
	if err := json.Unmarshal(e.Value(), t); err != nil {
		return nil, 0, fmt.Errorf("natscluster: stored task %q does not decode: %w", id, err)
	}
	if !time.Now().Before(t.ExpiresAt) {
		return nil, 0, runtime.ErrTaskNotFound // the bucket's TTL removes it
	}
	return t, e.Revision(), nil
}

// Update changes the task by compare-and-set; see runtime.TaskStore. When
// another replica wrote the task between the read and the write, change
// runs again on what it wrote.
func (s *taskStore) Update(ctx context.Context, id string, change func(*runtime.Task) error) (*runtime.Task, error) {
	if change == nil {
		return nil, errors.New("natscluster: Update needs a change")
	}
	for attempt := range casAttempts {
		if err := casBackoff(ctx, attempt); err != nil {
			return nil, err
		}
		t, rev, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := change(t); err != nil {
			return nil, err
		}
		if t.ID != id {
			return nil, fmt.Errorf("natscluster: a change may not alter the ID of task %q", id)
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("natscluster: encoding task %q: %w", id, err)
		}
		b := (*Cluster)(s).tasks
		_, err = retryGone(ctx, b, func(kv jetstream.KeyValue) (uint64, error) { return kv.Update(ctx, taskKey(id), raw, rev) })
		switch {
		case err == nil:
			return t, nil
		case casLost(err):
			continue
		default:
			return nil, (*Cluster)(s).fault("writing task "+id, err)
		}
	}
	return nil, fmt.Errorf("natscluster: task %q changed %d times while updating it: try again", id, casAttempts)
}

// casBackoff waits before the attempt-th try of a compare-and-set (none
// before the first): a random while, growing with the attempts, so that
// writers that collided do not collide again in step.
func casBackoff(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(rand.Int64N(int64(attempt)*int64(time.Millisecond)) + 1))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// casLost reports a compare-and-set that another writer won.
func casLost(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// validTaskID: ids go into keys, which hold only some characters (the
// runtime's are hex).
func validTaskID(id string) bool { return validToken(id) }
