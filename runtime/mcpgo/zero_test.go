package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestZeroValues gives every exported function and method of the package
// zero or nil inputs: each answers with a clear error or does its
// documented nothing, and none panics.
func TestZeroValues(t *testing.T) {
	var nilCtx context.Context
	for name, ctx := range map[string]context.Context{"nil ctx": nilCtx, "background": context.Background()} {
		_, err := mcpgo.Elicit[testform.NameForm](ctx, "m")
		if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "mcpgo.New") {
			t.Errorf("%s: Elicit %v, want ErrNoCall naming mcpgo.New", name, err)
		}
		if err := mcpgo.CanElicit[testform.NameForm](ctx); !errors.Is(err, runtime.ErrNoCall) {
			t.Errorf("%s: CanElicit %v", name, err)
		}
		if mcpgo.ClientSupportsElicit(ctx) {
			t.Errorf("%s: ClientSupportsElicit true", name)
		}
	}

	if _, err := mcpgo.New(nil, mcpgo.Options{}); err == nil || !strings.Contains(err.Error(), "needs a server") {
		t.Errorf("New(nil): %v", err)
	}
	if _, err := mcpgo.NewMiddleware(mcpgo.Options{RequestStateKeys: [][]byte{nil}}); err == nil {
		t.Error("NewMiddleware with a nil key: no error")
	}

	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	for name, a := range map[string]*mcpgo.Adapter{"nil": nil, "zero": {}} {
		_, err := a.Middleware(ok)(context.Background(), mcp.CallToolRequest{})
		if err == nil || !strings.Contains(err.Error(), "mcpgo.New") {
			t.Errorf("%s Adapter: Middleware's handler %v, want an error saying to call mcpgo.New", name, err)
		}
	}

	a, err := mcpgo.NewMiddleware(mcpgo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Middleware(nil)(context.Background(), mcp.CallToolRequest{}); err == nil || !strings.Contains(err.Error(), "nil handler") {
		t.Errorf("Middleware(nil): %v", err)
	}
	if _, err := a.Middleware(ok)(nilCtx, mcp.CallToolRequest{}); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("a nil ctx: %v", err)
	}
	// A zero request outside any server reaches the handler, which can ask
	// nothing.
	var got error
	res, err := a.Middleware(func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, got = mcpgo.Elicit[testform.NameForm](ctx, "m")
		return ok(ctx, req)
	})(context.Background(), mcp.CallToolRequest{})
	if err != nil || res == nil || !errors.Is(got, runtime.ErrElicitUnsupported) {
		t.Errorf("a zero request: %v, %v; Elicit %v, want ErrElicitUnsupported", res, err, got)
	}
	// Installed on a real server, a nil handler fails its call.
	s := server.NewMCPServer("zero", "1", server.WithToolHandlerMiddleware(a.Middleware))
	s.AddTool(mcp.NewTool("nil"), nil)
	reply := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nil"}}`))
	if e, isErr := reply.(mcp.JSONRPCError); !isErr || !strings.Contains(e.Error.Message, "nil handler") {
		t.Errorf("calling a nil handler: %#v", reply)
	}
}
