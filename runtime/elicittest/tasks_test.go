package elicittest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// An adopter's test of a tool that runs as a task: the handler and the
// script are a call's; the server has a task store (taskRuntime: five
// lines, as in ExampleCancelTask) and the client declares the extension
// (Conn Tasks).
func TestDeployAsTask(t *testing.T) {
	srv := taskRuntime(t)
	runtime.AddTool(srv, runtime.Tool{Name: "deploy", TaskSupport: runtime.TaskRequired}, deploy.Deploy)
	c := elicittest.NewServer(t, srv).Connect(t, elicittest.Conn{Tasks: true})
	c.Call(t, "deploy", nil,
		elicittest.Accept(deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}),
		elicittest.Accept(deploy.ConfirmForm{Confirm: true})).
		WantText(t, "deployed 3 replicas to staging on web1.example.com")
	c.Call(t, "deploy", nil, elicittest.Decline()).WantError(t, "declined")
}

// taskRuntime is a server with a task store in t's temporary directory,
// polled every 5ms.
func taskRuntime(t *testing.T) *runtime.Server {
	store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 5 * time.Millisecond}})
}

// taskServer serves "greet" (TaskOptional: asks a name), "plain" (no
// tasks: asks a name too), "boom" (TaskOptional: fails) and "hang" (TaskOptional: waits for its ctx to
// end), and counts the runs of greet.
func taskServer(t *testing.T) (*elicittest.Server, *atomic.Int32) {
	srv := taskRuntime(t)
	runs := &atomic.Int32{}
	greet := func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		runs.Add(1)
		f, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return runtime.ErrorResult("no greeting: %v", err), nil
		}
		return runtime.TextResult("hello " + f.Name), nil
	}
	runtime.AddTool(srv, runtime.Tool{Name: "greet", TaskSupport: runtime.TaskOptional}, greet)
	runtime.AddTool(srv, runtime.Tool{Name: "plain"}, greet)
	runtime.AddTool(srv, runtime.Tool{Name: "boom", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: "boom"}
	})
	runtime.AddTool(srv, runtime.Tool{Name: "hang", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		<-ctx.Done()
		stopped <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	})
	return elicittest.NewServer(t, srv), runs
}

// stopped receives the cause of each end of a "hang" handler.
var stopped = make(chan error, 1)

func TestTaskAnswersReachTheHandler(t *testing.T) {
	s, runs := taskServer(t)
	for _, transport := range s.Transports() {
		t.Run(transport, func(t *testing.T) {
			runs.Store(0)
			c := s.Connect(t, elicittest.Conn{Transport: transport, Tasks: true})
			res := c.Call(t, "greet", nil, elicittest.Accept(testform.NameForm{Name: "Ada"}))
			res.WantText(t, "hello Ada")
			res.WantAsked(t, "Who?")
			if res.TaskID == "" || res.TaskStatus != runtime.TaskCompleted || res.Rounds != 1 {
				t.Errorf("TaskID %q, TaskStatus %q, Rounds %d: want a task, completed after 1 round", res.TaskID, res.TaskStatus, res.Rounds)
			}
			if n := runs.Load(); n != 2 {
				t.Errorf("the handler ran %d times, want 2 (asking, then with the answer)", n)
			}
			// A tool that does not allow tasks runs as a call, on the same client.
			res = c.Call(t, "plain", nil, elicittest.Accept(testform.NameForm{Name: "Bo"}))
			res.WantText(t, "hello Bo")
			if res.TaskID != "" || res.TaskStatus != "" {
				t.Errorf("plain ran as task %q (%q), want a call", res.TaskID, res.TaskStatus)
			}
		})
	}
}

func TestTaskOutcomes(t *testing.T) {
	s, _ := taskServer(t)
	c := s.Connect(t, elicittest.Conn{Tasks: true})
	res := c.Call(t, "greet", nil, elicittest.Decline())
	res.WantError(t, "no greeting: elicit: declined by the user")
	if res.TaskStatus != runtime.TaskCompleted {
		t.Errorf("TaskStatus %q, want completed (with an isError result)", res.TaskStatus)
	}
	c.Call(t, "greet", nil, elicittest.Cancel()).WantError(t, "no greeting: elicit: canceled by the user")
	// 2026-07-28 has no error answer to an input request: the client gives
	// up, as it does a call, and the test does not fail for it.
	res = c.Call(t, "greet", nil, elicittest.ReplyError(-1, "no screen"))
	if res.TaskID == "" || !strings.Contains(fmt.Sprint(res.Err), "the client gave up the call") {
		t.Errorf("TaskID %q, Err %v: want a task the client gave up", res.TaskID, res.Err)
	}
	res = c.Call(t, "boom", nil)
	res.WantRPCError(t, runtime.CodeInternalError)
	if res.TaskStatus != runtime.TaskFailed || !strings.Contains(fmt.Sprint(res.Err), "boom") {
		t.Errorf("TaskStatus %q, Err %v: want the task failed with its error", res.TaskStatus, res.Err)
	}
}

func TestCancelTask(t *testing.T) {
	s, runs := taskServer(t)
	c := s.Connect(t, elicittest.Conn{Tasks: true})
	res := c.Call(t, "greet", nil, elicittest.CancelTask())
	if res.TaskStatus != runtime.TaskCancelled || res.Err == nil || !strings.Contains(res.Err.Error(), "the task was cancelled (cancelled by the client)") {
		t.Errorf("TaskStatus %q, Err %v: want the task cancelled", res.TaskStatus, res.Err)
	}
	res.WantAsked(t, "Who?")
	if n := runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1: a cancelled task does not run again", n)
	}
	r := &recorder{TB: t}
	res.WantText(r, "hello")
	r.want(t, `(?s)"greet" on 2026-07-28 over http:\n\twant text "hello"\n\tgot  error: elicittest: the task was cancelled .*CancelTask\(\)`)
}

func TestTaskTimeoutCancelsTheTask(t *testing.T) {
	s, _ := taskServer(t)
	s.CallTimeout = 200 * time.Millisecond
	r := &recorder{TB: t}
	res := s.Connect(t, elicittest.Conn{Tasks: true}).Call(r, "hang", nil)
	r.want(t, `"hang" on 2026-07-28 over http: no result within 200ms`)
	if res.TaskID == "" {
		t.Errorf("hang did not run as a task")
	}
	select {
	case err := <-stopped:
		if !strings.Contains(fmt.Sprint(err), "cancelled the task") {
			t.Errorf("the handler stopped with %v, want the task's cancellation", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the task's handler still runs 5s after its Call timed out")
	}
}

func TestTaskMisuse(t *testing.T) {
	s, _ := taskServer(t)
	r := &recorder{TB: t}
	c := s.Connect(t, elicittest.Conn{})
	c.Call(r, "greet", nil, elicittest.CancelTask()).WantError(t, "canceled by the user")
	r.want(t, `CancelTask\(\), which answers only inside a task`)
	if c := s.Connect(r, elicittest.Conn{Protocol: runtime.Version20251125, Tasks: true}); c != nil {
		t.Errorf("Connect with Tasks on 2025-11-25 returned a client")
	}
	r.want(t, `Tasks needs protocol 2026-07-28`)
}
