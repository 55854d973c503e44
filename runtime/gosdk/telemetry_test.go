package gosdk_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTelemetryGoSDKClient: with TracerProvider and MeterProvider, a call
// served through the adapter gets the runtime's SERVER span and duration
// metric, a child of the traceparent the official Go SDK client sends in
// params._meta, and its elicitation an "elicit" span child of the call's,
// in a session (2025-11-25) and through input_required rounds (the SDK's
// default, 2026-07-28, which it retries itself); a failing call is
// recorded as a tool_error (mcp.AddTool) or "_OTHER" (a raw handler's
// plain error, sent with no code).
func TestTelemetryGoSDKClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			tl := adaptertest.NewTelemetry(t)
			s := mcp.NewServer(&mcp.Implementation{Name: "traced", Version: "1"}, nil)
			a := gosdk.New(s, gosdk.Options{TracerProvider: tl.TracerProvider, MeterProvider: tl.MeterProvider})
			a.AddTool(&mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
				if err != nil {
					return nil, err
				}
				return text("hello " + form.Name), nil
			})
			gosdk.AddTool(a, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return nil, nil, errors.New("it failed")
			})
			a.AddTool(&mcp.Tool{Name: "raw-fail"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New("it failed")
			})
			hs := httptest.NewServer(gosdk.NewStreamableHTTPHandler(s, nil))
			defer func() { hs.CloseClientConnections(); hs.Close() }()

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs := sdkSession(t, ctx, hs.URL, version, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			})
			defer cs.Close()
			meta := mcp.Meta{"traceparent": adaptertest.Traceparent}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Meta: meta})
			if err != nil {
				t.Fatal(err)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); res.IsError || !ok || tc.Text != "hello Ada" {
				t.Fatalf("ask: %+v", res)
			}
			tl.CheckAsk(t, version)

			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Meta: meta})
			if err != nil || !res.IsError {
				t.Fatalf("fail: %+v, %v", res, err)
			}
			tl.CheckFail(t, "fail", version, "tool_error")

			// A raw handler's plain error is a JSON-RPC error without a
			// code on the go-sdk's wire: error.type "_OTHER".
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "raw-fail", Meta: meta}); err == nil {
				t.Fatal("raw-fail: no error")
			}
			tl.CheckFail(t, "raw-fail", version, "_OTHER")
		})
	}
}
