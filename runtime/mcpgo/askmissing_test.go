package mcpgo_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mcpgo.AddTool with runtime.AskMissing asks for the missing required
// arguments on every protocol (adaptertest.AskMissing); the tool, made
// with no inputSchema, lists the form's.
func TestAskMissing(t *testing.T) {
	s := newAdapted(t, "askmissing")
	var runs atomic.Int32
	mcpgo.AddTool(s, mcp.NewTool("greet"), func(_ context.Context, _ mcp.CallToolRequest, in testform.AskForm) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText(adaptertest.GreetTool(in)), nil
	}, runtime.AskMissing(adaptertest.AskMissingMessage))
	adaptertest.AskMissing(t, server.NewStreamableHTTPServer(s), &runs)
}

// Without the adapter's middleware nobody can be asked: a call missing an
// argument gets the argument error of a client that cannot be asked; a nil
// server registers nothing.
func TestAddToolWithoutMiddleware(t *testing.T) {
	mcpgo.AddTool(nil, mcp.NewTool("greet"), func(context.Context, mcp.CallToolRequest, testform.AskForm) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	s := server.NewMCPServer("bare", "1")
	mcpgo.AddTool(s, mcp.NewTool("greet"), func(_ context.Context, _ mcp.CallToolRequest, in testform.AskForm) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(adaptertest.GreetTool(in)), nil
	}, runtime.AskMissing(""))
	srv := elicittest.NewServer(t, server.NewStreamableHTTPServer(s))
	c := srv.Connect(t, elicittest.Conn{Protocol: runtime.Version20251125})
	c.Call(t, "greet", map[string]any{"name": "Ada"}).WantError(t, "missing required argument: count")
	c.Call(t, "greet", map[string]any{"name": "Ada", "count": 2}).WantText(t, "Ada x2")
}
