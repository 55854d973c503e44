package gosdk_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRegistrationPanics: every set-up mistake panics at once with the
// fix in its text (see "Set-up mistakes panic" in the runtime package doc).
func TestRegistrationPanics(t *testing.T) {
	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	type plain struct {
		Name string `json:"name"`
	}
	typed := func(context.Context, *mcp.CallToolRequest, plain) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}
	_, a := newAdapter(t, "registration")
	cases := map[string]struct {
		register func()
		want     []string
	}{
		"New(nil)": {func() { gosdk.New(nil, gosdk.Options{}) },
			[]string{"elicit: gosdk.New:", "mcp.NewServer"}},
		"bad RequestStateKeys": {func() {
			gosdk.New(mcp.NewServer(&mcp.Implementation{Name: "x"}, nil), gosdk.Options{RequestStateKeys: [][]byte{nil}})
		}, []string{"elicit: gosdk.New:", "RequestStateKeys[0] has 0 bytes, want 32"}},
		"nil Adapter": {func() { gosdk.AddTool(nil, &mcp.Tool{Name: "x"}, typed) },
			[]string{"elicit: gosdk.AddTool:", "gosdk.New(server, gosdk.Options{})"}},
		"zero Adapter": {func() { (&gosdk.Adapter{}).AddTool(&mcp.Tool{Name: "x"}, raw) },
			[]string{"elicit: gosdk.Adapter.AddTool:", "gosdk.New(server, gosdk.Options{})"}},
		"nil tool":        {func() { a.AddTool(nil, raw) }, []string{"nil tool"}},
		"nil tool, typed": {func() { gosdk.AddTool(a, nil, typed) }, []string{"elicit: gosdk.AddTool:", "nil tool"}},
		"no name":         {func() { a.AddTool(&mcp.Tool{}, raw) }, []string{"no name", "set its Name"}},
		"no name, typed":  {func() { gosdk.AddTool(a, &mcp.Tool{}, typed) }, []string{"no name", "set its Name"}},
		"nil handler": {func() { a.AddTool(&mcp.Tool{Name: "raw"}, nil) },
			[]string{`tool "raw" has a nil handler`}},
		"nil handler, typed": {func() { gosdk.AddTool[plain, any](a, &mcp.Tool{Name: "typed"}, nil) },
			[]string{`tool "typed" has a nil handler`}},
		"AskMissing on no form": {func() { gosdk.AddTool(a, &mcp.Tool{Name: "plain"}, typed, runtime.AskMissing("")) },
			[]string{"elicit: gosdk.AddTool:", `tool "plain"`, "generated form type", "//elicit:form"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { adaptertest.WantPanic(t, tc.register, tc.want...) })
	}
}
