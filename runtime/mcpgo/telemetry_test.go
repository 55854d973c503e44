package mcpgo_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestTelemetryMCPGoClient: with TracerProvider and MeterProvider, a call
// served through the adapter gets the runtime's SERVER span and duration
// metric, a child of the traceparent mcp-go's own client sends in
// params._meta, and its elicitation an "elicit" span child of the call's,
// in a session (2025-11-25) and through input_required rounds
// (2026-07-28, which the client retries itself); a handler's error is
// recorded with mcp-go's code for it, -32603.
func TestTelemetryMCPGoClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			tl := adaptertest.NewTelemetry(t)
			srv := httptest.NewServer(server.NewStreamableHTTPServer(tracedServer(tl)))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			tr, err := transport.NewStreamableHTTP(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			checkTracedCalls(t, ctx, tl, client.NewClient(tr, client.WithProtocolVersion(version), client.WithElicitationHandler(&clientAnswers{})), version)
		})
	}
}

// TestTelemetryMCPGoStdio is TestTelemetryMCPGoClient over stdio: mcp-go's
// stdio server and its client joined by two OS pipes, where the call's
// traceparent can come only from params._meta; the spans say
// network.transport "pipe" and no mcp.session.id.
func TestTelemetryMCPGoStdio(t *testing.T) {
	tl := adaptertest.NewTelemetry(t)
	tl.Stdio = true
	pipes := adaptertest.NewStdio(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- server.NewStdioServer(tracedServer(tl)).Listen(ctx, pipes.ServerIn, pipes.ServerOut) }()
	defer func() { // the server, then the client's reader, see their input end
		cancel()
		_ = pipes.ClientOut.Close()
		<-served
		_ = pipes.ServerOut.Close()
	}()
	checkTracedCalls(t, ctx, tl, client.NewClient(transport.NewIO(pipes.ClientIn, pipes.ClientOut, nil), client.WithElicitationHandler(&clientAnswers{})), "2025-11-25")
}

// tracedServer is an mcp-go server whose adapter records into tl: "ask"
// asks testform.NameForm, "fail" returns an error.
func tracedServer(tl *adaptertest.Telemetry) *server.MCPServer {
	s := server.NewMCPServer("traced", "1")
	mcpgo.New(s, mcpgo.Options{TracerProvider: tl.TracerProvider, MeterProvider: tl.MeterProvider})
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("hello " + form.Name), nil
	})
	s.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("it failed")
	})
	return s
}

// checkTracedCalls starts c, initializes it on version, calls "ask" and
// "fail" of a tracedServer with a traceparent, checks what tl recorded,
// and closes c.
func checkTracedCalls(t *testing.T, ctx context.Context, tl *adaptertest.Telemetry, c *client.Client, version string) {
	t.Helper()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "telemetry-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	call := mcp.CallToolRequest{}
	call.Params.Name = "ask"
	call.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": adaptertest.Traceparent}}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	if got := mcp.GetTextFromContent(res.Content[0]); res.IsError || got != "hello Ada" {
		t.Fatalf("ask: %q (isError %v)", got, res.IsError)
	}
	tl.CheckAsk(t, version)
	call.Params.Name = "fail"
	if _, err := c.CallTool(ctx, call); err == nil {
		t.Fatal("fail: no error")
	}
	tl.CheckFail(t, "fail", version, strconv.Itoa(mcp.INTERNAL_ERROR))
}
