package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKClient: the official Go SDK client drives the commit tool over
// Streamable HTTP, in its default era (2026-07-28, where it makes the
// input_required retries itself) and on 2025-11-25: it receives the
// repository's files and branches as the form's choices, with the current
// branch prefilled, and its answer outside them is refused.
func TestGoSDKClient(t *testing.T) {
	srv := newServer(&fakeRepo{})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.CloseClientConnections()
		hs.Close()
	})
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("era="+version, func(t *testing.T) {
			var mu sync.Mutex
			var schemas []string
			answer := map[string]any{"files": []any{"docs/b.md"}}
			client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-test", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					b, _ := json.Marshal(req.Params.RequestedSchema)
					mu.Lock()
					defer mu.Unlock()
					schemas = append(schemas, string(b))
					return &mcp.ElicitResult{Action: "accept", Content: answer}, nil
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			call := func() string {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "commit", Arguments: map[string]any{"message": "docs"}})
				if err != nil {
					return err.Error() // on 2026-07-28 the SDK fails the call itself
				}
				return res.Content[0].(*mcp.TextContent).Text
			}
			if got := call(); got != "committed docs/b.md on main" {
				t.Errorf("got %q", got)
			}
			mu.Lock()
			if len(schemas) == 0 || !strings.Contains(schemas[0], `{"const":"docs/b.md","title":"docs/b.md (new)"}`) || !strings.Contains(schemas[0], `"default":"main"`) {
				t.Errorf("schemas %q", schemas)
			}
			answer = map[string]any{"files": []any{"secret.txt"}, "branch": "main"}
			mu.Unlock()
			// The SDK checks the answer against the schema itself: the
			// choices reached it.
			if got := call(); !strings.Contains(got, "secret.txt does not equal a.go") {
				t.Errorf("got %q", got)
			}
		})
	}
}
