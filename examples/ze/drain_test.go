package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// TestDrainAsksHalfWay: ze_drain drains, then asks; without a task store
// it is an ordinary call on every protocol and transport.
func TestDrainAsksHalfWay(t *testing.T) {
	elicittest.NewServer(t, newServer(runtime.Options{}, 20*time.Millisecond)).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "ze_drain", nil, elicittest.Accept(ShutdownForm{Shutdown: true}))
		res.WantText(t, "drained 2 peers; sessions shut down")
		res.WantAsked(t, "2 peers drained. Shut their sessions down?")
		if res.TaskID != "" {
			t.Errorf("a call without a task store ran as task %s", res.TaskID)
		}
		c.Call(t, "ze_drain", nil, elicittest.Accept(ShutdownForm{})).WantText(t, "drained 2 peers; sessions kept up")
		c.Call(t, "ze_drain", nil, elicittest.Decline()).WantError(t, "the user declined to answer")
	})
}

// TestDrainRunsAsTask: with a task store (-tasks), a 2026-07-28 client that
// declares the tasks extension gets ze_drain as a task: the question waits
// in the store and the answer completes it; a client that does not
// declare it, and a session, still get a call.
func TestDrainRunsAsTask(t *testing.T) {
	store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := newServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 5 * time.Millisecond}}, 20*time.Millisecond)
	s := elicittest.NewServer(t, srv)
	c := s.Connect(t, elicittest.Conn{Protocol: runtime.Version20260728, Tasks: true})
	res := c.Call(t, "ze_drain", nil, elicittest.Accept(ShutdownForm{Shutdown: true}))
	res.WantText(t, "drained 2 peers; sessions shut down")
	if res.TaskID == "" || res.TaskStatus != runtime.TaskCompleted {
		t.Errorf("ze_drain from a tasks client: task %q %s, want a completed task", res.TaskID, res.TaskStatus)
	}
	if res := c.Call(t, "ze_drain", nil, elicittest.CancelTask()); res.TaskStatus != runtime.TaskCancelled || res.Err == nil {
		t.Errorf("ze_drain cancelled at its question: %s, %v; want a cancelled task", res.TaskStatus, res.Err)
	}
	for _, version := range []string{runtime.Version20260728, runtime.Version20251125} {
		c := s.Connect(t, elicittest.Conn{Protocol: version})
		res := c.Call(t, "ze_drain", nil, elicittest.Accept(ShutdownForm{}))
		res.WantText(t, "drained 2 peers; sessions kept up")
		if res.TaskID != "" {
			t.Errorf("%s without the extension: ran as task %s", version, res.TaskID)
		}
	}
}
