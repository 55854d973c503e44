package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestAnswers: what real form UIs send (empty optional properties) and
// re-asking, on every protocol, through the mcp-go adapter.
func TestAnswers(t *testing.T) {
	s, _ := newAdapted(t, "answers")
	tool := func(opts ...runtime.ElicitOption) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage, opts...)
			text, isError, ok := adaptertest.PlaceOutcome(f, err)
			switch {
			case !ok:
				return nil, err
			case isError:
				return mcp.NewToolResultError(text), nil
			}
			return mcp.NewToolResultText(text), nil
		}
	}
	s.AddTool(mcp.NewTool("place"), tool())
	s.AddTool(mcp.NewTool("place-reask"), tool(runtime.WithReask(1)))
	adaptertest.Answers(t, elicittest.NewServer(t, server.NewStreamableHTTPServer(s)))
}
