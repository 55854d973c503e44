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

// An optional multi-select is left out of a 2025-06-18 client's form, and
// runtime.Dropped names it (adaptertest.Downgrade).
func TestDowngrade(t *testing.T) {
	s, _ := newAdapted(t, "downgrade")
	s.AddTool(mcp.NewTool("notify"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		can := runtime.CanElicit[testform.NotifyForm](ctx)
		dropped := runtime.Dropped[testform.NotifyForm](ctx)
		f, err := runtime.Elicit[testform.NotifyForm](ctx, "Deploy what?")
		if err != nil {
			return outcome("", err)
		}
		return mcp.NewToolResultText(adaptertest.NotifyTool(f, dropped, can)), nil
	})
	adaptertest.Downgrade(t, server.NewStreamableHTTPServer(s))
}

// TestDroppedOutsideACall: a ctx of no adapted call (or nil) drops nothing.
func TestDroppedOutsideACall(t *testing.T) {
	//nolint:staticcheck // a nil ctx is what the test is about
	for _, ctx := range []context.Context{nil, context.Background()} {
		if d := runtime.Dropped[testform.NotifyForm](ctx); d != nil {
			t.Errorf("Dropped = %q", d)
		}
	}
}
