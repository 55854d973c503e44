package taskstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// The 2025-11-25 tasks (SEP-1686) of a session over Streamable HTTP: raw
// JSON-RPC on loopback, the task's elicitation on its tasks/result stream.

// sessionMsg is one JSON-RPC message a session client reads.
type sessionMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta    map[string]json.RawMessage `json:"_meta"`
		Message string                     `json:"message"`
	} `json:"params"`
	Result json.RawMessage   `json:"result"`
	Error  *runtime.RPCError `json:"error"`
}

// sessionTask is a 2025-11-25 Task object.
type sessionTask struct {
	taskFields
	TTL          *int64 `json:"ttl"`
	PollInterval int64  `json:"pollInterval"`
}

// sessionClient is a 2025-11-25 session on a server's URL.
type sessionClient struct {
	t   *testing.T
	url string
	id  string
	n   int
}

// openSession initializes a session with the capabilities.
func openSession(t *testing.T, url, version, caps string) (*sessionClient, map[string]json.RawMessage) {
	t.Helper()
	c := &sessionClient{t: t, url: url}
	msgs, status := c.send(`"initialize"`, `{"protocolVersion":"`+version+`","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}`)
	if status != http.StatusOK || c.id == "" || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("initialize: HTTP %d %+v", status, msgs)
	}
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(msgs[0].Result, &init); err != nil {
		t.Fatal(err)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c, init.Capabilities
}

// post sends body in the session and returns the response.
func (c *sessionClient) post(body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.id != "" {
		req.Header.Set("Mcp-Session-Id", c.id)
		req.Header.Set(runtime.HeaderProtocolVersion, "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.id = id
	}
	return resp
}

// send sends a request and reads every message of its reply.
func (c *sessionClient) send(method, params string) ([]sessionMsg, int) {
	c.t.Helper()
	c.n++
	resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}`, c.n, method, params))
	defer resp.Body.Close()
	var msgs []sessionMsg
	for m := range readMessages(resp) {
		msgs = append(msgs, m)
	}
	return msgs, resp.StatusCode
}

// call is send of a request answered by one response: its result into v,
// or its error.
func (c *sessionClient) call(method, params string, v any) *runtime.RPCError {
	c.t.Helper()
	msgs, status := c.send(`"`+method+`"`, params)
	if status != http.StatusOK || len(msgs) != 1 {
		c.t.Fatalf("%s: HTTP %d, %+v", method, status, msgs)
	}
	if msgs[0].Error != nil {
		return msgs[0].Error
	}
	if err := json.Unmarshal(msgs[0].Result, v); err != nil {
		c.t.Fatalf("%s: result %s: %v", method, msgs[0].Result, err)
	}
	return nil
}

// readMessages reads the messages of a reply, JSON or SSE, as they come.
func readMessages(resp *http.Response) <-chan sessionMsg {
	out := make(chan sessionMsg, 16)
	go func() {
		defer close(out)
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var m sessionMsg
			if json.NewDecoder(resp.Body).Decode(&m) == nil {
				out <- m
			}
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			var m sessionMsg
			if ok && json.Unmarshal([]byte(data), &m) == nil {
				out <- m
			}
		}
	}()
	return out
}

// sessionCaps are a 2025-11-25 client's: form elicitation and tasks.
const sessionCaps = `{"elicitation":{"form":{}},"tasks":{"list":{},"cancel":{},"requests":{"elicitation":{"create":{}}}}}`

// startSessionTask calls tool with params.task and returns the task.
func (c *sessionClient) startSessionTask(tool string) sessionTask {
	c.t.Helper()
	var created struct {
		Task sessionTask `json:"task"`
	}
	if err := c.call("tools/call", `{"name":"`+tool+`","arguments":{},"task":{"ttl":60000}}`, &created); err != nil {
		c.t.Fatalf("tools/call %s as a task: %v", tool, err)
	}
	task := created.Task
	if task.TaskID == "" || task.Status != runtime.TaskWorking || task.TTL == nil || *task.TTL != 60000 || task.PollInterval <= 0 {
		c.t.Fatalf("tools/call %s: task %+v", tool, task)
	}
	for _, ts := range []string{task.CreatedAt, task.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			c.t.Errorf("timestamp %q is not ISO 8601: %v", ts, err)
		}
	}
	return task
}

// getSessionTask is tasks/get.
func (c *sessionClient) getSessionTask(id string) sessionTask {
	c.t.Helper()
	var task sessionTask
	if err := c.call("tasks/get", `{"taskId":"`+id+`"}`, &task); err != nil || task.TaskID != id {
		c.t.Fatalf("tasks/get %s: %+v, %v", id, task, err)
	}
	return task
}

// pollSessionTask polls tasks/get until the task has the status.
func (c *sessionClient) pollSessionTask(id string, want runtime.TaskStatus) sessionTask {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		task := c.getSessionTask(id)
		if task.Status == want {
			return task
		}
		if task.Status.Terminal() || time.Now().After(deadline) {
			c.t.Fatalf("task %s is %s, want %s", id, task.Status, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// relatedTask is the task id of a _meta's related-task.
func relatedTask(meta map[string]json.RawMessage) string {
	var rt struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(meta["io.modelcontextprotocol/related-task"], &rt)
	return rt.TaskID
}

// wantCode checks that err is the JSON-RPC error code saying each part.
func wantCode(t *testing.T, what string, err *runtime.RPCError, code int, parts ...string) {
	t.Helper()
	if err == nil || err.Code != code {
		t.Fatalf("%s: error %v, want code %d", what, err, code)
	}
	for _, p := range parts {
		if !strings.Contains(err.Message, p) {
			t.Errorf("%s: error %q does not say %q", what, err.Message, p)
		}
	}
}

// TestSessionTaskElicits: a task-augmented tools/call in a 2025-11-25
// session is a task at once; its handler's Elicit makes it
// input_required and goes out on the tasks/result stream with the
// related-task _meta; answered by a POST, the task works again, completes,
// and the same stream ends with the tool's result. initialize declares the
// tasks capabilities, tools/list each tool's execution.taskSupport, and
// tasks/list the session's tasks.
func TestSessionTaskElicits(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 20 * time.Millisecond})
	c, caps := openSession(t, url, "2025-11-25", sessionCaps)
	var tasksCap struct {
		List, Cancel *struct{}
		Requests     struct {
			Tools struct {
				Call *struct{} `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(caps["tasks"], &tasksCap); err != nil || tasksCap.List == nil || tasksCap.Cancel == nil || tasksCap.Requests.Tools.Call == nil {
		t.Fatalf("initialize's tasks capability: %s (%v)", caps["tasks"], err)
	}
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if err := c.call("tools/list", `{}`, &list); err != nil {
		t.Fatal(err)
	}
	support := map[string]string{}
	for _, tl := range list.Tools {
		if tl.Execution != nil {
			support[tl.Name] = tl.Execution.TaskSupport
		}
	}
	if support["approve"] != "required" || support["plain"] != "optional" {
		t.Errorf("tools/list's execution.taskSupport: %v", support)
	}

	task := c.startSessionTask("approve")
	c.pollSessionTask(task.TaskID, runtime.TaskInputRequired)

	resp := c.post(`{"jsonrpc":"2.0","id":"r1","method":"tasks/result","params":{"taskId":"` + task.TaskID + `"}}`)
	defer resp.Body.Close()
	msgs := readMessages(resp)
	ask := <-msgs
	if ask.Method != "elicitation/create" || ask.Params.Message != "Who approves the deploy?" || relatedTask(ask.Params.Meta) != task.TaskID {
		t.Fatalf("the tasks/result stream's first message: %+v", ask)
	}
	answer := c.post(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"name":"ada"}}}`)
	answer.Body.Close()
	if answer.StatusCode != http.StatusAccepted {
		t.Fatalf("the answer: HTTP %d", answer.StatusCode)
	}
	final := <-msgs
	var res struct {
		Content []runtime.Content          `json:"content"`
		Meta    map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(final.Result, &res); err != nil || string(final.ID) != `"r1"` || len(res.Content) != 1 || res.Content[0].Text != "deployed, approved by ada" || relatedTask(res.Meta) != task.TaskID {
		t.Fatalf("tasks/result: %+v (%v)", final, err)
	}
	if done := c.getSessionTask(task.TaskID); done.Status != runtime.TaskCompleted {
		t.Errorf("after the result: %+v", done)
	}
	// Once ended, tasks/result answers at once, again.
	var again struct {
		Content []runtime.Content `json:"content"`
	}
	if err := c.call("tasks/result", `{"taskId":"`+task.TaskID+`"}`, &again); err != nil || len(again.Content) != 1 {
		t.Errorf("tasks/result of an ended task: %+v, %v", again, err)
	}

	// An optional tool without params.task runs as a normal call.
	var plain struct {
		Content []runtime.Content `json:"content"`
	}
	if err := c.call("tools/call", `{"name":"plain","arguments":{}}`, &plain); err != nil || len(plain.Content) != 1 || plain.Content[0].Text != "plain" {
		t.Errorf("an optional tool without a task: %+v, %v", plain, err)
	}
	// An isError result fails its task (2025-11-25), tasks/result gives it.
	failed := c.startSessionTask("toolerr")
	var toolErr struct {
		IsError bool                       `json:"isError"`
		Meta    map[string]json.RawMessage `json:"_meta"`
	}
	if err := c.call("tasks/result", `{"taskId":"`+failed.TaskID+`"}`, &toolErr); err != nil || !toolErr.IsError || relatedTask(toolErr.Meta) != failed.TaskID {
		t.Errorf("tasks/result of an isError task: %+v, %v", toolErr, err)
	}
	if got := c.getSessionTask(failed.TaskID); got.Status != runtime.TaskFailed {
		t.Errorf("an isError task: %+v", got)
	}
	var rpcFail struct{}
	rf := c.startSessionTask("rpcfail")
	wantCode(t, "tasks/result of a task whose handler failed", c.call("tasks/result", `{"taskId":"`+rf.TaskID+`"}`, &rpcFail), runtime.CodeInternalError, "the backend is down")

	var listed struct {
		Tasks      []sessionTask `json:"tasks"`
		NextCursor *string       `json:"nextCursor"`
	}
	if err := c.call("tasks/list", `{}`, &listed); err != nil || len(listed.Tasks) != 3 || listed.NextCursor != nil {
		t.Fatalf("tasks/list: %+v, %v", listed, err)
	}
	for i, id := range []string{task.TaskID, failed.TaskID, rf.TaskID} {
		if listed.Tasks[i].TaskID != id || !listed.Tasks[i].Status.Terminal() {
			t.Errorf("tasks/list[%d]: %+v, want task %s ended", i, listed.Tasks[i], id)
		}
	}
}

// TestSessionTaskListPages: tasks/list gives a session's tasks a page at
// a time, with an opaque cursor; a cursor it did not give is -32602.
func TestSessionTaskListPages(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	want := map[string]bool{}
	for range 55 {
		want[c.startSessionTask("plain").TaskID] = true
	}
	seen := map[string]bool{}
	cursor := ""
	for pages := 0; ; pages++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		var page struct {
			Tasks      []sessionTask `json:"tasks"`
			NextCursor string        `json:"nextCursor"`
		}
		if err := c.call("tasks/list", params, &page); err != nil || pages > 2 {
			t.Fatalf("tasks/list page %d: %v", pages, err)
		}
		for _, task := range page.Tasks {
			seen[task.TaskID] = true
		}
		if cursor = page.NextCursor; cursor == "" {
			if pages != 1 {
				t.Errorf("55 tasks came in %d pages, want 2", pages+1)
			}
			break
		}
	}
	if len(seen) != len(want) {
		t.Errorf("tasks/list gave %d tasks, want %d", len(seen), len(want))
	}
	wantCode(t, "a cursor tasks/list did not give", c.call("tasks/list", `{"cursor":"nope"}`, &struct{}{}), runtime.CodeInvalidParams, "cursor")
}

// handlerEnded waits for the wait tool's handler to see its context end,
// with a cause, by what.
func handlerEnded(t *testing.T, ended <-chan error, what string) {
	t.Helper()
	select {
	case cause := <-ended:
		if cause == nil {
			t.Error("the handler's context ended without a cause")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not reach the task's handler", what)
	}
}

// TestSessionTaskCancelReachesHandler: tasks/cancel stores cancelled and
// ends the handler's context; tasks/result then says so, and a second
// cancel of the ended task is -32602.
func TestSessionTaskCancelReachesHandler(t *testing.T) {
	url, ended := startServer(t, runtime.TaskOptions{})
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	task := c.startSessionTask("wait")
	var cancelled sessionTask
	if err := c.call("tasks/cancel", `{"taskId":"`+task.TaskID+`"}`, &cancelled); err != nil || cancelled.Status != runtime.TaskCancelled {
		t.Fatalf("tasks/cancel: %+v, %v", cancelled, err)
	}
	handlerEnded(t, ended, "tasks/cancel")
	wantCode(t, "tasks/result of a cancelled task", c.call("tasks/result", `{"taskId":"`+task.TaskID+`"}`, &struct{}{}), runtime.CodeInternalError, "cancelled")
	wantCode(t, "tasks/cancel of an ended task", c.call("tasks/cancel", `{"taskId":"`+task.TaskID+`"}`, &struct{}{}), runtime.CodeInvalidParams, "ended")
}

// TestSessionTaskBadInput: unknown tasks, another session's, a 2026-07-28
// caller's view of a session's task, params.task on a tool that forbids
// tasks, a task-only tool called without it, and a session on a protocol
// without tasks.
func TestSessionTaskBadInput(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{}, func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "notask"}, func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			return runtime.TextResult("ran"), nil
		})
	})
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	other, _ := openSession(t, url, "2025-11-25", sessionCaps)
	task := c.startSessionTask("plain")
	var v struct{}
	for _, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		wantCode(t, m+" of an unknown task", c.call(m, `{"taskId":"nope"}`, &v), runtime.CodeInvalidParams, "unknown task")
		wantCode(t, m+" of another session's task", other.call(m, `{"taskId":"`+task.TaskID+`"}`, &v), runtime.CodeInvalidParams, "unknown task")
		wantCode(t, m+" without a taskId", c.call(m, `{}`, &v), runtime.CodeInvalidParams, "taskId")
	}
	status, r := post(t, url, "tasks/get", task.TaskID, `"taskId":"`+task.TaskID+`"`, tasksCaps)
	wantError(t, "a 2026-07-28 tasks/get of a session's task", status, r, http.StatusOK, runtime.CodeInvalidParams, "unknown task")
	wantCode(t, "params.task on a tool that forbids tasks", c.call("tools/call", `{"name":"notask","arguments":{},"task":{}}`, &v), runtime.CodeMethodNotFound, "notask", "params.task")
	wantCode(t, "a task-only tool without params.task", c.call("tools/call", `{"name":"approve","arguments":{}}`, &v), runtime.CodeMethodNotFound, "approve", "params.task")
	wantCode(t, "a params.task that is not an object", c.call("tools/call", `{"name":"plain","arguments":{},"task":7}`, &v), runtime.CodeInvalidParams, "params.task")

	old, caps := openSession(t, url, "2025-06-18", `{"elicitation":{}}`)
	if _, ok := caps["tasks"]; ok {
		t.Errorf("a 2025-06-18 session was told tasks: %s", caps["tasks"])
	}
	wantCode(t, "tasks/get on 2025-06-18", old.call("tasks/get", `{"taskId":"`+task.TaskID+`"}`, &v), runtime.CodeMethodNotFound, "2025-11-25")
	var ran struct {
		Content []runtime.Content `json:"content"`
	}
	if err := old.call("tools/call", `{"name":"plain","arguments":{},"task":{}}`, &ran); err != nil || len(ran.Content) != 1 {
		t.Errorf("params.task on 2025-06-18 (no tasks there: a normal call): %+v, %v", ran, err)
	}
}

// TestSessionTaskShutdown: Shutdown while a task waits for its answer on
// an open tasks/result stream: the elicitation returns
// ErrServerShutdown, the task fails, and the stream ends with what the
// handler made of it (an isError result).
func TestSessionTaskShutdown(t *testing.T) {
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	t.Cleanup(func() { _ = store.Close() })
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store}})
	asked := make(chan error, 1)
	srv.AddTool(runtime.Tool{Name: "ask", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		_, err := runtime.ElicitSchema(ctx, "Who?", approveSchema)
		asked <- err
		return nil, err
	})
	url := serve(t, srv)
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	task := c.startSessionTask("ask")
	resp := c.post(`{"jsonrpc":"2.0","id":"r","method":"tasks/result","params":{"taskId":"` + task.TaskID + `"}}`)
	defer resp.Body.Close()
	msgs := readMessages(resp)
	if ask := <-msgs; ask.Method != "elicitation/create" {
		t.Fatalf("the stream's first message: %+v", ask)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-asked; !errors.Is(err, runtime.ErrServerShutdown) {
		t.Errorf("the elicitation returned %v, want ErrServerShutdown", err)
	}
	final := <-msgs
	if string(final.ID) != `"r"` || !strings.Contains(string(final.Result), `"isError":true`) {
		t.Fatalf("tasks/result after Shutdown: %+v", final)
	}
	got, err := store.Get(context.Background(), task.TaskID)
	if err != nil || got.Status != runtime.TaskFailed {
		t.Fatalf("the stored task after Shutdown: %+v, %v", got, err)
	}
}

// sessionServer serves the task tools over a store of its own, which it
// returns with the server, for tests that look into the store.
func sessionServer(t *testing.T) (*runtime.Server, string, runtime.TaskStore, <-chan error) {
	t.Helper()
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	t.Cleanup(func() { _ = store.Close() })
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}})
	ended := addTaskTools(srv)
	return srv, serve(t, srv), store, ended
}

// storedStatus polls the store until the task has the status.
func storedStatus(t *testing.T, store runtime.TaskStore, id string, want runtime.TaskStatus) *runtime.Task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := store.Get(context.Background(), id)
		if err == nil && got.Status == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stored task %s: %+v, %v; want %s", id, got, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionTaskEndsWithItsSession: deleting the session cancels its
// running task's handler, and the task fails; a run still going at
// Shutdown's deadline fails too.
func TestSessionTaskEndsWithItsSession(t *testing.T) {
	srv, url, store, ended := sessionServer(t)
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	task := c.startSessionTask("wait")
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", c.id)
	req.Header.Set(runtime.HeaderProtocolVersion, "2025-11-25")
	if status, raw, _ := do(t, req); status != http.StatusOK && status != http.StatusNoContent {
		t.Fatalf("DELETE: HTTP %d %s", status, raw)
	}
	handlerEnded(t, ended, "the session's end")
	if got := storedStatus(t, store, task.TaskID, runtime.TaskFailed); !strings.Contains(got.StatusMessage, "session") {
		t.Errorf("the failed task says %q, not that its session ended", got.StatusMessage)
	}

	d, _ := openSession(t, url, "2025-11-25", sessionCaps)
	running := d.startSessionTask("wait")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a task running: %v, want its deadline", err)
	}
	storedStatus(t, store, running.TaskID, runtime.TaskFailed)
}

// TestSessionTaskOrphanFails: a task whose process died while it waited
// for input (its record input_required, its lease lapsed, no run here) is
// failed on tasks/get, as its question died with the process.
func TestSessionTaskOrphanFails(t *testing.T) {
	_, url, store, _ := sessionServer(t)
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	now := time.Now().UTC().Truncate(time.Millisecond)
	dead := &runtime.Task{
		ID: "0123456789abcdef0123456789abcdef", Status: runtime.TaskInputRequired,
		CreatedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-time.Minute), ExpiresAt: now.Add(time.Hour), Lease: now.Add(-time.Second),
		Request: json.RawMessage(`{"tool":"approve","arguments":{},"version":"2025-11-25","capabilities":{},"session":"` + c.id + `"}`),
	}
	if err := store.Create(context.Background(), dead, 100); err != nil {
		t.Fatal(err)
	}
	got := c.getSessionTask(dead.ID)
	if got.Status != runtime.TaskFailed || !strings.Contains(got.StatusMessage, "stopped") {
		t.Fatalf("an orphaned input_required task: %+v", got)
	}
	wantCode(t, "tasks/result of the orphan", c.call("tasks/result", `{"taskId":"`+dead.ID+`"}`, &struct{}{}), runtime.CodeInternalError, "stopped")
}

// TestSessionTaskTTL: params.task.ttl shortens the task's life, never
// beyond TaskOptions.TTL; past it tasks/get finds no task and tasks/list
// no longer lists it.
func TestSessionTaskTTL(t *testing.T) {
	_, url, _, _ := sessionServer(t)
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	var created struct {
		Task sessionTask `json:"task"`
	}
	if err := c.call("tools/call", `{"name":"plain","arguments":{},"task":{"ttl":100}}`, &created); err != nil || created.Task.TTL == nil || *created.Task.TTL != 100 {
		t.Fatalf("a task with ttl 100: %+v, %v", created, err)
	}
	var long struct {
		Task sessionTask `json:"task"`
	}
	if err := c.call("tools/call", `{"name":"plain","arguments":{},"task":{"ttl":172800000}}`, &long); err != nil || long.Task.TTL == nil || *long.Task.TTL != runtime.DefaultTaskTTL.Milliseconds() {
		t.Errorf("a ttl beyond TaskOptions.TTL: %+v, %v; want the TTL", long, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.call("tasks/get", `{"taskId":"`+created.Task.TaskID+`"}`, &struct{}{})
		if err != nil {
			wantCode(t, "tasks/get past the TTL", err, runtime.CodeInvalidParams, "unknown task")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task outlived its ttl")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var listed struct {
		Tasks []sessionTask `json:"tasks"`
	}
	if err := c.call("tasks/list", `{}`, &listed); err != nil || len(listed.Tasks) != 1 || listed.Tasks[0].TaskID != long.Task.TaskID {
		t.Errorf("tasks/list past the short TTL: %+v, %v; want only the long task", listed, err)
	}
}

// TestSessionTaskOverStdio: the same task over stdio: the elicitation is a
// line of the tasks/result request, the answer a line back, and the
// tasks/result response the line after.
func TestSessionTaskOverStdio(t *testing.T) {
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	t.Cleanup(func() { _ = store.Close() })
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}})
	addTaskTools(srv)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan sessionMsg, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m sessionMsg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	defer func() {
		inW.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
		for range lines {
		}
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() sessionMsg {
		t.Helper()
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10s")
			return sessionMsg{}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + sessionCaps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	if m := next(); !strings.Contains(string(m.Result), `"tasks"`) {
		t.Fatalf("initialize over stdio: %s", m.Result)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"approve","arguments":{},"task":{}}}`)
	var created struct {
		Task sessionTask `json:"task"`
	}
	if m := next(); json.Unmarshal(m.Result, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("tools/call as a task over stdio: %+v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + created.Task.TaskID + `"}}`)
	ask := next()
	if ask.Method != "elicitation/create" || relatedTask(ask.Params.Meta) != created.Task.TaskID {
		t.Fatalf("the task's elicitation over stdio: %+v", ask)
	}
	send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"name":"lin"}}}`)
	final := next()
	if string(final.ID) != "2" || !strings.Contains(string(final.Result), "deployed, approved by lin") {
		t.Fatalf("tasks/result over stdio: %+v", final)
	}
}

// TestSessionTaskStreamAgain: the task's log notification waits for a
// tasks/result stream and goes out on it once; a client that drops that
// stream without answering gets the unanswered question again on its next
// tasks/result, and answers it there.
func TestSessionTaskStreamAgain(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{}, func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "logask", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			if err := req.Log("info", "deploy", "starting"); err != nil {
				return nil, err
			}
			got, err := runtime.ElicitSchema(ctx, "Who approves the deploy?", approveSchema)
			if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("approved by %v", got["name"])), nil
		})
	})
	c, _ := openSession(t, url, "2025-11-25", sessionCaps)
	task := c.startSessionTask("logask")
	c.pollSessionTask(task.TaskID, runtime.TaskInputRequired)
	result := `{"jsonrpc":"2.0","id":"r","method":"tasks/result","params":{"taskId":"` + task.TaskID + `"}}`

	first := c.post(result)
	msgs := readMessages(first)
	logged, asked := <-msgs, <-msgs
	first.Body.Close() // gone without answering
	for range msgs {
	}
	if logged.Method != "notifications/message" || relatedTask(logged.Params.Meta) != task.TaskID || asked.Method != "elicitation/create" {
		t.Fatalf("the first stream: %+v then %+v", logged, asked)
	}
	if got := c.getSessionTask(task.TaskID); got.Status != runtime.TaskInputRequired {
		t.Fatalf("after the dropped stream: %+v", got)
	}

	second := c.post(result)
	defer second.Body.Close()
	msgs = readMessages(second)
	again := <-msgs
	if again.Method != "elicitation/create" || string(again.ID) != string(asked.ID) {
		t.Fatalf("the second stream's first message: %+v, want the question %s again (and no log)", again, asked.ID)
	}
	answer := c.post(`{"jsonrpc":"2.0","id":` + string(again.ID) + `,"result":{"action":"accept","content":{"name":"bo"}}}`)
	answer.Body.Close()
	if final := <-msgs; !strings.Contains(string(final.Result), "approved by bo") {
		t.Fatalf("tasks/result on the second stream: %+v", final)
	}
}
