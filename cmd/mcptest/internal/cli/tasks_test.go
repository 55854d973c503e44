package cli

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// serveTasks serves this module's runtime on a task store with "greet"
// (TaskOptional: asks a name), "boom" (TaskOptional: fails) and "hang" (TaskOptional: runs until its
// ctx ends, then sends the cause on stopped).
func serveTasks(t *testing.T) (url string, stopped <-chan error) {
	t.Helper()
	store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := runtime.NewServer(runtime.Options{Name: "tasks-test", Version: "1", Tasks: runtime.TaskOptions{Store: store, PollInterval: 5 * time.Millisecond}})
	runtime.AddTool(srv, runtime.Tool{Name: "greet", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		v, err := runtime.ElicitSchema(ctx, "Who?", map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
		})
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return runtime.ErrorResult("no greeting: %v", err), nil
		}
		return runtime.TextResult("hello " + v["name"].(string)), nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "boom", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: "boom"}
	})
	stop := make(chan error, 1)
	runtime.AddTool(srv, runtime.Tool{Name: "hang", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		<-ctx.Done()
		stop <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL, stop
}

// taskIDs are the task ids in mcptest's output.
var taskIDs = regexp.MustCompile(`task [0-9A-Za-z_-]{16,} `)

// TestTasks: with --tasks an @TOOL of a task tool makes a task; task-wait
// polls it, answering its input requests from the queue, and prints its
// result as a call's; task-get shows it; task-cancel cancels it.
func TestTasks(t *testing.T) {
	url, stopped := serveTasks(t)
	args := []string{"--url", url, "--protocol", "2026-07-28", "--elicit", "--tasks"}
	cases := []struct {
		name, script string
		code         int
		stdout       string
		stderr       []string
	}{
		{
			name:   "answers reach the handler",
			script: "elicit-accept {\"name\":\"Ada\"}\n@greet\ntask-wait\ntask-get\n",
			stdout: "task ID working\nhello Ada\ntask ID completed\n",
		},
		{
			name:   "declined inside the task",
			script: "elicit-decline\n@greet\ntask-wait\n",
			code:   1,
			stdout: "task ID working\n",
			stderr: []string{"mcptest: stdin:3: task-wait: no greeting: elicit: declined by the user\n"},
		},
		{
			name:   "empty queue cancels the ask",
			script: "@greet\ntask-wait\n",
			code:   1,
			stdout: "task ID working\n",
			stderr: []string{`elicitation "Who?" arrived with no queued reply; answering cancel`, "stdin:2: task-wait: no greeting: elicit: canceled by the user"},
		},
		{
			name:   "waiting for input",
			script: "@greet\nwait 1s\ntask-get\ntask-cancel\ntask-get\n",
			stdout: "task ID working\ntask ID input_required\n\telicit elicitation/create \"Who?\"\ntask ID cancelled: cancelled by the client\n",
		},
		{
			name:   "failed",
			script: "@boom\ntask-wait\ntask-get\n",
			code:   1,
			stdout: "task ID working\ntask ID failed: boom\n",
			stderr: []string{"mcptest: stdin:2: task-wait: json-rpc error -32603: boom\n"},
		},
		{
			name:   "no task yet",
			script: "task-wait\ntask-cancel\n@greet\n",
			code:   1,
			stdout: "task ID working\n",
			stderr: []string{"stdin:1: task-wait: no task: an @TOOL line", "stdin:2: task-cancel: no task"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := run(t, tc.script, args...)
			o.stdout = taskIDs.ReplaceAllString(o.stdout, "task ID ")
			o.check(t, tc.code, tc.stdout, tc.stderr...)
		})
	}

	t.Run("cancel", func(t *testing.T) {
		o := run(t, "@hang\ntask-cancel\ntask-wait\n", args...)
		o.stdout = taskIDs.ReplaceAllString(o.stdout, "task ID ")
		o.check(t, 0, "task ID working\ntask ID cancelled: cancelled by the client\n")
		select {
		case err := <-stopped:
			if !strings.Contains(err.Error(), "cancelled the task") {
				t.Errorf("the handler stopped with %v, want the task's cancellation", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the handler still runs 5s after task-cancel")
		}
	})

	t.Run("without --tasks a call", func(t *testing.T) {
		run(t, "elicit-accept {\"name\":\"Bo\"}\n@greet\n", args[:len(args)-1]...).check(t, 0, "hello Bo\n")
	})
	t.Run("--tasks on a session", func(t *testing.T) {
		run(t, "@greet\n", "--url", url, "--protocol", "2025-11-25", "--tasks").
			check(t, 2, "", "--tasks needs protocol 2026-07-28")
	})
}
