package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// TaskStatus is the status of a task, as tasks/get shows it.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the task has ended: completed, failed or
// cancelled.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is one task as a TaskStore keeps it. The runtime writes every
// field; a store keeps them as they are and reads only ID, Owner and
// ExpiresAt.
type Task struct {
	ID string
	// Owner is who may read and change the task: the authenticated
	// subject of the request that made it (Options.Authenticate), or ""
	// when the server authenticates no one; then the ID, 128 random bits,
	// is the only key.
	Owner         string
	Status        TaskStatus
	StatusMessage string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// ExpiresAt is CreatedAt plus the task's TTL: after it a store
	// answers ErrTaskNotFound and may delete the task.
	ExpiresAt time.Time
	// Lease, while the task is working, is when the run of its handler
	// loses its claim unless it renews it (every few poll intervals): a
	// tasks/get past it, with no run in its own process, fails the task,
	// whose process has stopped. Zero when no run is due.
	Lease time.Time
	// Request is the call the task runs, as the runtime encoded it (the
	// tool, its arguments, the request's _meta and client capabilities):
	// what a run after a restart needs.
	Request json.RawMessage
	// State holds the answers so far and the keys asked, in the runtime's
	// encoding: the round trip's requestState, unsealed.
	State []byte
	// InputRequests are the requests outstanding (a JSON object, as
	// tasks/get shows them while the task is input_required).
	InputRequests json.RawMessage
	// InputResponses are the responses tasks/update brought for
	// outstanding keys that no finished run has consumed yet (a JSON
	// object).
	InputResponses json.RawMessage
	// Result is the tool's result once completed; Error the JSON-RPC
	// error once failed.
	Result json.RawMessage
	Error  json.RawMessage
}

// TaskStore keeps tasks where a restarted server (or another replica)
// finds them. runtime/taskstore is the embedded one, on local disk;
// natscluster's Cluster.TaskStore is shared by replicas.
// Every method is safe for concurrent use; a write has happened, durably,
// when it returns nil.
type TaskStore interface {
	// Create adds t, a task with a new ID. It returns ErrTaskLimit when
	// t.Owner already has maxPerOwner tasks that have not expired.
	Create(ctx context.Context, t *Task, maxPerOwner int) error
	// Get returns the task with the ID, or ErrTaskNotFound (also once it
	// has expired).
	Get(ctx context.Context, id string) (*Task, error)
	// Update applies change to the task with the ID atomically: what it
	// stores is change applied to the task as stored, with no other write
	// of it in between. A store may call change more than once, each time
	// on a fresh copy of the task (one that writes by compare-and-set
	// calls it again when another writer won): change must set nothing
	// but the task it is given, or reset what it sets outside on each
	// call. A change that returns an error changes nothing, and Update
	// returns that error. It returns the task as stored.
	Update(ctx context.Context, id string, change func(*Task) error) (*Task, error)
}

// Errors of a TaskStore; implementations return them (or wrap them) so
// that errors.Is finds them.
var (
	ErrTaskNotFound = errors.New("elicit: task not found")
	ErrTaskLimit    = errors.New("elicit: too many tasks: the owner has as many as Options.Tasks.MaxPerOwner allows")
)
