package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// A tool opts into tasks with Tool.TaskSupport, on a server whose
// Options.Tasks has a store (runtime/taskstore keeps tasks in a file); its
// handler does not change. A 2026-07-28 client that declares the tasks
// extension gets a task handle, polls tasks/get, sees the elicitation in
// inputRequests, answers with tasks/update and reads the result.
func ExampleTaskSupport() {
	url, stop, err := serveTasks(func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "deploy", TaskSupport: runtime.TaskOptional}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			who, err := runtime.ElicitSchema(ctx, "Who approves the deploy?", map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
			})
			if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("deployed, approved by %v", who["name"])), nil
		})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	handle := taskCall(url, "tools/call", "deploy", `"name":"deploy","arguments":{}`)
	fmt.Println(handle["resultType"], handle["status"])
	id := handle["taskId"].(string)
	task := pollTask(url, id, "input_required")
	asked := task["inputRequests"].(map[string]any)["elicit"].(map[string]any)
	fmt.Println(asked["method"], asked["params"].(map[string]any)["message"])
	taskCall(url, "tasks/update", id, `"taskId":"`+id+`","inputResponses":{"elicit":{"action":"accept","content":{"name":"Ada"}}}`)
	task = pollTask(url, id, "completed")
	fmt.Println(task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// task working
	// elicitation/create Who approves the deploy?
	// deployed, approved by Ada
}

// serveTasks serves on loopback a server that keeps its tasks with
// runtime/taskstore in a temporary file, with the tools register adds;
// stop shuts it all down.
func serveTasks(register func(srv *runtime.Server)) (url string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "tasks")
	if err != nil {
		return "", nil, err
	}
	store, err := taskstore.Open(filepath.Join(dir, "tasks.db"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 20 * time.Millisecond}})
	register(srv)
	hs := httptest.NewServer(srv)
	return hs.URL, func() {
		_ = srv.Shutdown(context.Background())
		hs.Close()
		_ = store.Close()
		_ = os.RemoveAll(dir)
	}, nil
}

// taskCall sends a 2026-07-28 request from a client that declares the
// tasks extension, and returns its result.
func taskCall(url, method, name, params string) map[string]any {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `,"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"` + runtime.ExtensionTasks + `":{}}}}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(runtime.HeaderMethod, method)
	req.Header.Set(runtime.HeaderName, name) // the tool, or the task's id
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	defer resp.Body.Close()
	var out struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if out.Error != nil {
		return out.Error
	}
	return out.Result
}

// pollTask polls tasks/get until the task has the status (or 10 s pass).
func pollTask(url, id, status string) map[string]any {
	var task map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if task = taskCall(url, "tasks/get", id, `"taskId":"`+id+`"`); task["status"] == status {
			break
		}
	}
	return task
}

// A DeferTask tool asks through ordinary input_required rounds, before
// any task exists, and becomes a task when its handler calls
// ContinueAsTask: that round is answered with the task's handle, and the
// handler runs again in the task, where the answers so far are there
// without asking again.
func ExampleContinueAsTask() {
	url, stop, err := serveTasks(func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "report", TaskSupport: runtime.TaskOptional, DeferTask: true}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			quarter, err := runtime.ElicitSchema(ctx, "Which quarter?", map[string]any{
				"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"},
			})
			if err != nil {
				return nil, err
			}
			// Answered: the long part runs as a task.
			if err := runtime.ContinueAsTask(ctx); err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("report for %v", quarter["q"])), nil
		})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()

	first := taskCall(url, "tools/call", "report", `"name":"report","arguments":{}`)
	fmt.Println(first["resultType"], first["taskId"])
	state, _ := first["requestState"].(string)
	handle := taskCall(url, "tools/call", "report", `"name":"report","arguments":{},`+
		`"inputResponses":{"elicit":{"action":"accept","content":{"q":"Q3"}}},"requestState":"`+state+`"`)
	fmt.Println(handle["resultType"], handle["status"])
	task := pollTask(url, handle["taskId"].(string), "completed")
	fmt.Println(task["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// input_required <nil>
	// task working
	// report for Q3
}
