package natscluster_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// taskReplica is a Cluster on its own connection, for its TaskStore.
func taskReplica(t *testing.T, url, name string, opts natscluster.Options) (*natscluster.Cluster, *nats.Conn) {
	t.Helper()
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	opts.Conn, opts.Replica = nc, name
	cl, err := natscluster.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close(); nc.Close() })
	return cl, nc
}

func newTask(owner string, ttl time.Duration) *runtime.Task {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	now := time.Now()
	return &runtime.Task{ID: hex.EncodeToString(b), Owner: owner, Status: runtime.TaskWorking,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(ttl), Request: json.RawMessage(`{"name":"ask"}`)}
}

// TestTaskStoreSharedByReplicas: a task one replica creates, another
// reads and changes; unknown, expired and malformed ids are not found; a
// second Create of an id and a change that alters the id are refused; a
// change that fails changes nothing.
func TestTaskStoreSharedByReplicas(t *testing.T) {
	ns := startNATS(t)
	a, _ := taskReplica(t, ns.ClientURL(), "ta", natscluster.Options{})
	b, _ := taskReplica(t, ns.ClientURL(), "tb", natscluster.Options{})
	sa, sb := a.TaskStore(), b.TaskStore()
	ctx := context.Background()

	task := newTask("alice", time.Hour)
	if err := sa.Create(ctx, task, 10); err != nil {
		t.Fatal(err)
	}
	got, err := sb.Get(ctx, task.ID)
	if err != nil || got.Owner != "alice" || got.Status != runtime.TaskWorking || string(got.Request) != `{"name":"ask"}` {
		t.Fatalf("Get on the other replica: %+v, %v", got, err)
	}
	upd, err := sb.Update(ctx, task.ID, func(t *runtime.Task) error {
		t.Status, t.InputRequests = runtime.TaskInputRequired, json.RawMessage(`{"k":{}}`)
		return nil
	})
	if err != nil || upd.Status != runtime.TaskInputRequired {
		t.Fatalf("Update: %+v, %v", upd, err)
	}
	if got, err := sa.Get(ctx, task.ID); err != nil || got.Status != runtime.TaskInputRequired || string(got.InputRequests) != `{"k":{}}` {
		t.Fatalf("Get after the other replica's Update: %+v, %v", got, err)
	}
	if err := sb.Create(ctx, task, 10); err == nil {
		t.Error("a second Create of the same id succeeded")
	}
	boom := errors.New("boom")
	if _, err := sa.Update(ctx, task.ID, func(t *runtime.Task) error { t.Status = runtime.TaskFailed; return boom }); !errors.Is(err, boom) {
		t.Errorf("a failing change: %v, want its error", err)
	}
	if _, err := sa.Update(ctx, task.ID, func(t *runtime.Task) error { t.ID = "other"; return nil }); err == nil {
		t.Error("a change of the id was stored")
	}
	if got, _ := sb.Get(ctx, task.ID); got == nil || got.Status != runtime.TaskInputRequired || got.ID != task.ID {
		t.Errorf("refused changes were stored: %+v", got)
	}
	if _, err := sa.Update(ctx, task.ID, nil); err == nil {
		t.Error("Update with a nil change succeeded")
	}
	for _, id := range []string{"", "no-such-task", "a.b", "a*", "a b", string(make([]byte, 65))} {
		if _, err := sb.Get(ctx, id); !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("Get(%q): %v, want ErrTaskNotFound", id, err)
		}
		if _, err := sb.Update(ctx, id, func(*runtime.Task) error { return nil }); !errors.Is(err, runtime.ErrTaskNotFound) {
			t.Errorf("Update(%q): %v, want ErrTaskNotFound", id, err)
		}
	}
	for _, bad := range []*runtime.Task{nil, {}, {ID: "a.b", ExpiresAt: time.Now().Add(time.Hour)}} {
		if err := sa.Create(ctx, bad, 10); err == nil {
			t.Errorf("Create(%+v) succeeded", bad)
		}
	}

	short := newTask("alice", 200*time.Millisecond)
	if err := sa.Create(ctx, short, 10); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := sb.Get(ctx, short.ID); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("Get of an expired task: %v, want ErrTaskNotFound", err)
	}
	if _, err := sb.Update(ctx, short.ID, func(*runtime.Task) error { return nil }); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("Update of an expired task: %v, want ErrTaskNotFound", err)
	}
}

// TestTaskStoreOwnerLimitIsExact: replicas creating tasks of one owner at
// once store exactly the limit; the others get ErrTaskLimit; expired tasks
// free their places; other owners are not counted.
func TestTaskStoreOwnerLimitIsExact(t *testing.T) {
	ns := startNATS(t)
	stores := make([]runtime.TaskStore, 3)
	for i := range stores {
		cl, _ := taskReplica(t, ns.ClientURL(), "r"+strconv.Itoa(i), natscluster.Options{})
		stores[i] = cl.TaskStore()
	}
	ctx := context.Background()
	const limit, tries = 5, 24
	var created, limited atomic.Int32
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			switch err := stores[i%len(stores)].Create(ctx, newTask("bob", time.Hour), limit); {
			case err == nil:
				created.Add(1)
			case errors.Is(err, runtime.ErrTaskLimit):
				limited.Add(1)
			default:
				t.Errorf("Create: %v", err)
			}
		})
	}
	wg.Wait()
	if created.Load() != limit || limited.Load() != tries-limit {
		t.Fatalf("%d created and %d refused, want %d and %d", created.Load(), limited.Load(), limit, tries-limit)
	}
	if err := stores[0].Create(ctx, newTask("carol", time.Hour), limit); err != nil {
		t.Errorf("another owner's task: %v", err)
	}

	// An owner whose tasks expire gets their places back.
	for range limit {
		if err := stores[1].Create(ctx, newTask("dave", 200*time.Millisecond), limit); err != nil {
			t.Fatal(err)
		}
	}
	if err := stores[2].Create(ctx, newTask("dave", time.Hour), limit); !errors.Is(err, runtime.ErrTaskLimit) {
		t.Fatalf("over the limit: %v, want ErrTaskLimit", err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := stores[2].Create(ctx, newTask("dave", time.Hour), limit); err != nil {
		t.Errorf("after the owner's tasks expired: %v", err)
	}
}

// TestTaskStoreConcurrentUpdatesAllLand: changes of one task from several
// replicas at once are applied one after the other, none lost.
func TestTaskStoreConcurrentUpdatesAllLand(t *testing.T) {
	ns := startNATS(t)
	a, _ := taskReplica(t, ns.ClientURL(), "ua", natscluster.Options{})
	b, _ := taskReplica(t, ns.ClientURL(), "ub", natscluster.Options{})
	stores := []runtime.TaskStore{a.TaskStore(), b.TaskStore()}
	ctx := context.Background()
	task := newTask("erin", time.Hour)
	task.StatusMessage = "0"
	if err := stores[0].Create(ctx, task, 0); err != nil {
		t.Fatal(err)
	}
	const n = 12 // below the retries each one allows, whatever the order
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := stores[i%2].Update(ctx, task.ID, func(t *runtime.Task) error {
				v, err := strconv.Atoi(t.StatusMessage)
				t.StatusMessage = strconv.Itoa(v + 1)
				return err
			})
			if err != nil {
				t.Errorf("Update: %v", err)
			}
		})
	}
	wg.Wait()
	got, err := stores[1].Get(ctx, task.ID)
	if err != nil || got.StatusMessage != strconv.Itoa(n) {
		t.Fatalf("after %d concurrent increments: %+v, %v", n, got, err)
	}
}

// TestTaskStoreRefusesTasksItCannotKeep: a task that would outlive its
// entry (the bucket's TaskTTL) is refused, saying which option to raise.
func TestTaskStoreRefusesTasksItCannotKeep(t *testing.T) {
	ns := startNATS(t)
	cl, _ := taskReplica(t, ns.ClientURL(), "k", natscluster.Options{TaskTTL: time.Minute})
	err := cl.TaskStore().Create(context.Background(), newTask("f", time.Hour), 0)
	if err == nil || !strings.Contains(err.Error(), "TaskTTL") || !strings.Contains(err.Error(), "Tasks.TTL") {
		t.Fatalf("Create of a task living longer than TaskTTL: %v", err)
	}
	if err := cl.TaskStore().Create(context.Background(), newTask("f", 30*time.Second), 0); err != nil {
		t.Fatalf("Create within TaskTTL: %v", err)
	}
}

// TestTaskStoreOfZeroCluster: the store of a Cluster not made by New (nil
// or zero) returns errors, and does not panic.
func TestTaskStoreOfZeroCluster(t *testing.T) {
	ctx := context.Background()
	for _, cl := range []*natscluster.Cluster{nil, {}} {
		s := cl.TaskStore()
		if err := s.Create(ctx, newTask("g", time.Hour), 1); err == nil {
			t.Error("Create succeeded")
		}
		if _, err := s.Get(ctx, "abc"); err == nil {
			t.Error("Get succeeded")
		}
		if _, err := s.Update(ctx, "abc", func(*runtime.Task) error { return nil }); err == nil {
			t.Error("Update succeeded")
		}
	}
}

// TestTaskStoreSurvivesNATSRestart: with file storage, the tasks are
// there after nats-server restarts, and the owner's count too.
func TestTaskStoreSurvivesNATSRestart(t *testing.T) {
	ns := startNATS(t)
	cl, nc := taskReplica(t, ns.ClientURL(), "s", natscluster.Options{})
	s := cl.TaskStore()
	ctx := context.Background()
	var ids []string
	for range 3 {
		task := newTask("henry", time.Hour)
		if err := s.Create(ctx, task, 3); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, task.ID)
	}
	restartServer(t, ns, []*nats.Conn{nc}, nil)
	for _, id := range ids {
		var got *runtime.Task
		ok := eventually(10*time.Second, func() bool {
			var err error
			got, err = s.Get(ctx, id)
			return err == nil
		})
		if !ok || got.ID != id {
			t.Fatalf("task %s after the restart: %+v", id, got)
		}
	}
	if err := s.Create(ctx, newTask("henry", time.Hour), 3); !errors.Is(err, runtime.ErrTaskLimit) {
		t.Errorf("the owner's count after the restart: %v, want ErrTaskLimit", err)
	}
}
