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
			s := tracedServer(tl)
			hs := httptest.NewServer(gosdk.NewStreamableHTTPHandler(s, nil))
			defer func() { hs.CloseClientConnections(); hs.Close() }()

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs := sdkSession(t, ctx, hs.URL, version, acceptAda)
			defer cs.Close()
			checkTracedCalls(t, ctx, tl, cs, version)

			// A raw handler's plain error is a JSON-RPC error without a
			// code on the go-sdk's wire: error.type "_OTHER".
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "raw-fail", Meta: mcp.Meta{"traceparent": adaptertest.Traceparent}}); err == nil {
				t.Fatal("raw-fail: no error")
			}
			tl.CheckFail(t, "raw-fail", version, "_OTHER")
		})
	}
}

// TestTelemetryGoSDKStdio is TestTelemetryGoSDKClient over stdio: the
// server and the official Go SDK client joined by two OS pipes, where the
// call's traceparent can come only from params._meta; the spans say
// network.transport "pipe" and no mcp.session.id.
func TestTelemetryGoSDKStdio(t *testing.T) {
	tl := adaptertest.NewTelemetry(t)
	tl.Stdio = true
	s := tracedServer(tl)
	pipes := adaptertest.NewStdio(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ss, err := s.Connect(ctx, &mcp.IOTransport{Reader: pipes.ServerIn, Writer: pipes.ServerOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	const version = "2025-11-25"
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: acceptAda})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: pipes.ClientIn, Writer: pipes.ClientOut}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checkTracedCalls(t, ctx, tl, cs, version)
}

// tracedServer is a go-sdk server whose adapter records into tl: "ask"
// asks testform.NameForm, "fail" (mcp.AddTool) and "raw-fail"
// (Adapter.AddTool) return an error.
func tracedServer(tl *adaptertest.Telemetry) *mcp.Server {
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
	return s
}

func acceptAda(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
}

// checkTracedCalls calls "ask" and "fail" of a tracedServer with a
// traceparent and checks what tl recorded.
func checkTracedCalls(t *testing.T, ctx context.Context, tl *adaptertest.Telemetry, cs *mcp.ClientSession, version string) {
	t.Helper()
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
}
