package gosdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestChoicesAndDefaults: WithChoices and WithDefaults work through the
// adapter as through the runtime, on every protocol.
func TestChoicesAndDefaults(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "choices", Version: "1"}, nil)
	a, err := gosdk.New(s, gosdk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.AddTool(&mcp.Tool{Name: "region", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := adaptertest.RegionTool(ctx, gosdk.Elicit[testform.RegionForm])
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		return text(out), nil
	})
	adaptertest.RegionCalls(t, gosdk.NewStreamableHTTPHandler(s, nil))
}
