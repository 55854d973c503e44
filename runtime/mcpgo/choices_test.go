package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestChoicesAndDefaults: WithChoices and WithDefaults work through the
// adapter as through the runtime, on every protocol.
func TestChoicesAndDefaults(t *testing.T) {
	s, _ := newAdapted(t, "choices")
	s.AddTool(mcp.NewTool("region"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return outcome(adaptertest.RegionTool(ctx, runtime.Elicit[testform.RegionForm]))
	})
	adaptertest.RegionCalls(t, server.NewStreamableHTTPServer(s))
}
