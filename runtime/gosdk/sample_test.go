//lint:file-ignore SA1019 sampling and roots are deprecated in 2026-07-28 (SEP-2577); the test drives them while they are served

package gosdk_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkClient is the official go-sdk client answering elicitation, sampling
// (refused while refuse is set) and roots.
func sdkClient(refuse *atomic.Bool) *mcp.Client {
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageWithToolsHandler: func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			if refuse.Load() {
				return nil, errors.New("user rejected sampling")
			}
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "m1", Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///src", Name: "src"})
	return client
}

// checkAskAll calls "all" (adaptertest.AskAll) and "sample", refused.
func checkAskAll(t *testing.T, ctx context.Context, cs *mcp.ClientSession, refuse *atomic.Bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "all", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(res); res.IsError || got != "Ada|hi|m1|file:///src" {
		t.Fatalf("result %q (isError %v)", got, res.IsError)
	}
	refuse.Store(true)
	defer refuse.Store(false)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatalf("a refused sampling gave %q", resultText(res))
	}
}

// sampleTool samples once and answers "sampled", or what Sample returned.
func sampleTool(ctx context.Context) (string, error) {
	_, err := runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 10, Messages: []runtime.SamplingMessage{
		{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "x"}}}}})
	return "sampled", err
}

// TestSampleAndRootsGoSDKClient: a handler that asks the user, the model
// and the roots together, answered by the official go-sdk client: through
// the adapter on a go-sdk server, and on the runtime's own server over
// HTTP and stdio; in a 2025-11-25 session one request after the other, on
// 2026-07-28 in one input_required round.
func TestSampleAndRootsGoSDKClient(t *testing.T) {
	s, a := newAdapter(t, "sampling")
	a.AddTool(&mcp.Tool{Name: "all", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return outcome(adaptertest.AskAll(ctx))
	})
	a.AddTool(&mcp.Tool{Name: "sample", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return outcome(sampleTool(ctx))
	})
	adapted := httptest.NewServer(gosdk.NewStreamableHTTPHandler(s, nil))
	defer adapted.Close()

	rt := runtime.NewServer(runtime.Options{Name: "sampling", Version: "1"})
	result := func(out string, err error) (*runtime.CallToolResult, error) {
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(out), nil
	}
	runtime.AddTool(rt, runtime.Tool{Name: "all"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return result(adaptertest.AskAll(ctx))
	})
	runtime.AddTool(rt, runtime.Tool{Name: "sample"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return result(sampleTool(ctx))
	})
	own := httptest.NewServer(rt)
	defer own.Close()

	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, server := range []string{"adapter", "runtime/http", "runtime/stdio"} {
			t.Run(version+"/"+server, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				var refuse atomic.Bool
				var tr mcp.Transport
				switch server {
				case "adapter":
					tr = &mcp.StreamableClientTransport{Endpoint: adapted.URL}
				case "runtime/http":
					tr = &mcp.StreamableClientTransport{Endpoint: own.URL}
				default:
					cr, sw := io.Pipe()
					sr, cw := io.Pipe()
					done := make(chan error, 1)
					go func() { done <- rt.ServeStdio(ctx, sr, sw) }()
					defer func() {
						cw.Close()
						if err := <-done; err != nil && ctx.Err() == nil {
							t.Errorf("ServeStdio: %v", err)
						}
					}()
					tr = &mcp.IOTransport{Reader: cr, Writer: cw}
				}
				cs, err := sdkClient(&refuse).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != version {
					t.Fatalf("the client speaks %s", got)
				}
				checkAskAll(t, ctx, cs, &refuse)
			})
		}
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
