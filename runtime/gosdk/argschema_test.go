package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArgumentsEnforceAdvertisedSchema: a gosdk.AddTool tool whose
// arguments struct carries invopop/jsonschema tags (the go-sdk reads no such
// tags; the adapter reflects them as runtime.AddTool does) refuses every
// call whose arguments break the inputSchema tools/list advertises,
// keyword by keyword, formats included, naming each failing property.
func TestArgumentsEnforceAdvertisedSchema(t *testing.T) {
	s, a := newAdapter(t, "rich")
	gosdk.AddTool(a, &mcp.Tool{Name: "rich"}, func(_ context.Context, _ *mcp.CallToolRequest, in adaptertest.RichArgs) (*mcp.CallToolResult, any, error) {
		return text(adaptertest.RichTool(in)), nil, nil
	})
	adaptertest.EnforcesAdvertised(t, gosdk.NewStreamableHTTPHandler(s, nil), "rich")
}

// TestOwnSchemaDefaults: a tool with its own inputSchema, checked by the
// adapter, still gets the schema's defaults filled in, as the go-sdk does.
func TestOwnSchemaDefaults(t *testing.T) {
	type args struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	s, a := newAdapter(t, "defaults")
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1},"count":{"type":"integer","default":7}},"required":["name"]}`)
	gosdk.AddTool(a, &mcp.Tool{Name: "count", InputSchema: schema}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		return text(fmt.Sprintf("%s %d", in.Name, in.Count)), nil, nil
	})
	c := elicittest.NewServer(t, gosdk.NewStreamableHTTPHandler(s, nil)).Connect(t, elicittest.Conn{Protocol: "2025-11-25"})
	c.Call(t, "count", map[string]any{"name": "a"}).WantText(t, "a 7")
	c.Call(t, "count", map[string]any{"name": "a", "count": 2}).WantText(t, "a 2")
	c.Call(t, "count", map[string]any{"name": ""}).WantError(t, `"name" must be at least 1 character`)
}
