package mcpgotest_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo/mcpgotest"
)

type placeArgs struct {
	Service string `json:"service"`
}

// place is an mcp-go tool handler that asks where to place its service.
func place(ctx context.Context, req mcp.CallToolRequest, in placeArgs) (*mcp.CallToolResult, error) {
	f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage)
	text, isError, ok := adaptertest.PlaceOutcome(f, err)
	switch {
	case !ok:
		return nil, err
	case isError:
		return mcp.NewToolResultError(text), nil
	}
	return mcp.NewToolResultText(in.Service + " (" + req.Params.Name + "): " + text), nil
}

// TestHandle: an mcp-go handler runs on every protocol version, its
// elicitations answered from the script; the tool is named after it.
func TestHandle(t *testing.T) {
	rs := mcpgotest.Handle(t, place, placeArgs{Service: "api"},
		elicittest.Accept(testform.PlaceForm{Host: "db1.example.com", Replicas: 2, Canary: true}))
	if len(rs) != len(elicittest.Protocols()) {
		t.Fatalf("%d results", len(rs))
	}
	rs.WantText(t, `api (mcpgotest_test.place): host=db1.example.com replicas=2 contact="" canary=true`)
	rs.WantAsked(t, adaptertest.PlaceMessage)
	mcpgotest.Handle(t, place, placeArgs{Service: "api"}, elicittest.Decline()).WantError(t, "declined")
}
