package gosdktest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk/gosdktest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

type placeArgs struct {
	Service string `json:"service"`
}

type placed struct {
	Where string `json:"where"`
}

// place is a go-sdk tool handler that asks where to place its service.
func place(ctx context.Context, _ *mcp.CallToolRequest, in placeArgs) (*mcp.CallToolResult, placed, error) {
	f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage)
	text, isError, ok := adaptertest.PlaceOutcome(f, err)
	switch {
	case !ok:
		return nil, placed{}, err
	case isError:
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, placed{}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Service + ": " + text}}}, placed{Where: f.Host}, nil
}

// TestHandle: a go-sdk handler runs on every protocol version, its
// elicitations answered from the script, its Out the structured content.
func TestHandle(t *testing.T) {
	rs := gosdktest.Handle(t, place, placeArgs{Service: "api"},
		elicittest.Accept(testform.PlaceForm{Host: "db1.example.com", Replicas: 2, Canary: true}))
	if len(rs) != len(elicittest.Protocols()) {
		t.Fatalf("%d results", len(rs))
	}
	rs.WantText(t, `api: host=db1.example.com replicas=2 contact="" canary=true`)
	rs.WantAsked(t, adaptertest.PlaceMessage)
	rs.WantStructured(t, placed{Where: "db1.example.com"})
	gosdktest.Handle(t, place, placeArgs{Service: "api"}, elicittest.Decline()).WantError(t, "declined")
}

// TestClaimCallUnsupported: ClaimCall in a go-sdk handler fails loudly
// (the adapter keeps no claims) instead of letting side effects run
// unguarded, on every protocol version.
func TestClaimCallUnsupported(t *testing.T) {
	claim := func(ctx context.Context, _ *mcp.CallToolRequest, _ placeArgs) (*mcp.CallToolResult, placed, error) {
		if err := runtime.ClaimCall(ctx); !errors.Is(err, runtime.ErrClaimUnsupported) {
			return nil, placed{}, fmt.Errorf("ClaimCall = %v, want ErrClaimUnsupported", err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "refused"}}}, placed{}, nil
	}
	gosdktest.Handle(t, claim, placeArgs{}).WantText(t, "refused")
}
