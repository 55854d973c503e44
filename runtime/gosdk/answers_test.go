package gosdk_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnswers: what real form UIs send (empty optional properties) and
// re-asking, on every protocol, through the go-sdk adapter.
func TestAnswers(t *testing.T) {
	s, a := newAdapter(t, "answers")
	tool := func(opts ...runtime.ElicitOption) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage, opts...)
			text, isError, ok := adaptertest.PlaceOutcome(f, err)
			if !ok {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}, nil
		}
	}
	a.AddTool(&mcp.Tool{Name: "place", InputSchema: map[string]any{"type": "object"}}, tool())
	a.AddTool(&mcp.Tool{Name: "place-reask", InputSchema: map[string]any{"type": "object"}}, tool(runtime.WithReask(1)))
	adaptertest.Answers(t, elicittest.NewServer(t, gosdk.NewStreamableHTTPHandler(s, nil)))
}
