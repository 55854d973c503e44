//lint:file-ignore SA1019 sampling and roots are deprecated in 2026-07-28 (SEP-2577); the test drives them while they are served (and mcp-go's client answers roots in a session only on the standalone GET stream)

package mcpgo_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// clientAnswers answers elicitation, sampling and roots as mcp-go's
// client handlers.
type clientAnswers struct{}

func (a *clientAnswers) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada"}}}, nil
}

func (a *clientAnswers) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("hi")}, Model: "m1"}, nil
}

func (a *clientAnswers) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///src", Name: "src"}}}, nil
}

// TestSampleAndRootsMCPGoClient: a handler that asks the user, the model
// and the roots together, through the adapter, answered by mcp-go's own
// client.
func TestSampleAndRootsMCPGoClient(t *testing.T) {
	s, a := newAdapted(t, "sampling")
	s.EnableSampling()
	mcpgo.AddTool(a, mcp.NewTool("all"), func(ctx context.Context, req mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		return outcome(adaptertest.AskAll(ctx))
	})
	mcpgo.AddTool(a, mcp.NewTool("roots"), func(ctx context.Context, req mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, error) {
		roots, err := runtime.ListRoots(ctx)
		if err != nil {
			return outcome("", err)
		}
		return mcp.NewToolResultText(roots[0].URI), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer srv.Close()

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			answers := &clientAnswers{}
			// In a session mcp-go's client answers roots/list only on its
			// standalone GET stream.
			var opts []transport.StreamableHTTPCOption
			if version < "2026-07-28" {
				opts = append(opts, transport.WithContinuousListening())
			}
			tr, err := transport.NewStreamableHTTP(srv.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr, client.WithProtocolVersion(version), client.WithElicitationHandler(answers),
				client.WithSamplingHandler(answers), client.WithRootsHandler(answers))
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			init := mcp.InitializeRequest{}
			init.Params.ProtocolVersion = version
			init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
			if _, err := c.Initialize(ctx, init); err != nil {
				t.Fatal(err)
			}
			call := mcp.CallToolRequest{}
			call.Params.Name = "roots"
			res, err := c.CallTool(ctx, call)
			if err != nil || res.IsError || mcp.GetTextFromContent(res.Content[0]) != "file:///src" {
				t.Fatalf("roots: %+v %v", res, err)
			}
			if version >= "2026-07-28" && res.ResultType != "complete" {
				t.Fatalf("the client did not speak 2026-07-28: %+v", res)
			}
			call.Params.Name = "all"
			res, err = c.CallTool(ctx, call)
			if err != nil {
				t.Fatal(err)
			}
			if got := mcp.GetTextFromContent(res.Content[0]); res.IsError || got != "Ada|hi|m1|file:///src" {
				t.Fatalf("result %q (isError %v)", got, res.IsError)
			}
		})
	}
}
