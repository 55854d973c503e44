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
// documented nothing, and none panics (registration mistakes do, on
// purpose: TestRegistrationPanics).
func TestZeroValues(t *testing.T) {
	var nilCtx context.Context
	for name, ctx := range map[string]context.Context{"nil ctx": nilCtx, "background": context.Background()} {
		_, err := runtime.Elicit[testform.NameForm](ctx, "m")
		if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "mcpgo.New") {
			t.Errorf("%s: Elicit %v, want ErrNoCall naming mcpgo.New", name, err)
		}
		if err := runtime.CanElicit[testform.NameForm](ctx); !errors.Is(err, runtime.ErrNoCall) {
			t.Errorf("%s: CanElicit %v", name, err)
		}
		if runtime.ClientSupportsElicit(ctx) {
			t.Errorf("%s: ClientSupportsElicit true", name)
		}
	}

	// Installed on a real server, a nil handler fails its call.
	s := server.NewMCPServer("zero", "1")
	mcpgo.New(s, mcpgo.Options{})
	s.AddTool(mcp.NewTool("nil"), nil)
	reply := s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nil"}}`))
	if e, isErr := reply.(mcp.JSONRPCError); !isErr || !strings.Contains(e.Error.Message, "nil handler") {
		t.Errorf("calling a nil handler: %#v", reply)
	}
	// A call with no session (no initialize, no transport) reaches the
	// handler, which can ask nothing.
	var got error
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, got = runtime.Elicit[testform.NameForm](ctx, "m")
		return mcp.NewToolResultText("ok"), nil
	})
	s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`))
	if !errors.Is(got, runtime.ErrElicitUnsupported) {
		t.Errorf("Elicit in a call with no session: %v, want ErrElicitUnsupported", got)
	}
}
