package gosdk_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reaskServer is a runtime server (not go-sdk's) whose place-reask tool
// re-asks once.
func reaskServer() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "answers", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "place-reask"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage, runtime.WithReask(1))
		text, isError, ok := adaptertest.PlaceOutcome(f, err)
		switch {
		case !ok:
			return nil, err
		case isError:
			return runtime.ErrorResult("%s", text), nil
		}
		return runtime.TextResult(text), nil
	})
	return srv
}

// TestReaskGoSDKClient: the official Go SDK client drives a re-ask on a
// runtime server end to end, in both eras (on 2026-07-28 it performs the
// input_required retries itself): its first answer breaks the form's
// validate tag, the re-ask says so and carries the right properties as
// defaults, and its second answer completes the call. It lives here, in a
// module that may require go-sdk, rather than beside the runtime.
func TestReaskGoSDKClient(t *testing.T) {
	srv := reaskServer()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.CloseClientConnections()
		hs.Close()
	})
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} { // "": the SDK's default, 2026-07-28
		name := version
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []*mcp.ElicitParams
			answers := []map[string]any{
				{"host": "web 1", "replicas": 3, "canary": true},
				{"host": "web1", "replicas": 3, "canary": true},
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs := sdkSession(t, ctx, hs.URL, version, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req.Params)
				if len(answers) == 0 {
					return &mcp.ElicitResult{Action: "cancel"}, nil
				}
				a := answers[0]
				answers = answers[1:]
				return &mcp.ElicitResult{Action: "accept", Content: a}, nil
			})
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "place-reask"})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			if want := `host=web1 replicas=3 contact="" canary=true`; res.IsError || text.String() != want {
				t.Errorf("result %q (isError %v), want %q", text.String(), res.IsError, want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 2 {
				t.Fatalf("asked %d times, want 2", len(asked))
			}
			if want := adaptertest.PlaceMessage + ` — "host" must be a host name; please correct it`; asked[1].Message != want {
				t.Errorf("re-ask message %q, want %q", asked[1].Message, want)
			}
			schema, _ := asked[1].RequestedSchema.(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			canary, _ := props["canary"].(map[string]any)
			if canary["default"] != true {
				t.Errorf("re-ask schema: canary default %v, want true: %v", canary["default"], schema)
			}
		})
	}
}

// sdkSession connects the official Go SDK client to url on version (""
// its default, 2026-07-28), answering elicitations with answer; the caller
// closes the session before the server.
func sdkSession(t *testing.T, ctx context.Context, url, version string, answer func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: answer})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
