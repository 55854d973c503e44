package gosdk_test

import (
	"context"
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
	s, a := newAdapter(t, "choices")
	a.AddTool(&mcp.Tool{Name: "region", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return outcome(adaptertest.RegionTool(ctx, runtime.Elicit[testform.RegionForm]))
	})
	adaptertest.RegionCalls(t, gosdk.NewStreamableHTTPHandler(s, nil))
}
