package gosdk_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArgumentsEnforceAdvertisedSchema: a gosdk.AddTool tool refuses every
// call whose arguments break the inputSchema tools/list advertises,
// keyword by keyword, formats included, naming each failing property.
func TestArgumentsEnforceAdvertisedSchema(t *testing.T) {
	s, a := newAdapter(t, "rich")
	gosdk.AddTool(a, &mcp.Tool{Name: "rich", InputSchema: adaptertest.RichSchema()}, func(_ context.Context, _ *mcp.CallToolRequest, in adaptertest.RichArgs) (*mcp.CallToolResult, any, error) {
		return text(adaptertest.RichTool(in)), nil, nil
	})
	adaptertest.EnforcesAdvertised(t, gosdk.NewStreamableHTTPHandler(s, nil), "rich")
}
