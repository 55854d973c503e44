package mcpgo_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestSessionTaskMCPGoClient: mcp-go's own client runs a tool of the
// runtime's Server as a 2025-11-25 task: params.task, tasks/list for its
// id, tasks/get until input_required, and tasks/result, on whose stream
// the client's elicitation handler answers the handler's Elicit.
func TestSessionTaskMCPGoClient(t *testing.T) {
	store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}})
	s.AddTool(runtime.Tool{Name: "approve", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		got, err := runtime.ElicitSchema(ctx, "Who approves?", map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("approved by %v", got["name"])), nil
	})
	srv := httptest.NewServer(s)
	defer srv.Close()
	defer func() { _ = s.Shutdown(context.Background()) }()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := transport.NewStreamableHTTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"), client.WithElicitationHandler(&clientAnswers{}))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "approve"
	call.Params.Task = &mcp.TaskParams{}
	// mcp-go v1.2.1's CallTool reads every result as a CallToolResult, so
	// the {"task":…} of a task-augmented call is "content is missing" to
	// it: the task is found by tasks/list instead.
	if _, err := c.CallTool(ctx, call); err != nil && !strings.Contains(err.Error(), "content is missing") {
		t.Fatalf("tools/call as a task: %v", err)
	}
	list, err := c.ListTasks(ctx, mcp.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 {
		t.Fatalf("tasks/list: %+v, %v", list, err)
	}
	id := list.Tasks[0].TaskId
	for {
		got, err := c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
		if err != nil {
			t.Fatalf("tasks/get: %v", err)
		}
		if got.Status == mcp.TaskStatusInputRequired {
			break
		}
		if got.Status.IsTerminal() {
			t.Fatalf("the task ended before it asked: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	if err != nil || len(res.Content) != 1 || mcp.GetTextFromContent(res.Content[0]) != "approved by Ada" {
		t.Fatalf("tasks/result: %+v, %v", res, err)
	}
	got, err := c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
	if err != nil || got.Status != mcp.TaskStatusCompleted {
		t.Fatalf("tasks/get after the result: %+v, %v", got, err)
	}
}
