package taskstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
	bolt "go.etcd.io/bbolt"
)

func openStore(t *testing.T, path string) *taskstore.Store {
	t.Helper()
	s, err := taskstore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTask(id, owner string, ttl time.Duration) *runtime.Task {
	now := time.Now().UTC()
	return &runtime.Task{ID: id, Owner: owner, Status: runtime.TaskWorking, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(ttl), Request: json.RawMessage(`{"tool":"t"}`)}
}

// TestStoreKeepsTasksAcrossOpen: what a Store wrote is there, field for
// field, after it is closed and the file opened again; IDs are unique.
func TestStoreKeepsTasksAcrossOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	s := openStore(t, path)
	task := newTask("a1", "alice", time.Hour)
	task.State = []byte{4, 0, 1, 2}
	task.InputRequests = json.RawMessage(`{"elicit":{"method":"elicitation/create","params":{}}}`)
	if err := s.Create(ctx, task, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, newTask("a1", "alice", time.Hour), 10); err == nil {
		t.Error("a second task with the same ID was created")
	}
	if _, err := s.Update(ctx, "a1", func(t *runtime.Task) error {
		t.Status, t.InputResponses = runtime.TaskInputRequired, json.RawMessage(`{"elicit":{"action":"decline"}}`)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path)
	defer s.Close()
	got, err := s.Get(ctx, "a1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != "alice" || got.Status != runtime.TaskInputRequired || string(got.State) != string(task.State) ||
		string(got.InputRequests) != string(task.InputRequests) || string(got.InputResponses) != `{"elicit":{"action":"decline"}}` ||
		!got.ExpiresAt.Equal(task.ExpiresAt) {
		t.Fatalf("reopened task %+v, want %+v with the update", got, task)
	}
}

// TestStoreBoundsAndExpiry: Create counts only the owner's live tasks
// against the limit (expired ones are deleted on the way), expired tasks
// are not found, and a failed change changes nothing.
func TestStoreBoundsAndExpiry(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	defer s.Close()
	if err := s.Create(ctx, newTask("e1", "alice", time.Millisecond), 2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond) // e1 has expired: two Creates can take less than its millisecond
	for _, id := range []string{"l1", "l2"} {
		if err := s.Create(ctx, newTask(id, "alice", time.Hour), 2); err != nil {
			t.Fatalf("Create %s beside an expired task: %v", id, err)
		}
	}
	if err := s.Create(ctx, newTask("l3", "alice", time.Hour), 2); !errors.Is(err, runtime.ErrTaskLimit) {
		t.Fatalf("a third live task of alice: %v, want ErrTaskLimit", err)
	}
	if err := s.Create(ctx, newTask("b1", "bob", time.Hour), 2); err != nil {
		t.Fatalf("another owner's task: %v", err)
	}
	if _, err := s.Get(ctx, "e1"); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("an expired task: %v, want ErrTaskNotFound", err)
	}
	if _, err := s.Update(ctx, "e1", func(*runtime.Task) error { return nil }); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Fatalf("Update of an expired task: %v", err)
	}
	boom := errors.New("boom")
	if _, err := s.Update(ctx, "l1", func(t *runtime.Task) error { t.Status = runtime.TaskFailed; return boom }); !errors.Is(err, boom) {
		t.Fatalf("a failing change: %v", err)
	}
	if got, _ := s.Get(ctx, "l1"); got.Status != runtime.TaskWorking {
		t.Fatalf("a failed change was stored: %s", got.Status)
	}
	if _, err := s.Update(ctx, "l1", func(t *runtime.Task) error { t.ID = "other"; return nil }); err == nil {
		t.Fatal("a change of the ID was stored")
	}
	if _, err := s.Get(ctx, "l2"); err != nil {
		t.Fatalf("l2: %v", err)
	}
}

// TestStoreZeroAndMisuse: a Store not made by Open, a closed one and bad
// arguments give errors, never a panic; a file another Store holds is
// refused, saying so.
func TestStoreZeroAndMisuse(t *testing.T) {
	ctx := context.Background()
	for name, s := range map[string]*taskstore.Store{"nil": nil, "zero": {}} {
		if err := s.Create(ctx, newTask("x", "", time.Hour), 1); err == nil || !strings.Contains(err.Error(), "taskstore.Open") {
			t.Errorf("%s Store: Create: %v", name, err)
		}
		if _, err := s.Get(ctx, "x"); err == nil {
			t.Errorf("%s Store: Get succeeded", name)
		}
		if _, err := s.Update(ctx, "x", func(*runtime.Task) error { return nil }); err == nil {
			t.Errorf("%s Store: Update succeeded", name)
		}
		if err := s.Close(); err == nil {
			t.Errorf("%s Store: Close succeeded", name)
		}
	}
	path := filepath.Join(t.TempDir(), "tasks.db")
	s := openStore(t, path)
	if _, err := taskstore.Open(path); err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Errorf("a second Open of a held file: %v", err)
	}
	if err := s.Create(ctx, nil, 1); err == nil {
		t.Error("Create(nil) succeeded")
	}
	if err := s.Create(ctx, &runtime.Task{}, 1); err == nil {
		t.Error("Create of a task with no ID succeeded")
	}
	if _, err := s.Update(ctx, "x", nil); err == nil {
		t.Error("Update with a nil change succeeded")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Get(canceled, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get on a canceled context: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "x"); err == nil {
		t.Error("Get on a closed Store succeeded")
	}
	if _, err := taskstore.Open(filepath.Join(t.TempDir(), "no", "such", "dir", "tasks.db")); err == nil {
		t.Error("Open in a directory that does not exist succeeded")
	}
}

// TestCreateCostsTheLimit: Create counts the owner's tasks from the index
// alone, so what it allocates does not grow with the tasks the owner has
// (it decoded every one of them: n creates cost n² decodings).
func TestCreateCostsTheLimit(t *testing.T) {
	ctx := context.Background()
	allocs := func(live int) float64 {
		s := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
		defer s.Close()
		for i := range live {
			if err := s.Create(ctx, newTask(fmt.Sprintf("live%d", i), "alice", time.Hour), 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		n := 0
		return testing.AllocsPerRun(20, func() {
			n++
			if err := s.Create(ctx, newTask(fmt.Sprintf("new%d", n), "alice", time.Hour), 1<<20); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(4), allocs(400)
	if many > 1.5*few {
		t.Errorf("a Create beside 400 live tasks of its owner allocates %.0f times, beside 4 %.0f: it grows with the owner's tasks", many, few)
	}
}

// TestCreateReadsOldIndexEntries: an owners index entry written before
// entries held their task's expiry (no value) is counted from its task,
// and deleted with it once the task has expired.
func TestCreateReadsOldIndexEntries(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tasks.db")
	s := openStore(t, path)
	expiring := newTask("old-expiring", "alice", 2*time.Second)
	for _, task := range []*runtime.Task{newTask("old-live", "alice", time.Hour), expiring} {
		if err := s.Create(ctx, task, 10); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	db, err := bolt.Open(path, 0o600, nil) // the entries as the older build wrote them: no value
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, id := range []string{"old-live", "old-expiring"} {
			if err := tx.Bucket([]byte("owners")).Put(append([]byte("alice\x00"), id...), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path)
	defer s.Close()
	if err := s.Create(ctx, newTask("new", "alice", time.Hour), 2); !errors.Is(err, runtime.ErrTaskLimit) {
		t.Fatalf("a third task beside two old entries: %v, want ErrTaskLimit", err)
	}
	time.Sleep(time.Until(expiring.ExpiresAt) + 10*time.Millisecond)
	if err := s.Create(ctx, newTask("new", "alice", time.Hour), 2); err != nil {
		t.Fatalf("a second task once an old entry's task expired: %v", err)
	}
	if err := s.Create(ctx, newTask("newer", "alice", time.Hour), 2); !errors.Is(err, runtime.ErrTaskLimit) {
		t.Fatalf("a third live task: %v, want ErrTaskLimit", err)
	}
}

// TestConcurrentWrites: writes from many goroutines at once share
// transactions; each gets its own outcome: the creates within the limit
// are stored, the ones past it get ErrTaskLimit, an update of a task that
// does not exist gets ErrTaskNotFound, a failing change its error, and
// none of these failures undoes another's write.
func TestConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	defer s.Close()
	const n, limit = 64, 40
	boom := errors.New("boom")
	errs := make([]error, 3*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = s.Create(ctx, newTask(fmt.Sprintf("c%d", i), "alice", time.Hour), limit) })
		wg.Go(func() {
			_, errs[n+i] = s.Update(ctx, fmt.Sprintf("none%d", i), func(*runtime.Task) error { return nil })
		})
		wg.Go(func() {
			_, errs[2*n+i] = s.Update(ctx, fmt.Sprintf("c%d", i), func(*runtime.Task) error { return boom })
		})
	}
	wg.Wait()
	created, limited := 0, 0
	for i, err := range errs[:n] {
		switch {
		case err == nil:
			created++
			if _, err := s.Get(ctx, fmt.Sprintf("c%d", i)); err != nil {
				t.Errorf("created task c%d: %v", i, err)
			}
		case errors.Is(err, runtime.ErrTaskLimit):
			limited++
		default:
			t.Errorf("Create c%d: %v", i, err)
		}
	}
	if created != limit || limited != n-limit {
		t.Errorf("%d created, %d refused for the limit; want %d and %d", created, limited, limit, n-limit)
	}
	for i, err := range errs[n : 2*n] {
		if !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("Update of none%d: %v, want ErrTaskNotFound", i, err)
		}
	}
	for i, err := range errs[2*n:] {
		if !errors.Is(err, boom) && !errors.Is(err, runtime.ErrTaskNotFound) { // c%d may not exist yet, or ever
			t.Errorf("a failing change of c%d: %v", i, err)
		}
	}
}

// TestPanickingChange: a change that panics panics in its caller, as it
// would in the caller's own transaction, and the Store goes on.
func TestPanickingChange(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	defer s.Close()
	if err := s.Create(ctx, newTask("a", "alice", time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if v := recover(); v != "a bug" {
				t.Errorf("the change's panic reached its caller as %v", v)
			}
		}()
		_, _ = s.Update(ctx, "a", func(*runtime.Task) error { panic("a bug") })
		t.Error("Update returned past a panicking change")
	}()
	if _, err := s.Update(ctx, "a", func(t *runtime.Task) error { t.Status = runtime.TaskCompleted; return nil }); err != nil {
		t.Fatalf("an Update after the panic: %v", err)
	}
	if got, err := s.Get(ctx, "a"); err != nil || got.Status != runtime.TaskCompleted {
		t.Fatalf("after the panic: %+v, %v", got, err)
	}
}

// TestCloseWithWritesInFlight: writes racing Close either are stored or
// say the Store is closed; none hangs or panics, and Close returns.
func TestCloseWithWritesInFlight(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			if err := s.Create(ctx, newTask(fmt.Sprintf("t%d", i), "alice", time.Hour), 100); err != nil && !strings.Contains(err.Error(), "closed") {
				t.Errorf("Create t%d racing Close: %v", i, err)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := s.Close(); err == nil {
		t.Error("a second Close succeeded")
	}
	if err := s.Create(ctx, newTask("late", "alice", time.Hour), 100); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Create after Close: %v", err)
	}
}
