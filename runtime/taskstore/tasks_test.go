package taskstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
	"go.uber.org/goleak"
)

// childEnv makes the test binary a child server on the store file it names
// (see runChild): the process TestTaskSurvivesKilledServer kills.
const childEnv = "ELICIT_TASKSTORE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(runChild(path))
	}
	code := m.Run()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(
			goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// approveSchema is the form the approve tool asks.
var approveSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"name": map[string]any{"type": "string", "minLength": 1}},
	"required":   []any{"name"},
}

// addTaskTools registers the tools the tests call as tasks: approve asks
// once; approvewait asks once, then runs until its context ends; twice asks two questions in turn; wait runs until its context ends
// and sends why on the channel it returns; big returns more than a small
// task may store; rpcfail fails with a JSON-RPC error; toolerr returns an
// error (an isError result); plain, an optional one, answers at once.
func addTaskTools(srv *runtime.Server) <-chan error {
	ended := make(chan error, 16)
	required := runtime.TaskRequired
	srv.AddTool(runtime.Tool{Name: "approve", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		got, err := runtime.ElicitSchema(ctx, "Who approves the deploy?", approveSchema)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("deployed, approved by %v", got["name"])), nil
	})
	srv.AddTool(runtime.Tool{Name: "twice", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		first, err := runtime.ElicitSchema(ctx, "First approver?", approveSchema)
		if err != nil {
			return nil, err
		}
		second, err := runtime.ElicitSchema(ctx, "Second approver?", approveSchema)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("%v and %v", first["name"], second["name"])), nil
	})
	srv.AddTool(runtime.Tool{Name: "wait", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		<-ctx.Done()
		select {
		case ended <- context.Cause(ctx):
		default:
		}
		return nil, ctx.Err()
	})
	srv.AddTool(runtime.Tool{Name: "approvewait", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		if _, err := runtime.ElicitSchema(ctx, "Who approves the deploy?", approveSchema); err != nil {
			return nil, err
		}
		<-ctx.Done() // deploying
		return nil, ctx.Err()
	})
	srv.AddTool(runtime.Tool{Name: "big", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return runtime.TextResult(strings.Repeat("x", 4096)), nil
	})
	srv.AddTool(runtime.Tool{Name: "rpcfail", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: "the backend is down"}
	})
	srv.AddTool(runtime.Tool{Name: "toolerr", TaskSupport: required}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return nil, errors.New("disk full")
	})
	srv.AddTool(runtime.Tool{Name: "plain", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return runtime.TextResult("plain"), nil
	})
	return ended
}

// childPoll is the child server's poll interval: its runs' leases last
// ten of them.
const childPoll = 50 * time.Millisecond

// runChild serves the task tools on loopback over the store at path,
// prints its URL and serves until killed (or its stdin closes).
func runChild(path string) int {
	store, err := taskstore.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer store.Close()
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: childPoll}})
	addTaskTools(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := runtime.NewHTTPServer("", srv)
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startChild starts a child server on the store file and returns its URL.
func startChild(t *testing.T, path string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child server said nothing: %v", err)
	}
	return cmd, strings.TrimSpace(line)
}

// tasksCaps are the capabilities of a client with elicitation, roots and
// tasks.
const tasksCaps = `{"elicitation":{},"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// post sends a 2026-07-28 request and returns the HTTP status and the
// decoded response.
func post(t *testing.T, url, method, name, params, caps string) (int, response) {
	t.Helper()
	return postAs(t, url, "", method, name, params, caps)
}

// subjectHeader names the caller to the servers of startServer.
const subjectHeader = "X-Test-Subject"

// postAs is post by the caller subject ("" for none).
func postAs(t *testing.T, url, subject, method, name, params, caps string) (int, response) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	if params == "" {
		params = "{" + meta + "}"
	} else {
		params = "{" + params + "," + meta + "}"
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(runtime.HeaderMethod, method)
	if name != "" {
		req.Header.Set(runtime.HeaderName, name)
	}
	if subject != "" {
		req.Header.Set(subjectHeader, subject)
	}
	status, raw, _ := do(t, req)
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: response %q: %v", method, raw, err)
	}
	return status, r
}

// do sends req and returns the HTTP status, the body and the headers.
func do(t *testing.T, req *http.Request) (int, []byte, http.Header) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw, resp.Header
}

// taskFields are the fields a Task object has on both protocols.
type taskFields struct {
	TaskID        string             `json:"taskId"`
	Status        runtime.TaskStatus `json:"status"`
	StatusMessage string             `json:"statusMessage"`
	CreatedAt     string             `json:"createdAt"`
	LastUpdatedAt string             `json:"lastUpdatedAt"`
}

type response struct {
	Result struct {
		ResultType string `json:"resultType"`
		taskFields
		TTLMs          *int64                     `json:"ttlMs"`
		PollIntervalMs int64                      `json:"pollIntervalMs"`
		InputRequests  map[string]json.RawMessage `json:"inputRequests"`
		Result         *runtime.CallToolResult    `json:"result"`
		Error          *runtime.RPCError          `json:"error"`
		Content        []runtime.Content          `json:"content"`
		Capabilities   map[string]json.RawMessage `json:"capabilities"`
	} `json:"result"`
	Error *runtime.RPCError `json:"error"`
}

// startTask calls tool as a task and returns the task id; the handle
// must say pollIntervalMs.
func startTask(t *testing.T, url, tool string, pollMs int64) string {
	t.Helper()
	status, r := post(t, url, "tools/call", tool, `"name":"`+tool+`","arguments":{}`, tasksCaps)
	if status != http.StatusOK || r.Error != nil || r.Result.ResultType != "task" || r.Result.TaskID == "" || r.Result.Status != runtime.TaskWorking {
		t.Fatalf("tools/call %s: HTTP %d, %+v", tool, status, r)
	}
	if r.Result.TTLMs == nil || *r.Result.TTLMs <= 0 || r.Result.PollIntervalMs != pollMs {
		t.Errorf("the task handle's ttlMs %v, pollIntervalMs %d: want a TTL and %d", r.Result.TTLMs, r.Result.PollIntervalMs, pollMs)
	}
	for _, ts := range []string{r.Result.CreatedAt, r.Result.LastUpdatedAt} {
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("timestamp %q is not ISO 8601: %v", ts, err)
		}
	}
	return r.Result.TaskID
}

// getTask is tasks/get.
func getTask(t *testing.T, url, id string) response {
	t.Helper()
	status, r := post(t, url, "tasks/get", id, `"taskId":"`+id+`"`, tasksCaps)
	if status != http.StatusOK || r.Error != nil || r.Result.ResultType != "complete" || r.Result.TaskID != id {
		t.Fatalf("tasks/get %s: HTTP %d, %+v", id, status, r)
	}
	return r
}

// pollTask polls tasks/get until the task has the status, and none of
// the keys gone among its inputRequests.
func pollTask(t *testing.T, url, id string, want runtime.TaskStatus, gone ...string) response {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := getTask(t, url, id)
		if r.Result.Status == want && !slices.ContainsFunc(gone, func(k string) bool { _, ok := r.Result.InputRequests[k]; return ok }) {
			return r
		}
		if r.Result.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%+v), want %s", id, r.Result.Status, r.Result, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// updateTask is tasks/update; it checks the empty acknowledgement.
func updateTask(t *testing.T, url, id, responses string) {
	t.Helper()
	status, r := post(t, url, "tasks/update", id, `"taskId":"`+id+`","inputResponses":`+responses, tasksCaps)
	if status != http.StatusOK || r.Error != nil || r.Result.ResultType != "complete" {
		t.Fatalf("tasks/update %s: HTTP %d, %+v", id, status, r)
	}
}

// elicitMessage is the message of the elicitation/create request of an
// inputRequests entry.
func elicitMessage(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var req struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || req.Method != "elicitation/create" {
		t.Fatalf("input request %s: %v", raw, err)
	}
	return req.Params.Message
}

func resultText(t *testing.T, r response) string {
	t.Helper()
	if r.Result.Result == nil || len(r.Result.Result.Content) != 1 {
		t.Fatalf("completed task without a one-item result: %+v", r.Result)
	}
	return r.Result.Result.Content[0].Text
}

// TestTaskSurvivesKilledServer is the must-show of tasks: a task whose
// handler elicits waits for the person in the store, not in a process.
// The server process is killed (SIGKILL, no graceful stop) while the task
// is input_required; a new process on the same store file takes the
// answer (tasks/update), runs the handler again with it, and tasks/get
// gives the result.
func TestTaskSurvivesKilledServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	first, url := startChild(t, path)

	status, disc := post(t, url, "server/discover", "", "", tasksCaps)
	if status != http.StatusOK || !strings.Contains(string(disc.Result.Capabilities["extensions"]), `"io.modelcontextprotocol/tasks":{}`) {
		t.Fatalf("server/discover does not declare the tasks extension: HTTP %d, %+v", status, disc.Result.Capabilities)
	}
	id := startTask(t, url, "approve", childPoll.Milliseconds())
	waiting := pollTask(t, url, id, runtime.TaskInputRequired)
	if len(waiting.Result.InputRequests) != 1 || elicitMessage(t, waiting.Result.InputRequests["elicit"]) != "Who approves the deploy?" {
		t.Fatalf("input_required task's inputRequests: %v", waiting.Result.InputRequests)
	}

	if err := first.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	if err := first.Wait(); err == nil {
		t.Fatal("the killed server exited cleanly")
	}

	_, url = startChild(t, path)
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskInputRequired || len(r.Result.InputRequests) != 1 {
		t.Fatalf("after the restart the task is %s with %v, want input_required with its request", r.Result.Status, r.Result.InputRequests)
	}
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`)
	done := pollTask(t, url, id, runtime.TaskCompleted)
	if got := resultText(t, done); got != "deployed, approved by ada" {
		t.Fatalf("result %q", got)
	}
}

// TestKilledWorkingTaskFails: a task whose handler was running when its
// server was killed is not left working: once its run's lease lapses, the
// restarted server's tasks/get shows it failed, saying why (its handler is
// not run again, as it may have done part of its work).
func TestKilledWorkingTaskFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	first, url := startChild(t, path)
	id := startTask(t, url, "wait", childPoll.Milliseconds())
	time.Sleep(15 * childPoll) // longer than a lease: the run renews it
	if r := getTask(t, url, id); r.Result.Status != runtime.TaskWorking {
		t.Fatalf("a running task is %s (%v)", r.Result.Status, r.Result.Error)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	_, url = startChild(t, path)
	failed := pollTask(t, url, id, runtime.TaskFailed)
	if e := failed.Result.Error; e == nil || e.Code != runtime.CodeInternalError || !strings.Contains(e.Message, "stopped before its handler finished") || failed.Result.StatusMessage != e.Message {
		t.Fatalf("the orphaned task's error %+v, statusMessage %q", e, failed.Result.StatusMessage)
	}
}

// TestAcknowledgedAnswerIsStored: once tasks/update acknowledges an answer
// it is in the store file, also while the run it started has not ended
// when the server is killed.
func TestAcknowledgedAnswerIsStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	first, url := startChild(t, path)
	id := startTask(t, url, "approvewait", childPoll.Milliseconds())
	pollTask(t, url, id, runtime.TaskInputRequired)
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`)
	pollTask(t, url, id, runtime.TaskWorking)
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	store := openStore(t, path)
	task, err := store.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != runtime.TaskWorking || !strings.Contains(string(task.InputResponses), `"name":"ada"`) || len(task.State) == 0 {
		t.Fatalf("the killed run's task in the file: status %s, inputResponses %s, %d bytes of state", task.Status, task.InputResponses, len(task.State))
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
}
