package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

var whoSchema = map[string]any{
	"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
}

// deferServer is a server with a task store and the DeferTask tools:
// "sign" asks who signs and who witnesses, one round each, then continues
// as a task; "eager" calls ContinueAsTask while its question is still
// unanswered, and returns its error wrapped; "quick" never calls it;
// "plain" has no TaskSupport and calls it all the same. runs counts the
// handlers' runs, asks the Elicits that found no answer.
func deferServer(t *testing.T, support runtime.TaskSupport, runs, asks *atomic.Int32) *runtime.Server {
	t.Helper()
	store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 20 * time.Millisecond}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = store.Close()
	})
	ask := func(ctx context.Context, message string) (any, error) {
		got, err := runtime.ElicitSchema(ctx, message, whoSchema)
		if errors.Is(err, runtime.ErrInputRequired) {
			asks.Add(1)
		}
		return got["name"], err
	}
	srv.AddTool(runtime.Tool{Name: "sign", TaskSupport: support, DeferTask: true}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		runs.Add(1)
		if req.Round > 2 {
			return nil, fmt.Errorf("round %d: only two rounds were input_required", req.Round)
		}
		signer, err := ask(ctx, "Who signs?")
		if err != nil {
			return nil, err
		}
		witness, err := ask(ctx, "Who witnesses?")
		if err != nil {
			return nil, err
		}
		if err := runtime.ContinueAsTask(ctx); err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("signed by %v, witnessed by %v", signer, witness)), nil
	})
	srv.AddTool(runtime.Tool{Name: "eager", TaskSupport: support, DeferTask: true}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		runs.Add(1)
		signer, askErr := ask(ctx, "Who signs?")
		if err := runtime.ContinueAsTask(ctx); err != nil { // on round 1 too, with the question open
			return nil, fmt.Errorf("signing later: %w", err) // wrapped: the call becomes a task all the same
		}
		if askErr != nil {
			return nil, askErr
		}
		return runtime.TextResult(fmt.Sprintf("signed by %v", signer)), nil
	})
	srv.AddTool(runtime.Tool{Name: "quick", TaskSupport: support, DeferTask: true}, func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		runs.Add(1)
		return runtime.TextResult("quick"), nil
	})
	srv.AddTool(runtime.Tool{Name: "plain"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		runs.Add(1)
		if err := runtime.ContinueAsTask(ctx); err != nil {
			return nil, err
		}
		return runtime.TextResult("done"), nil
	})
	return srv
}

// TestContinueAsTask: a DeferTask tool's call from a client that declares
// the tasks extension asks through input_required rounds with no task
// (no taskId); the round whose handler calls ContinueAsTask, with nothing
// left unanswered, is answered with the task's handle (no requestState,
// no inputRequests); in the task the handler runs again, finds every
// answer of the rounds before (it asks nothing again: the task never
// goes input_required; its Round counts the input_required rounds only)
// and completes. A question asked in the round of
// ContinueAsTask and unanswered makes that round input_required.
func TestContinueAsTask(t *testing.T) {
	for _, tc := range []struct {
		tool, want string
		rounds     int // input_required rounds before the task
	}{
		{"sign", "signed by Ada, witnessed by Bob", 2},
		{"eager", "signed by Ada", 1},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var runs, asks atomic.Int32
			hs := httptest.NewServer(deferServer(t, runtime.TaskRequired, &runs, &asks))
			defer hs.Close()
			names := []string{"Ada", "Bob"}
			extra := ""
			var handle map[string]any
			for round := 0; ; round++ {
				res := taskCall(hs.URL, "tools/call", tc.tool, `"name":"`+tc.tool+`","arguments":{}`+extra)
				if res["resultType"] != "input_required" {
					if round != tc.rounds {
						t.Fatalf("round %d: %v, want input_required until round %d", round, res, tc.rounds)
					}
					handle = res
					break
				}
				if round == tc.rounds {
					t.Fatalf("round %d is input_required, want the task's handle: %v", round, res)
				}
				if _, ok := res["taskId"]; ok {
					t.Fatalf("round %d: input_required with a taskId: %v", round, res)
				}
				requests, _ := res["inputRequests"].(map[string]any)
				state, _ := res["requestState"].(string)
				if len(requests) != 1 || state == "" {
					t.Fatalf("round %d: inputRequests %v, requestState %q", round, requests, state)
				}
				responses := map[string]any{}
				for key := range requests {
					responses[key] = map[string]any{"action": "accept", "content": map[string]any{"name": names[round]}}
				}
				raw, _ := json.Marshal(responses)
				extra = `,"inputResponses":` + string(raw) + `,"requestState":"` + state + `"`
			}
			if handle["resultType"] != "task" || handle["status"] != "working" {
				t.Fatalf("the last round: %v, want a working task's handle", handle)
			}
			for _, k := range []string{"requestState", "inputRequests"} {
				if _, ok := handle[k]; ok {
					t.Errorf("the task's handle carries %s: %v", k, handle)
				}
			}
			id, _ := handle["taskId"].(string)
			task := pollTask(hs.URL, id, "completed")
			result, _ := task["result"].(map[string]any)
			if task["status"] != "completed" || firstText(result) != tc.want {
				t.Fatalf("task %v, want completed with %q", task, tc.want)
			}
			// Each question was asked once; the handler ran in each round
			// and once in the task.
			if got := asks.Load(); got != int32(tc.rounds) {
				t.Errorf("%d unanswered Elicits, want %d", got, tc.rounds)
			}
			if got := runs.Load(); got != int32(tc.rounds+2) {
				t.Errorf("the handler ran %d times, want %d", got, tc.rounds+2)
			}
		})
	}
}

// TestContinueAsTaskWithoutTask: where the call cannot become a task, a
// session (2025-11-25 and before) or a 2026-07-28 client without the
// tasks extension calling a TaskOptional tool, ContinueAsTask returns nil
// and the call runs to its end as an ordinary call, on every protocol and
// transport; a tool that has no TaskSupport gets its error.
func TestContinueAsTaskWithoutTask(t *testing.T) {
	var runs, asks atomic.Int32
	elicittest.NewServer(t, deferServer(t, runtime.TaskOptional, &runs, &asks)).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "sign", nil, elicittest.AcceptRaw(`{"name":"Ada"}`), elicittest.AcceptRaw(`{"name":"Bob"}`)).
			WantText(t, "signed by Ada, witnessed by Bob")
		c.Call(t, "eager", nil, elicittest.AcceptRaw(`{"name":"Ada"}`)).WantText(t, "signed by Ada")
		c.Call(t, "plain", nil).WantError(t, "the tool's calls never run as tasks")
	})
}

// TestContinueAsTaskOnTaskClient: from a client that declares the tasks
// extension, a DeferTask tool whose handler never calls ContinueAsTask
// completes as an ordinary call, and a tool without TaskSupport gets
// ContinueAsTask's error; neither makes a task.
func TestContinueAsTaskOnTaskClient(t *testing.T) {
	var runs, asks atomic.Int32
	hs := httptest.NewServer(deferServer(t, runtime.TaskRequired, &runs, &asks))
	defer hs.Close()
	res := taskCall(hs.URL, "tools/call", "quick", `"name":"quick","arguments":{}`)
	if _, ok := res["taskId"]; ok || res["resultType"] != "complete" || res["isError"] == true || firstText(res) != "quick" {
		t.Errorf("quick: %v, want its result, complete", res)
	}
	res = taskCall(hs.URL, "tools/call", "plain", `"name":"plain","arguments":{}`)
	if _, ok := res["taskId"]; ok || res["resultType"] != "complete" || res["isError"] != true || !strings.Contains(firstText(res), "never run as tasks") {
		t.Errorf("plain: %v, want an isError result saying it never runs as a task", res)
	}
}

// firstText is the text of a decoded tool result's first content item,
// "" when it has none.
func firstText(result map[string]any) string {
	content, _ := result["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	item, _ := content[0].(map[string]any)
	text, _ := item["text"].(string)
	return text
}
