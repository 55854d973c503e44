package gosdk_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/netfault"
)

// TestResumeGoSDKClient: the official Go SDK client's POST stream is cut
// by the network right after the elicitation event (a loopback proxy drops
// the connection); the client answers, resumes the stream with GET and
// Last-Event-ID, as it does by itself, and gets the call's result. Before,
// the runtime answered the GET 405 and the drop cancelled the call. It
// lives here, in a module that may require go-sdk, rather than beside the
// runtime.
func TestResumeGoSDKClient(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "resume", Version: "1"})
	outcomes := make(chan error, 1)
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}
	srv.AddTool(runtime.Tool{Name: "ask"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		content, err := runtime.ElicitSchema(ctx, "Your name?", schema)
		outcomes <- err
		if err != nil {
			return nil, err
		}
		return runtime.TextResult("hello " + content["name"].(string)), nil
	})
	hs := httptest.NewServer(srv)
	px, err := netfault.Start(hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		px.Close()
		hs.CloseClientConnections()
		hs.Close()
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "resume-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + px.Addr() + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: runtime.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	px.CutAfter("elicitation/create")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatalf("the call through a cut stream: %v", err)
	}
	if px.Cuts() != 1 {
		t.Fatalf("the proxy cut %d connections, want the call's stream", px.Cuts())
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError || text.String() != "hello ada" {
		t.Errorf("result %q (isError %v), want %q", text.String(), res.IsError, "hello ada")
	}
	if err := <-outcomes; err != nil {
		t.Errorf("the handler's Elicit: %v", err)
	}
}
