package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestOutcomes: runtime.Elicit has the runtime's outcomes on mcp-go, but
// for the code of a missing capability on 2026-07-28: mcp-go answers every
// tool handler's error with -32603 (see the package doc).
func TestOutcomes(t *testing.T) {
	s := server.NewMCPServer("outcomes", "1")
	mcpgo.New(s, mcpgo.Options{ElicitTimeout: adaptertest.OutcomeTimeout})
	for name, body := range map[string]func(context.Context) (string, error){"outcome": adaptertest.OutcomeTool, "strict": adaptertest.StrictTool, "url": adaptertest.URLTool} {
		s.AddTool(mcp.NewTool(name), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := body(ctx)
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(text), nil
		})
	}
	adaptertest.Outcomes(t, elicittest.NewServer(t, server.NewStreamableHTTPServer(s)), runtime.CodeInternalError)
}
