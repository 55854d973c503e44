package taskstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// startServer serves the task tools, and those register adds, on loopback
// with the task options (their Store a new file), each caller named by
// subjectHeader; it returns the URL and the channel of the wait tool.
func startServer(t *testing.T, tasks runtime.TaskOptions, register ...func(*runtime.Server)) (string, <-chan error) {
	t.Helper()
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	tasks.Store = store
	srv := runtime.NewServer(runtime.Options{
		Tasks:          tasks,
		AllowedOrigins: nil,
		Authenticate: func(r *http.Request) (string, error) {
			return r.Header.Get(subjectHeader), nil
		},
	})
	ended := addTaskTools(srv)
	for _, r := range register {
		r(srv)
	}
	t.Cleanup(func() { _ = store.Close() }) // after serve's
	return serve(t, srv), ended
}

// serve serves srv on loopback until the test ends, and returns its URL.
func serve(t *testing.T, srv *runtime.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := runtime.NewHTTPServer("", srv)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = hs.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// wantError checks that a reply is the JSON-RPC error code whose message
// holds each of the parts.
func wantError(t *testing.T, what string, status int, r response, wantStatus, code int, parts ...string) {
	t.Helper()
	if status != wantStatus || r.Error == nil || r.Error.Code != code {
		t.Fatalf("%s: HTTP %d, %+v, error %v: want HTTP %d and code %d", what, status, r.Result, r.Error, wantStatus, code)
	}
	for _, p := range parts {
		if !strings.Contains(r.Error.Message, p) {
			t.Errorf("%s: error %q does not say %q", what, r.Error.Message, p)
		}
	}
}

// TestTaskRoundsAndKeys: a handler that asks twice makes its task
// input_required twice, each time with a key of its own (keys are unique
// for the task's life); responses for keys not outstanding are ignored,
// and the result comes with tasks/get.
func TestTaskRoundsAndKeys(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 50 * time.Millisecond})
	id := startTask(t, url, "twice", 50)
	first := pollTask(t, url, id, runtime.TaskInputRequired)
	if len(first.Result.InputRequests) != 1 || elicitMessage(t, first.Result.InputRequests["elicit"]) != "First approver?" {
		t.Fatalf("first round's inputRequests: %v", first.Result.InputRequests)
	}
	// Only an unknown key: ignored, the task still waits.
	updateTask(t, url, id, `{"nope":{"action":"accept","content":{"name":"eve"}}}`)
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskInputRequired {
		t.Fatalf("a response for a key never asked moved the task to %s", r.Result.Status)
	}
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}},"nope":{"action":"decline"}}`)
	second := pollTask(t, url, id, runtime.TaskInputRequired, "elicit")
	if len(second.Result.InputRequests) != 1 || elicitMessage(t, second.Result.InputRequests["elicit_2"]) != "Second approver?" {
		t.Fatalf("second round's inputRequests: %v, want only elicit_2", second.Result.InputRequests)
	}
	// The answered key again: ignored.
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"mallory"}}}`)
	updateTask(t, url, id, `{"elicit_2":{"action":"accept","content":{"name":"bob"}}}`)
	done := pollTask(t, url, id, runtime.TaskCompleted)
	if got := resultText(t, done); got != "ada and bob" {
		t.Fatalf("result %q, want %q", got, "ada and bob")
	}
	// A completed task takes no more answers, and keeps its result.
	updateTask(t, url, id, `{"elicit_2":{"action":"decline"}}`)
	if got := resultText(t, getTask(t, url, id)); got != "ada and bob" {
		t.Fatalf("after a late update the result is %q", got)
	}
}

// TestTaskPartialAnswersWait: a task asked two questions at once stays
// input_required while one is unanswered (SEP-2663): a tasks/update with
// one answer is acknowledged, tasks/get then shows only the other
// question, and no run starts until both are answered; then one run has
// both answers and the task completes.
func TestTaskPartialAnswersWait(t *testing.T) {
	rounds := make(chan int, 8)
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 50 * time.Millisecond}, func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "pair", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			rounds <- req.Round
			var a, b map[string]any
			err := runtime.AskTogether(ctx,
				func(ctx context.Context) (err error) {
					a, err = runtime.ElicitSchema(ctx, "First?", approveSchema)
					return err
				},
				func(ctx context.Context) (err error) {
					b, err = runtime.ElicitSchema(ctx, "Second?", approveSchema)
					return err
				},
			)
			if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("%v and %v", a["name"], b["name"])), nil
		})
	})
	id := startTask(t, url, "pair", 50)
	asked := pollTask(t, url, id, runtime.TaskInputRequired)
	if len(asked.Result.InputRequests) != 2 {
		t.Fatalf("inputRequests %v, want elicit and elicit_2", asked.Result.InputRequests)
	}
	if got := <-rounds; got != 0 {
		t.Fatalf("first run of round %d, want 0", got)
	}
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`)
	r := getTask(t, url, id)
	if _, still := r.Result.InputRequests["elicit_2"]; r.Result.Status != runtime.TaskInputRequired || len(r.Result.InputRequests) != 1 || !still {
		t.Fatalf("after one of two answers: %s with %v, want input_required with only elicit_2", r.Result.Status, r.Result.InputRequests)
	}
	// The answered key again changes nothing.
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"mallory"}}}`)
	select {
	case got := <-rounds:
		t.Fatalf("a run of round %d started with a question unanswered", got)
	default:
	}
	updateTask(t, url, id, `{"elicit_2":{"action":"accept","content":{"name":"bob"}}}`)
	done := pollTask(t, url, id, runtime.TaskCompleted)
	if got := resultText(t, done); got != "ada and bob" {
		t.Fatalf("result %q", got)
	}
	if got := <-rounds; got != 1 {
		t.Fatalf("the run with both answers was of round %d, want 1", got)
	}
	select {
	case got := <-rounds:
		t.Fatalf("one run more, of round %d", got)
	default:
	}
}

// TestTaskListsRoots: a handler that asks for the client's roots works
// inside a task as it does in a call: the task is input_required with a
// roots/list request, and the client's answer reaches the handler.
func TestTaskListsRoots(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 50 * time.Millisecond}, func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "roots", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			roots, err := runtime.ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("%d root(s), first %s", len(roots), roots[0].URI)), nil
		})
	})
	id := startTask(t, url, "roots", 50)
	asked := pollTask(t, url, id, runtime.TaskInputRequired)
	var req struct {
		Method string `json:"method"`
	}
	if raw := asked.Result.InputRequests["roots"]; len(asked.Result.InputRequests) != 1 || json.Unmarshal(raw, &req) != nil || req.Method != "roots/list" {
		t.Fatalf("inputRequests %v, want one roots/list", asked.Result.InputRequests)
	}
	updateTask(t, url, id, `{"roots":{"roots":[{"uri":"file:///srv","name":"srv"}]}}`)
	if got := resultText(t, pollTask(t, url, id, runtime.TaskCompleted)); got != "1 root(s), first file:///srv" {
		t.Fatalf("result %q", got)
	}
}

// TestTaskOutcomes: a JSON-RPC error fails the task with that error; an
// error a handler returns is an isError result of a completed task (the
// extension keeps failed for protocol errors); a result larger than a task
// may store fails it, saying so; a declined elicitation is the handler's
// error, so the task completes with isError.
func TestTaskOutcomes(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{MaxBytes: 2048, PollInterval: 50 * time.Millisecond})
	failed := pollTask(t, url, startTask(t, url, "rpcfail", 50), runtime.TaskFailed)
	if e := failed.Result.Error; e == nil || e.Code != runtime.CodeInternalError || e.Message != "the backend is down" {
		t.Fatalf("failed task's error: %+v", e)
	}
	toolErr := pollTask(t, url, startTask(t, url, "toolerr", 50), runtime.TaskCompleted)
	if toolErr.Result.Result == nil || !toolErr.Result.Result.IsError || resultText(t, toolErr) != "disk full" {
		t.Fatalf("a handler's error: %+v, want a completed task with an isError result", toolErr.Result.Result)
	}
	big := pollTask(t, url, startTask(t, url, "big", 50), runtime.TaskFailed)
	if e := big.Result.Error; e == nil || !strings.Contains(e.Message, "more than a task may store (2048)") {
		t.Fatalf("an oversized result: %+v", e)
	}
	id := startTask(t, url, "approve", 50)
	pollTask(t, url, id, runtime.TaskInputRequired)
	updateTask(t, url, id, `{"elicit":{"action":"decline"}}`)
	declined := pollTask(t, url, id, runtime.TaskCompleted)
	if declined.Result.Result == nil || !declined.Result.Result.IsError {
		t.Fatalf("a declined elicitation: %+v, want an isError result", declined.Result.Result)
	}
}

// TestTaskCancelReachesHandler: tasks/cancel acknowledges, ends the
// running handler's context with the cancellation as its cause, and the
// task stays cancelled.
func TestTaskCancelReachesHandler(t *testing.T) {
	url, ended := startServer(t, runtime.TaskOptions{PollInterval: 50 * time.Millisecond})
	id := startTask(t, url, "wait", 50)
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskWorking {
		t.Fatalf("a running task is %s", r.Result.Status)
	}
	status, r := post(t, url, "tasks/cancel", id, `"taskId":"`+id+`"`, tasksCaps)
	if status != http.StatusOK || r.Error != nil || r.Result.ResultType != "complete" {
		t.Fatalf("tasks/cancel: HTTP %d, %+v, %v", status, r.Result, r.Error)
	}
	select {
	case cause := <-ended:
		if cause == nil || !strings.Contains(cause.Error(), "cancelled the task") {
			t.Fatalf("the handler's context ended with %v, want the client's cancellation", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tasks/cancel did not reach the running handler")
	}
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskCancelled || r.Result.StatusMessage == "" {
		t.Fatalf("after tasks/cancel the task is %s (%q)", r.Result.Status, r.Result.StatusMessage)
	}
	// Cancelling again, or an input_required task, acknowledges too.
	if status, r := post(t, url, "tasks/cancel", id, `"taskId":"`+id+`"`, tasksCaps); status != http.StatusOK || r.Error != nil {
		t.Fatalf("a second tasks/cancel: HTTP %d, %v", status, r.Error)
	}
	waiting := startTask(t, url, "approve", 50)
	pollTask(t, url, waiting, runtime.TaskInputRequired)
	if status, r := post(t, url, "tasks/cancel", waiting, `"taskId":"`+waiting+`"`, tasksCaps); status != http.StatusOK || r.Error != nil {
		t.Fatalf("tasks/cancel of an input_required task: HTTP %d, %v", status, r.Error)
	}
	updateTask(t, url, waiting, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`)
	if r := getTask(t, url, waiting); r.Result.Status != runtime.TaskCancelled {
		t.Fatalf("an answer after tasks/cancel moved the task to %s", r.Result.Status)
	}
}

// TestTaskBounds: the live tasks of one subject are capped (others are
// not), a subject does not see another's task, answers that would make a
// task store more than MaxBytes are refused, and past its TTL a task is
// gone and its handler stopped.
func TestTaskBounds(t *testing.T) {
	url, ended := startServer(t, runtime.TaskOptions{MaxPerOwner: 2, MaxBytes: 2048, TTL: 4 * time.Second, PollInterval: 50 * time.Millisecond})
	call := func(subject, tool string) (int, response) {
		return postAs(t, url, subject, "tools/call", tool, `"name":"`+tool+`","arguments":{}`, tasksCaps)
	}
	var alice []string
	for range 2 {
		status, r := call("alice", "approve")
		if status != http.StatusOK || r.Result.ResultType != "task" {
			t.Fatalf("alice's task: HTTP %d, %+v, %v", status, r.Result, r.Error)
		}
		alice = append(alice, r.Result.TaskID)
	}
	status, r := call("alice", "approve")
	wantError(t, "alice's third task", status, r, http.StatusOK, runtime.CodeInvalidRequest, "too many tasks", "(2)")
	if status, r := call("bob", "wait"); status != http.StatusOK || r.Result.ResultType != "task" {
		t.Fatalf("bob's task beside alice's two: HTTP %d, %+v, %v", status, r.Result, r.Error)
	}

	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		status, r := postAs(t, url, "bob", method, alice[0], `"taskId":"`+alice[0]+`"`, tasksCaps)
		wantError(t, "bob's "+method+" of alice's task", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task")
	}
	status, r = postAs(t, url, "bob", "tasks/update", alice[0], `"taskId":"`+alice[0]+`","inputResponses":{"elicit":{"action":"decline"}}`, tasksCaps)
	wantError(t, "bob's tasks/update of alice's task", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task")

	for _, id := range alice {
		for deadline := time.Now().Add(10 * time.Second); ; {
			_, r := postAs(t, url, "alice", "tasks/get", id, `"taskId":"`+id+`"`, tasksCaps)
			if r.Result.Status == runtime.TaskInputRequired {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("alice's task %s is %s %v", id, r.Result.Status, r.Error)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	huge := `{"elicit":{"action":"accept","content":{"name":"` + strings.Repeat("a", 4096) + `"}}}`
	status, r = postAs(t, url, "alice", "tasks/update", alice[0], `"taskId":"`+alice[0]+`","inputResponses":`+huge, tasksCaps)
	wantError(t, "an oversized answer", status, r, http.StatusOK, runtime.CodeInvalidParams, "more than it may (2048)")
	if _, r := postAs(t, url, "alice", "tasks/get", alice[0], `"taskId":"`+alice[0]+`"`, tasksCaps); r.Result.Status != runtime.TaskInputRequired {
		t.Fatalf("a refused answer moved the task to %s", r.Result.Status)
	}

	// The TTL: bob's wait handler is stopped, and alice's tasks are gone.
	select {
	case cause := <-ended:
		if cause == nil || !strings.Contains(cause.Error(), "outlived its TTL") {
			t.Fatalf("the waiting handler ended with %v, want its TTL", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a task's handler outlived its TTL")
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		status, r := postAs(t, url, "alice", "tasks/get", alice[1], `"taskId":"`+alice[1]+`"`, tasksCaps)
		if r.Error != nil {
			wantError(t, "tasks/get past the TTL", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a task outlived its TTL: %+v", r.Result)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, r := call("alice", "approve"); status != http.StatusOK || r.Result.ResultType != "task" {
		t.Fatalf("alice's expired tasks still count: HTTP %d, %v", status, r.Error)
	}
}

// TestTaskBadInput: every malformed or misdirected tasks/* request gets a
// clear JSON-RPC error, and a client without the extension gets no task.
func TestTaskBadInput(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 50 * time.Millisecond})
	const unknown = "0123456789abcdef0123456789abcdef"
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		status, r := post(t, url, method, unknown, `"taskId":"`+unknown+`"`, tasksCaps)
		wantError(t, method+" of an unknown task", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task", unknown)
	}
	status, r := post(t, url, "tasks/update", unknown, `"taskId":"`+unknown+`","inputResponses":{"elicit":{"action":"decline"}}`, tasksCaps)
	wantError(t, "tasks/update of an unknown task", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task")

	id := startTask(t, url, "approve", 50)
	pollTask(t, url, id, runtime.TaskInputRequired)
	for name, c := range map[string]struct{ params, want string }{
		"no taskId":                {`"inputResponses":{}`, "need a taskId"},
		"a taskId twice":           {`"taskId":"` + id + `","taskId":"` + id + `","inputResponses":{}`, "more than once"},
		"no inputResponses":        {`"taskId":"` + id + `"`, "needs inputResponses"},
		"inputResponses a list":    {`"taskId":"` + id + `","inputResponses":[]`, "invalid tasks/update params"},
		"a key twice":              {`"taskId":"` + id + `","inputResponses":{"elicit":{"action":"decline"},"elicit":{"action":"accept","content":{"name":"x"}}}`, `"elicit" appears more than once`},
		"a response not an object": {`"taskId":"` + id + `","inputResponses":{"elicit":"yes"}`, `inputResponses["elicit"] must be an object`},
	} {
		status, r := post(t, url, "tasks/update", id, c.params, tasksCaps)
		wantError(t, name, status, r, http.StatusOK, runtime.CodeInvalidParams, c.want)
	}
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskInputRequired {
		t.Fatalf("bad updates moved the task to %s", r.Result.Status)
	}

	status, r = post(t, url, "tasks/get", "another", `"taskId":"`+id+`"`, tasksCaps)
	wantError(t, "Mcp-Name not the taskId", status, r, http.StatusBadRequest, runtime.CodeHeaderMismatch, runtime.HeaderName)

	const plainCaps = `{"elicitation":{}}`
	status, r = post(t, url, "tasks/get", id, `"taskId":"`+id+`"`, plainCaps)
	wantError(t, "tasks/get without the extension", status, r, http.StatusBadRequest, runtime.CodeMissingCapability)
	status, r = post(t, url, "tools/call", "approve", `"name":"approve","arguments":{}`, plainCaps)
	wantError(t, "a task-only tool without the extension", status, r, http.StatusBadRequest, runtime.CodeMissingCapability)
	if !strings.Contains(string(r.Error.Data), runtime.ExtensionTasks) {
		t.Errorf("the -32021 does not name the extension: %s", r.Error.Data)
	}
	if status, r := post(t, url, "tools/call", "plain", `"name":"plain","arguments":{}`, plainCaps); status != http.StatusOK || r.Result.ResultType != "complete" || len(r.Result.Content) != 1 {
		t.Fatalf("an optional tool without the extension: HTTP %d, %+v, %v: want its result", status, r.Result, r.Error)
	}
	if status, r := post(t, url, "tools/call", "plain", `"name":"plain","arguments":{}`, tasksCaps); status != http.StatusOK || r.Result.ResultType != "task" {
		t.Fatalf("an optional tool with the extension: HTTP %d, %+v, %v: want a task", status, r.Result, r.Error)
	}
}

// TestTaskNeedsAStore: a server without a store has no tasks/* methods
// and refuses, at AddTool, a tool that opts into tasks or names a task
// support that does not exist.
func TestTaskNeedsAStore(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{})
	for _, ts := range []runtime.TaskSupport{runtime.TaskOptional, runtime.TaskRequired, "sometimes"} {
		func() {
			defer func() {
				v := recover()
				if v == nil || !strings.Contains(v.(string), "TaskSupport") && !strings.Contains(v.(string), "Options.Tasks.Store") {
					t.Errorf("AddTool with TaskSupport %q on a server without a store: panic %v", ts, v)
				}
			}()
			srv.AddTool(runtime.Tool{Name: "t", TaskSupport: ts}, func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) { return nil, nil })
		}()
	}
	srv.AddTool(runtime.Tool{Name: "t", TaskSupport: runtime.TaskForbidden}, func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) { return nil, nil })
	url := serve(t, srv)
	status, r := post(t, url, "tasks/get", "x", `"taskId":"x"`, tasksCaps)
	wantError(t, "tasks/get without a store", status, r, http.StatusNotFound, runtime.CodeMethodNotFound, "no task store")
	_, disc := post(t, url, "server/discover", "", "", tasksCaps)
	if strings.Contains(string(disc.Result.Capabilities["extensions"]), runtime.ExtensionTasks) {
		t.Errorf("a server without a store declares the tasks extension: %s", disc.Result.Capabilities["extensions"])
	}
	var nilStore *taskstore.Store
	if _, err := nilStore.Get(context.Background(), "x"); err == nil || errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("a nil Store's Get: %v", err)
	}
}

// TestTaskOnlyToolInASession: a 2025-06-18 session's client cannot run a
// task (tasks came with 2025-11-25: session_test.go), so a task-only
// tool answers it with an error that says where it runs, and tools/list
// does not advertise a task support it could not honour.
func TestTaskOnlyToolInASession(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	session := ""
	send := func(body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set(runtime.HeaderProtocolVersion, "2025-06-18")
		}
		status, raw, h := do(t, req)
		if id := h.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		return status, raw
	}
	if status, raw := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`); status != http.StatusOK || session == "" {
		t.Fatalf("initialize: HTTP %d %s", status, raw)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, raw := send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(string(raw), `"approve"`) || strings.Contains(string(raw), "taskSupport") || strings.Contains(string(raw), "execution") {
		t.Errorf("tools/list in a session: %s", raw)
	}
	status, raw := send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"approve","arguments":{}}}`)
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("tools/call: %s: %v", raw, err)
	}
	wantError(t, "a task-only tool in a session", status, r, http.StatusOK, runtime.CodeInvalidParams, "runs only as a task", "2026-07-28", runtime.ExtensionTasks)
	status, raw = send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"plain","arguments":{}}}`)
	if status != http.StatusOK || !strings.Contains(string(raw), `"text":"plain"`) {
		t.Fatalf("an optional tool in a session: HTTP %d %s", status, raw)
	}
}
