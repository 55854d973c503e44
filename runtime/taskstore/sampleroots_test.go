package taskstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// addSampleRootsTool registers "sampleroots", a task tool whose handler
// samples the client's model, then lists its roots: the requests of a
// handler other than Elicit, inside a task.
func addSampleRootsTool(srv *runtime.Server) {
	srv.AddTool(runtime.Tool{Name: "sampleroots", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		res, err := runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 50, Messages: []runtime.SamplingMessage{{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "Name a colour"}}}}})
		if err != nil {
			return nil, err
		}
		roots, err := runtime.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		if len(res.Content) != 1 || len(roots) != 1 {
			return nil, fmt.Errorf("sampled %d blocks, %d roots", len(res.Content), len(roots))
		}
		return runtime.TextResult(fmt.Sprintf("%s said %s; root %s", res.Model, res.Content[0].Text, roots[0].URI)), nil
	})
}

const (
	sampledAnswer = `{"role":"assistant","content":{"type":"text","text":"teal"},"model":"m1","stopReason":"endTurn"}`
	rootsAnswer   = `{"roots":[{"uri":"file:///srv","name":"srv"}]}`
	sampleRoots   = "m1 said teal; root file:///srv"
)

// TestTaskSamplesAndListsRoots: Sample and ListRoots work inside a task
// as Elicit does, on both task protocols, the handler unchanged: on
// 2026-07-28 each is an input request of the task, answered with
// tasks/update; on 2025-11-25 each comes on the task's tasks/result
// stream with the related-task _meta, answered as any request of the
// session.
func TestTaskSamplesAndListsRoots(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: 20 * time.Millisecond}, addSampleRootsTool)

	t.Run("2026-07-28", func(t *testing.T) {
		const caps = `{"sampling":{},"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
		status, created := post(t, url, "tools/call", "sampleroots", `"name":"sampleroots","arguments":{}`, caps)
		if status != http.StatusOK || created.Result.ResultType != "task" {
			t.Fatalf("tools/call: HTTP %d, %+v", status, created)
		}
		id := created.Result.TaskID
		for _, want := range []struct{ method, answer string }{{"sampling/createMessage", sampledAnswer}, {"roots/list", rootsAnswer}} {
			asked := pollTask(t, url, id, runtime.TaskInputRequired)
			if len(asked.Result.InputRequests) != 1 {
				t.Fatalf("inputRequests %v, want one %s", asked.Result.InputRequests, want.method)
			}
			for key, raw := range asked.Result.InputRequests {
				var req struct {
					Method string `json:"method"`
				}
				if json.Unmarshal(raw, &req) != nil || req.Method != want.method {
					t.Fatalf("inputRequests[%q] = %s, want a %s", key, raw, want.method)
				}
				updateTask(t, url, id, `{"`+key+`":`+want.answer+`}`)
			}
			waitLeaves(t, url, id, want.method)
		}
		if got := resultText(t, pollTask(t, url, id, runtime.TaskCompleted)); got != sampleRoots {
			t.Fatalf("result %q, want %q", got, sampleRoots)
		}
	})

	t.Run("2025-11-25", func(t *testing.T) {
		c, _ := openSession(t, url, "2025-11-25", `{"sampling":{},"roots":{},"tasks":{"requests":{"sampling":{"createMessage":{}}}}}`)
		task := c.startSessionTask("sampleroots")
		resp := c.post(`{"jsonrpc":"2.0","id":"r1","method":"tasks/result","params":{"taskId":"` + task.TaskID + `"}}`)
		defer resp.Body.Close()
		msgs := readMessages(resp)
		for _, want := range []struct{ method, answer string }{{"sampling/createMessage", sampledAnswer}, {"roots/list", rootsAnswer}} {
			m := <-msgs
			if m.Method != want.method || relatedTask(m.Params.Meta) != task.TaskID {
				t.Fatalf("the tasks/result stream's message: %+v, want a %s of task %s", m, want.method, task.TaskID)
			}
			answer := c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + want.answer + `}`)
			answer.Body.Close()
			if answer.StatusCode != http.StatusAccepted {
				t.Fatalf("the answer to %s: HTTP %d", want.method, answer.StatusCode)
			}
		}
		final := <-msgs
		var res struct {
			Content []runtime.Content `json:"content"`
		}
		if err := json.Unmarshal(final.Result, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != sampleRoots {
			t.Fatalf("tasks/result: %+v (%v)", final, err)
		}
	})
}

// waitLeaves polls the task until it no longer waits for a request of
// the method (its run took the answer).
func waitLeaves(t *testing.T, url, id, method string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r := getTask(t, url, id)
		waiting := false
		for _, raw := range r.Result.InputRequests {
			var req struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(raw, &req) == nil && req.Method == method {
				waiting = true
			}
		}
		if !waiting || r.Result.Status.Terminal() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("task %s still waits for its %s", id, method)
}
