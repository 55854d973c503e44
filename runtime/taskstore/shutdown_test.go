package taskstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// TestShutdownWithRunningTasks: Shutdown waits for a task's handler that
// ends within its deadline (the task completes, its result stored); past
// the deadline it cancels a handler that does not (its context's cause is
// ErrServerShutdown), returns, and leaves that task as stored: working,
// neither failed nor completed, for the process that opens the store next
// (whose tasks/get fails it once its lease lapses, TestKilledWorkingTaskFails).
func TestShutdownWithRunningTasks(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	defer store.Close()
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 20 * time.Millisecond}})
	started := make(chan string, 2)
	causes := make(chan error, 1)
	release := make(chan struct{})
	srv.AddTool(runtime.Tool{Name: "finishes", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		started <- "finishes"
		<-release
		return runtime.TextResult("finished during the shutdown"), nil
	})
	srv.AddTool(runtime.Tool{Name: "stuck", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		started <- "stuck"
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	url := serve(t, srv)
	finishing, stuck := startTask(t, url, "finishes", 20), startTask(t, url, "stuck", 20)
	<-started
	<-started

	shutdownCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(shutdownCtx) }()
	close(release) // "finishes" ends while Shutdown waits
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Shutdown with a stuck task handler: %v, want its deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown did not return past its deadline")
	}
	select {
	case cause := <-causes:
		if !errors.Is(cause, runtime.ErrServerShutdown) {
			t.Errorf("the stuck handler's context ended with %v, want ErrServerShutdown", cause)
		}
	default:
		t.Fatal("Shutdown returned before the stuck handler's context ended")
	}
	if got, err := store.Get(ctx, finishing); err != nil || got.Status != runtime.TaskCompleted || len(got.Result) == 0 {
		t.Errorf("the task that finished during the shutdown: %+v, %v; want completed with its result", got, err)
	}
	if got, err := store.Get(ctx, stuck); err != nil || got.Status != runtime.TaskWorking {
		t.Errorf("the task whose handler Shutdown stopped: %+v, %v; want it left working in the store", got, err)
	}
}

// slowAsker is a store whose Update returns late once it has stored a
// task input_required: the run that stored the question is still ending
// when its client, which sees the question at once, answers it.
type slowAsker struct {
	*taskstore.Store
	delay time.Duration
}

func (s slowAsker) Update(ctx context.Context, id string, change func(*runtime.Task) error) (*runtime.Task, error) {
	t, err := s.Store.Update(ctx, id, change)
	if err == nil && t.Status == runtime.TaskInputRequired {
		time.Sleep(s.delay)
	}
	return t, err
}

// TestAnswerWhileTheAskingRunEnds: an answer that comes while the run that
// asked is still ending in this process starts the next run once that one
// has ended: the task completes with the answer (the next run used to be
// dropped, and the task, working with no run, failed once its lease
// lapsed).
func TestAnswerWhileTheAskingRunEnds(t *testing.T) {
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	t.Cleanup(func() { _ = store.Close() }) // after serve's
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: slowAsker{store, 300 * time.Millisecond}, PollInterval: 10 * time.Millisecond}})
	addTaskTools(srv)
	url := serve(t, srv)
	id := startTask(t, url, "approve", 10)
	pollTask(t, url, id, runtime.TaskInputRequired)
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`) // the asking run still sleeps in Update
	done := pollTask(t, url, id, runtime.TaskCompleted)
	if got := resultText(t, done); got != "deployed, approved by ada" {
		t.Fatalf("result %q", got)
	}
}
