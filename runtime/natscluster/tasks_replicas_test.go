package natscluster_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// replicaEnv makes the test binary a replica serving tasks on the NATS
// server it names ("URL NAME"; see runTaskReplica): the processes
// TestTaskSurvivesKilledReplica starts and kills.
const replicaEnv = "ELICIT_NATS_TASK_REPLICA"

func TestMain(m *testing.M) {
	if v := os.Getenv(replicaEnv); v != "" {
		os.Exit(runTaskReplica(v))
	}
	os.Exit(m.Run())
}

// taskPoll is the replicas' Options.Tasks.PollInterval.
const taskPoll = 50 * time.Millisecond

// runTaskReplica serves the approve tool as a task on a Cluster's
// TaskStore, prints its URL, and runs until its stdin closes (or it is
// killed).
func runTaskReplica(v string) int {
	natsURL, name, _ := strings.Cut(v, " ")
	nc, err := nats.Connect(natsURL, nats.Name(name))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: name})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := runtime.NewServer(runtime.Options{Cluster: cl, Tasks: runtime.TaskOptions{Store: cl.TaskStore(), PollInterval: taskPoll}})
	srv.AddTool(runtime.Tool{Name: "approve", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		got, err := runtime.ElicitSchema(ctx, "Who approves the deploy?", askSchema)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("deployed, approved by %v", got["name"])), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := runtime.NewHTTPServer("", srv)
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx)
	_ = hs.Shutdown(ctx)
	_ = cl.Close()
	nc.Close()
	return 0
}

// startTaskReplica starts a replica process and returns it and its URL.
func startTaskReplica(t *testing.T, natsURL, name string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), replicaEnv+"="+natsURL+" "+name)
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
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("replica %s said nothing: %v", name, err)
	}
	return cmd, strings.TrimSpace(line)
}

// taskReply is what the tests read of a 2026-07-28 reply about a task.
type taskReply struct {
	Result struct {
		ResultType    string                     `json:"resultType"`
		TaskID        string                     `json:"taskId"`
		Status        runtime.TaskStatus         `json:"status"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		Result        *runtime.CallToolResult    `json:"result"`
	} `json:"result"`
	Error *runtime.RPCError `json:"error"`
}

// postTask sends a 2026-07-28 request from a client with the tasks
// extension; name is the Mcp-Name header.
func postTask(t *testing.T, url, method, name, params string) taskReply {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, method, params)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(runtime.HeaderMethod, method)
	req.Header.Set(runtime.HeaderName, name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r taskReply
	if err := json.Unmarshal(raw, &r); err != nil || resp.StatusCode != http.StatusOK || r.Error != nil {
		t.Fatalf("%s: HTTP %d %s (%v)", method, resp.StatusCode, raw, err)
	}
	return r
}

// pollTaskOn polls tasks/get on url until the task has the status.
func pollTaskOn(t *testing.T, url, id string, want runtime.TaskStatus) taskReply {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := postTask(t, url, "tasks/get", id, `"taskId":"`+id+`"`)
		if r.Result.Status == want {
			return r
		}
		if r.Result.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("task %s is %s (%+v), want %s", id, r.Result.Status, r.Result, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTaskSurvivesKilledReplica is the must-show of tasks across
// replicas: three replica processes share NATS. A task starts on the
// first, whose handler elicits; the first is killed (SIGKILL) while the
// task waits for the person; the second shows the question and takes the
// answer, runs the handler again with it, and the third gives the result.
func TestTaskSurvivesKilledReplica(t *testing.T) {
	ns := startNATS(t)
	first, url1 := startTaskReplica(t, ns.ClientURL(), "k1")
	_, url2 := startTaskReplica(t, ns.ClientURL(), "k2")
	_, url3 := startTaskReplica(t, ns.ClientURL(), "k3")

	started := postTask(t, url1, "tools/call", "approve", `"name":"approve","arguments":{}`)
	if started.Result.ResultType != "task" || started.Result.TaskID == "" {
		t.Fatalf("tools/call: %+v, want a task", started.Result)
	}
	id := started.Result.TaskID
	pollTaskOn(t, url1, id, runtime.TaskInputRequired)

	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()

	waiting := pollTaskOn(t, url2, id, runtime.TaskInputRequired)
	var key string
	for k := range waiting.Result.InputRequests {
		key = k
	}
	if len(waiting.Result.InputRequests) != 1 || !strings.Contains(string(waiting.Result.InputRequests[key]), "Who approves the deploy?") {
		t.Fatalf("inputRequests on another replica: %v", waiting.Result.InputRequests)
	}
	postTask(t, url2, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"`+key+`":{"action":"accept","content":{"name":"ada"}}}`)
	done := pollTaskOn(t, url3, id, runtime.TaskCompleted)
	if done.Result.Result == nil || len(done.Result.Result.Content) != 1 || done.Result.Result.Content[0].Text != "deployed, approved by ada" {
		t.Fatalf("the result on a third replica: %+v", done.Result.Result)
	}
}
