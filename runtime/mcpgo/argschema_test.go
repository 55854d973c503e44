package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestArgumentsEnforceAdvertisedSchema: an mcpgo.AddTool tool refuses
// every call whose arguments break the inputSchema tools/list advertises
// (reflected from an arguments struct that is not a form), keyword by
// keyword, naming each failing property.
func TestArgumentsEnforceAdvertisedSchema(t *testing.T) {
	s := newAdapted(t, "rich")
	mcpgo.AddTool(s, mcp.NewTool("rich"), func(_ context.Context, _ mcp.CallToolRequest, in adaptertest.RichArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(adaptertest.RichTool(in)), nil
	})
	adaptertest.EnforcesAdvertised(t, server.NewStreamableHTTPServer(s), "rich")
}
