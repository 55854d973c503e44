package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime/elicittest"
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
	s, a := newAdapted(t, "rich")
	mcpgo.AddTool(a, mcp.NewTool("rich"), func(_ context.Context, _ mcp.CallToolRequest, in adaptertest.RichArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(adaptertest.RichTool(in)), nil
	})
	adaptertest.EnforcesAdvertised(t, server.NewStreamableHTTPServer(s), "rich")
}

// TestOwnSchemaEnforced: a tool built with mcp-go's own schema options
// (mcp.WithString(..., mcp.MinLength(1))) refuses what that schema
// refuses, "" included, naming the property.
func TestOwnSchemaEnforced(t *testing.T) {
	s, a := newAdapted(t, "own")
	type args struct {
		Name string `json:"name"`
	}
	tool := mcp.NewTool("greet", mcp.WithString("name", mcp.Required(), mcp.MinLength(1)))
	mcpgo.AddTool(a, tool, func(_ context.Context, _ mcp.CallToolRequest, in args) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello " + in.Name), nil
	})
	c := elicittest.NewServer(t, server.NewStreamableHTTPServer(s)).Connect(t, elicittest.Conn{Protocol: "2025-11-25"})
	c.Call(t, "greet", map[string]any{"name": ""}).WantError(t, `"name" must be at least 1 character`)
	c.Call(t, "greet", nil).WantError(t, `"name" is required`)
	c.Call(t, "greet", map[string]any{"name": "Ada"}).WantText(t, "hello Ada")
}
