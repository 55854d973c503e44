// Package taskstore is the embedded runtime.TaskStore: tasks kept in one
// file on local disk, so that a server restarted on the same file still
// has them (a task waiting for a person survives its process).
//
//	store, err := taskstore.Open("/var/lib/mytool/tasks.db")
//	if err != nil { ... }
//	defer store.Close()
//	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store}})
//
// The file is a bbolt database (go.etcd.io/bbolt): pure Go, one file,
// ACID transactions with a fsync on every commit, the store etcd keeps its
// data in, and actively maintained. Each write returns once its
// transaction is committed, so a task a tools/call answered with has
// reached the disk, and a process killed at any point leaves the file at
// its last commit. Writes that wait at the same time share one
// transaction, and so one fsync: one committer goroutine runs them, a
// write alone at once, the writes that came during a commit together in
// the next (a write that fails is run again alone, and does not undo the
// others). bbolt
// locks the file: one process at a time opens it (Open waits a second for
// a killed process's lock to go, then fails saying so); replicas that
// share tasks use natscluster's Cluster.TaskStore (JetStream) instead.
//
// Expired tasks are not returned; Open deletes them, and Create deletes
// those of the owner it counts. The stored fields are kept as the runtime
// gives them, answers included, in the clear: the file is as private as
// the server's own memory should be (mode 0600).
package taskstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-elicit/elicit/runtime"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Store is the embedded task store. Make it with Open; a Store made
// otherwise (nil, or its zero value) stores nothing: every method returns
// an error that says to call Open.
type Store struct {
	db *bolt.DB

	// Writes go through one committer goroutine (commits), which runs
	// the writes waiting when it is free in one transaction: concurrent
	// writers share a commit and its fsync, and a lone one waits for no
	// one. mu (read) is held while a write is handed over; Close takes it
	// (write) to stop them.
	mu      sync.RWMutex
	closed  bool
	writes  chan *write
	stopped chan struct{} // closed when the committer has returned
}

// write is one write waiting for the committer: fn runs in a writable
// transaction (maybe more than once, when a transaction it shared is
// rolled back for another write's error), and done gets how its commit
// went.
type write struct {
	fn   func(*bolt.Tx) error
	done chan error
}

// maxBatch caps the writes of one transaction.
const maxBatch = 256

var _ runtime.TaskStore = (*Store)(nil)

var (
	tasksBucket  = []byte("tasks")  // id → the task, JSON
	ownersBucket = []byte("owners") // owner, NUL, id → nothing: the owner's tasks
)

var errNotOpen = errors.New("taskstore: the Store is not open: make it with taskstore.Open")

// lockWait is how long Open waits for another process's lock on the file.
const lockWait = time.Second

// Open opens the store in the file at path, creating it (mode 0600) when
// there is none, and deletes the tasks that have expired.
func Open(path string) (*Store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("taskstore: %s is in use by another process (bbolt locks its file)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("taskstore: opening %s: %w", path, err)
	}
	s := &Store{db: db}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{tasksBucket, ownersBucket} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		now := time.Now()
		var expired []*runtime.Task
		err := tx.Bucket(tasksBucket).ForEach(func(_, v []byte) error {
			if t, err := decode(v); err != nil || !now.Before(t.ExpiresAt) {
				if t != nil {
					expired = append(expired, t)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, t := range expired {
			if err := remove(tx, t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("taskstore: preparing %s: %w", path, err)
	}
	s.writes, s.stopped = make(chan *write, maxBatch), make(chan struct{})
	go s.commits()
	return s, nil
}

// errClosed is what a closed Store's methods return.
var errClosed = errors.New("taskstore: the Store is closed")

// update runs fn in a writable transaction, with the other writes that
// wait at the same time, and returns fn's error or the commit's.
func (s *Store) update(fn func(*bolt.Tx) error) error {
	w := &write{fn: fn, done: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errClosed
	}
	s.writes <- w
	s.mu.RUnlock()
	err := <-w.done
	if p, ok := err.(panicked); ok {
		panic(p.v)
	}
	return err
}

// commits is the committer: it takes a write, and every other one that
// is waiting, and runs them in one transaction, until Close.
func (s *Store) commits() {
	defer close(s.stopped)
	batch := make([]*write, 0, maxBatch)
	for w := range s.writes {
		batch = append(batch[:0], w)
	more:
		for len(batch) < maxBatch {
			select {
			case w, ok := <-s.writes:
				if !ok {
					break more // closed: these are the last
				}
				batch = append(batch, w)
			default:
				break more
			}
		}
		s.commit(batch)
	}
}

// commit runs the writes in one transaction. A write whose fn fails rolls
// the transaction back: it runs again alone, for its own error (a panic
// is not run again: it goes back to its writer), and the others run
// together again without it.
func (s *Store) commit(batch []*write) {
	for len(batch) > 0 {
		failed, ferr := -1, error(nil)
		err := s.db.Update(func(tx *bolt.Tx) error {
			for i, w := range batch {
				if err := w.call(tx); err != nil {
					failed, ferr = i, err
					return err
				}
			}
			return nil
		})
		if failed < 0 || len(batch) == 1 {
			for _, w := range batch {
				w.done <- err
			}
			return
		}
		w := batch[failed]
		if _, ok := ferr.(panicked); ok {
			w.done <- ferr
		} else {
			w.done <- s.db.Update(w.call)
		}
		batch = slices.Delete(batch, failed, failed+1)
	}
}

// call runs w's fn, its panic returned as a panicked error.
func (w *write) call(tx *bolt.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicked{v}
		}
	}()
	return w.fn(tx)
}

// panicked is a write's panic, which update raises again in its writer.
type panicked struct{ v any }

func (p panicked) Error() string { return fmt.Sprintf("taskstore: a write panicked: %v", p.v) }

// Close closes the file. A closed Store's methods return an error.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return errNotOpen
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	s.closed = true
	close(s.writes) // the committer commits what was handed over, then returns
	s.mu.Unlock()
	<-s.stopped
	return s.db.Close()
}

func (s *Store) open() error {
	if s == nil || s.db == nil {
		return errNotOpen
	}
	return nil
}

// Create adds t; see runtime.TaskStore.
func (s *Store) Create(ctx context.Context, t *runtime.Task, maxPerOwner int) error {
	if err := s.open(); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return errors.New("taskstore: Create needs a task with an ID")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("taskstore: encoding task %q: %w", t.ID, err)
	}
	return s.update(func(tx *bolt.Tx) error {
		tasks := tx.Bucket(tasksBucket)
		if tasks.Get([]byte(t.ID)) != nil {
			return fmt.Errorf("taskstore: task %q exists", t.ID)
		}
		if maxPerOwner > 0 {
			n, err := countOwner(tx, t.Owner, maxPerOwner, time.Now())
			if err != nil {
				return err
			}
			if n >= maxPerOwner {
				return runtime.ErrTaskLimit
			}
		}
		if err := tasks.Put([]byte(t.ID), raw); err != nil {
			return err
		}
		return tx.Bucket(ownersBucket).Put(ownerKey(t.Owner, t.ID), expiryValue(t.ExpiresAt))
	})
}

// Get returns the task; see runtime.TaskStore.
func (s *Store) Get(ctx context.Context, id string) (*runtime.Task, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var t *runtime.Task
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		t, err = live(tx, id, time.Now())
		return err
	})
	return t, err
}

// Update changes the task in one transaction; see runtime.TaskStore.
func (s *Store) Update(ctx context.Context, id string, change func(*runtime.Task) error) (*runtime.Task, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	if change == nil {
		return nil, errors.New("taskstore: Update needs a change")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var t *runtime.Task
	err := s.update(func(tx *bolt.Tx) error {
		var err error
		if t, err = live(tx, id, time.Now()); err != nil {
			return err
		}
		expires, owner := t.ExpiresAt, t.Owner // what the owners index holds
		if err := change(t); err != nil {
			return err
		}
		if t.ID != id {
			return fmt.Errorf("taskstore: a change may not alter the ID of task %q", id)
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("taskstore: encoding task %q: %w", id, err)
		}
		if !t.ExpiresAt.Equal(expires) || t.Owner != owner {
			if err := tx.Bucket(ownersBucket).Delete(ownerKey(owner, id)); err != nil {
				return err
			}
			if err := tx.Bucket(ownersBucket).Put(ownerKey(t.Owner, id), expiryValue(t.ExpiresAt)); err != nil {
				return err
			}
		}
		return tx.Bucket(tasksBucket).Put([]byte(id), raw)
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// live reads the task with the ID: ErrTaskNotFound when there is none or
// it expired before now.
func live(tx *bolt.Tx, id string, now time.Time) (*runtime.Task, error) {
	v := tx.Bucket(tasksBucket).Get([]byte(id))
	if v == nil {
		return nil, runtime.ErrTaskNotFound
	}
	t, err := decode(v)
	if err != nil {
		return nil, err
	}
	if !now.Before(t.ExpiresAt) {
		return nil, runtime.ErrTaskNotFound
	}
	return t, nil
}

// countOwner counts the owner's live tasks, up to limit, from the owners
// index alone (each entry holds its task's expiry), and deletes the
// expired ones it meets (tx is writable): a Create costs what the limit
// allows, not a decoding of every task the owner has. An entry written
// before the index held expiries is read from its task.
func countOwner(tx *bolt.Tx, owner string, limit int, now time.Time) (int, error) {
	prefix := ownerKey(owner, "")
	var (
		n       int
		expired []*runtime.Task
	)
	c := tx.Bucket(ownersBucket).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && n < limit; k, v = c.Next() {
		exp, ok := expiryOf(v)
		if !ok {
			t, err := live(tx, string(k[len(prefix):]), now)
			switch {
			case errors.Is(err, runtime.ErrTaskNotFound):
				exp = now // gone or expired
			case err != nil:
				return 0, err
			default:
				exp = t.ExpiresAt
			}
		}
		if now.Before(exp) {
			n++
			continue
		}
		expired = append(expired, &runtime.Task{ID: string(k[len(prefix):]), Owner: owner})
	}
	for _, t := range expired {
		if err := remove(tx, t); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// expiryValue is an owners index entry's value: its task's ExpiresAt, in
// Unix nanoseconds, big-endian.
func expiryValue(t time.Time) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())) }

// expiryOf reads expiryValue's bytes; false for an entry without them.
func expiryOf(v []byte) (time.Time, bool) {
	if len(v) != 8 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))), true
}

func remove(tx *bolt.Tx, t *runtime.Task) error {
	if err := tx.Bucket(tasksBucket).Delete([]byte(t.ID)); err != nil {
		return err
	}
	return tx.Bucket(ownersBucket).Delete(ownerKey(t.Owner, t.ID))
}

// ownerKey is the index key of the owner's task id. Owners are subjects,
// which hold no NUL; ids are hex.
func ownerKey(owner, id string) []byte {
	k := make([]byte, 0, len(owner)+1+len(id))
	k = append(k, owner...)
	k = append(k, 0)
	return append(k, id...)
}

func decode(v []byte) (*runtime.Task, error) {
	t := new(runtime.Task)
	if err := json.Unmarshal(v, t); err != nil {
		return nil, fmt.Errorf("taskstore: a stored task does not decode: %w", err)
	}
	return t, nil
}
