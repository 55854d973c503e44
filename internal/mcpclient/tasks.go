package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// The tasks extension (2026-07-28, SEP-2663).
const (
	// ExtensionTasks is the extension's identifier, declared in
	// Capabilities.Extensions.
	ExtensionTasks = runtime.ExtensionTasks
	// ResultTask is the resultType of a tools/call answered with a task
	// handle.
	ResultTask = "task"

	MethodGetTask    = "tasks/get"
	MethodUpdateTask = "tasks/update"
	MethodCancelTask = "tasks/cancel"
)

// Statuses of a [Task].
const (
	TaskWorking       = string(runtime.TaskWorking)
	TaskInputRequired = string(runtime.TaskInputRequired)
	TaskCompleted     = string(runtime.TaskCompleted)
	TaskFailed        = string(runtime.TaskFailed)
	TaskCancelled     = string(runtime.TaskCancelled)
)

// defaultTaskPoll is the pause between polls of a task whose handle
// gives no pollIntervalMs.
const defaultTaskPoll = time.Second

// Task is a task as a tools/call handle or tasks/get shows it.
type Task struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
	// InputRequests are the requests a task that is input_required waits
	// for, verbatim.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	// Result is a completed task's tools/call result, verbatim; Error a
	// failed task's JSON-RPC error.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
	// Rounds counts the input_required rounds AwaitTask answered.
	Rounds int `json:"-"`
}

// Ended reports whether the task is completed, failed or cancelled.
func (t *Task) Ended() bool {
	return t != nil && (t.Status == TaskCompleted || t.Status == TaskFailed || t.Status == TaskCancelled)
}

// CallToolResult decodes a completed task's result.
func (t *Task) CallToolResult() (*CallToolResult, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: no task", ErrProtocol)
	}
	if t.Status != TaskCompleted || len(t.Result) == 0 {
		return nil, fmt.Errorf("%w: task %q is %s, with no result", ErrProtocol, t.TaskID, t.Status)
	}
	res := &CallToolResult{}
	if err := json.Unmarshal(t.Result, res); err != nil {
		return nil, fmt.Errorf("%w: task %q: bad result: %w", ErrProtocol, t.TaskID, err)
	}
	res.Raw, res.Rounds = t.Result, t.Rounds
	return res, nil
}

// TaskOf returns the task of a tools/call result answered with a task
// handle, nil for any other result.
func TaskOf(res *CallToolResult) *Task {
	if res == nil || res.ResultType != ResultTask {
		return nil
	}
	var t Task
	if json.Unmarshal(res.Raw, &t) != nil || t.TaskID == "" {
		return nil
	}
	return &t
}

// GetTask calls tasks/get.
func (c *Client) GetTask(ctx context.Context, id string) (*Task, error) {
	raw, err := c.Call(ctx, MethodGetTask, map[string]string{"taskId": id})
	if err != nil {
		return nil, err
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%s: %w: bad result: %w", MethodGetTask, ErrProtocol, err)
	}
	if t.TaskID != id {
		return nil, fmt.Errorf("%s: %w: asked for task %q, got %q", MethodGetTask, ErrProtocol, id, t.TaskID)
	}
	return &t, nil
}

// CancelTask calls tasks/cancel.
func (c *Client) CancelTask(ctx context.Context, id string) error {
	_, err := c.Call(ctx, MethodCancelTask, map[string]string{"taskId": id})
	return err
}

// AwaitTask polls the task with tasks/get, every pollIntervalMs the
// server gave, until it ends, and returns it as it ended. Each time it
// is input_required, its inputRequests are answered as a tools/call's
// are (through OnElicit and OnRequest, in the order the server wrote
// them) and the answers sent with tasks/update, then polled again at
// once. More than MaxRounds input_required rounds is an error.
func (c *Client) AwaitTask(ctx context.Context, id string) (*Task, error) {
	rounds := 0
	for {
		t, err := c.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		t.Rounds = rounds
		if t.Ended() {
			return t, nil
		}
		if t.Status == TaskInputRequired {
			var reqs inputRequests
			if err := json.Unmarshal(t.InputRequests, &reqs); err != nil || len(reqs) == 0 {
				return nil, fmt.Errorf("%s: %w: task %q is input_required without inputRequests (%v)", MethodGetTask, ErrProtocol, id, err)
			}
			if rounds++; rounds > c.opts.MaxRounds {
				return nil, fmt.Errorf("task %q: %w (%d)", id, ErrTooManyRounds, c.opts.MaxRounds)
			}
			c.trace.notef(0, "task %q: input_required with %d input request(s); answering (round %d)", id, len(reqs), rounds)
			responses, err := c.fulfill(ctx, reqs)
			if err != nil {
				return nil, fmt.Errorf("task %q: %w", id, err)
			}
			params := map[string]any{"taskId": id, "inputResponses": responses}
			if _, err := c.Call(ctx, MethodUpdateTask, params); err != nil {
				return nil, err
			}
			continue
		}
		pause := defaultTaskPoll
		if t.PollIntervalMs > 0 {
			pause = time.Duration(t.PollIntervalMs) * time.Millisecond
		}
		if err := Sleep(ctx, pause); err != nil {
			return nil, fmt.Errorf("task %q: %w", id, err)
		}
	}
}
