package gosdk_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/netfault"
)

// TestResumeGoSDKClient: in 10 sessions at once, the official Go SDK
// client's POST stream is cut by the network right after the elicitation
// event (a loopback proxy drops the connection); the client answers,
// resumes the stream with GET and Last-Event-ID, as it does by itself, and
// gets the call's result. Before,
// the runtime answered the GET 405 and the drop cancelled the call. It
// lives here, in a module that may require go-sdk, rather than beside the
// runtime.
func TestResumeGoSDKClient(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "resume", Version: "1"})
	const sessions = 10
	outcomes := make(chan error, sessions)
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
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	px.CutEvery("elicitation/create")
	var completed atomic.Int32
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + px.Addr() + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: runtime.Version20251125})
			if err != nil {
				t.Error(err)
				return
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"})
			if err != nil {
				t.Errorf("the call through a cut stream: %v", err)
				return
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			if res.IsError || text.String() != "hello ada" {
				t.Errorf("result %q (isError %v), want %q", text.String(), res.IsError, "hello ada")
				return
			}
			completed.Add(1)
		})
	}
	wg.Wait()
	t.Logf("%d of %d go-sdk calls completed, their streams cut after the elicitation (%d cuts)", completed.Load(), sessions, px.Cuts())
	if px.Cuts() != sessions {
		t.Errorf("the proxy cut %d connections, want each call's stream (%d)", px.Cuts(), sessions)
	}
	for range sessions {
		if err := <-outcomes; err != nil {
			t.Errorf("the handler's Elicit: %v", err)
		}
	}
}
