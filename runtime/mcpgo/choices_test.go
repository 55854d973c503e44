package mcpgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestChoicesAndDefaults: WithChoices and WithDefaults work through the
// adapter as through the runtime, on every protocol.
func TestChoicesAndDefaults(t *testing.T) {
	s := server.NewMCPServer("choices", "1")
	if _, err := mcpgo.New(s, mcpgo.Options{}); err != nil {
		t.Fatal(err)
	}
	s.AddTool(mcp.NewTool("region"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := adaptertest.RegionTool(ctx, mcpgo.Elicit[testform.RegionForm])
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(out), nil
	})
	adaptertest.RegionCalls(t, server.NewStreamableHTTPServer(s))
}
