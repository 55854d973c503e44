package gosdk_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSampleAndRootsGoSDKClient: a handler that asks the user, the model
// and the roots together, through the adapter, answered by the official
// go-sdk client: in a 2025-11-25 session one request after the other, on
// 2026-07-28 in one input_required round.
func TestSampleAndRootsGoSDKClient(t *testing.T) {
	s, a := newAdapter(t, "sampling")
	a.AddTool(&mcp.Tool{Name: "all", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return outcome(adaptertest.AskAll(ctx))
	})
	a.AddTool(&mcp.Tool{Name: "sample", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, err := runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 10, Messages: []runtime.SamplingMessage{
			{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "x"}}}}})
		return outcome("sampled", err)
	})
	srv := httptest.NewServer(gosdk.NewStreamableHTTPHandler(s, nil))
	defer srv.Close()

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			refuse := false
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
					if refuse {
						return nil, errors.New("user rejected sampling")
					}
					return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "m1", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
				},
			})
			client.AddRoots(&mcp.Root{URI: "file:///src", Name: "src"})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "all", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(res); res.IsError || got != "Ada|hi|m1|file:///src" {
				t.Fatalf("result %q (isError %v)", got, res.IsError)
			}
			refuse = true
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
			if err == nil && !res.IsError {
				t.Fatalf("a refused sampling gave %q", resultText(res))
			}
		})
	}
}

func resultText(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}
