package mcpgo_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestRegistrationPanics: every set-up mistake panics at once with the
// fix in its text (see "Set-up mistakes panic" in the runtime package
// doc). A server without the adapter's middleware cannot be given to
// AddTool: it takes the Adapter, which New made with the middleware
// installed.
func TestRegistrationPanics(t *testing.T) {
	type plain struct {
		Name string `json:"name"`
	}
	typed := func(context.Context, mcp.CallToolRequest, plain) (*mcp.CallToolResult, error) { return nil, nil }
	_, a := newAdapted(t, "registration")
	cases := map[string]struct {
		register func()
		want     []string
	}{
		"New(nil)": {func() { mcpgo.New(nil, mcpgo.Options{}) },
			[]string{"elicit: mcpgo.New:", "server.NewMCPServer"}},
		"bad RequestStateKeys": {func() { mcpgo.New(server.NewMCPServer("x", "1"), mcpgo.Options{RequestStateKeys: [][]byte{nil}}) },
			[]string{"elicit: mcpgo.New:", "RequestStateKeys[0] has 0 bytes, want 32"}},
		"nil Adapter": {func() { mcpgo.AddTool(nil, mcp.NewTool("x"), typed) },
			[]string{"elicit: mcpgo.AddTool:", "mcpgo.New(server, mcpgo.Options{})"}},
		"zero Adapter": {func() { mcpgo.AddTool(&mcpgo.Adapter{}, mcp.NewTool("x"), typed) },
			[]string{"elicit: mcpgo.AddTool:", "mcpgo.New(server, mcpgo.Options{})"}},
		"no name": {func() { mcpgo.AddTool(a, mcp.Tool{}, typed) }, []string{"elicit: mcpgo.AddTool:", "no name", "set its Name"}},
		"nil handler": {func() { mcpgo.AddTool[plain](a, mcp.NewTool("typed"), nil) },
			[]string{"elicit: mcpgo.AddTool:", `tool "typed" has a nil handler`}},
		"AskMissing on no form": {func() { mcpgo.AddTool(a, mcp.NewTool("plain"), typed, runtime.AskMissing("")) },
			[]string{"elicit: mcpgo.AddTool:", `tool "plain"`, "generated form type", "//elicit:form"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { adaptertest.WantPanic(t, tc.register, tc.want...) })
	}
}
