package mcpgo_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
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
	s, a := newAdapted(t, "askmissing")
	var runs atomic.Int32
	mcpgo.AddTool(a, mcp.NewTool("greet"), func(_ context.Context, _ mcp.CallToolRequest, in testform.AskForm) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText(adaptertest.GreetTool(in)), nil
	}, runtime.AskMissing(adaptertest.AskMissingMessage))
	adaptertest.AskMissing(t, server.NewStreamableHTTPServer(s), &runs)
}
