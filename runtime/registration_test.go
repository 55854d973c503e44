package runtime_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestRegistrationPanics: every set-up mistake panics at once with the
// fix in its text (see "Set-up mistakes panic" in the package doc).
func TestRegistrationPanics(t *testing.T) {
	raw := func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) { return nil, nil }
	type plain struct {
		Name string `json:"name"`
	}
	typed := func(context.Context, *runtime.CallToolRequest, plain) (*runtime.CallToolResult, error) {
		return nil, nil
	}
	srv := runtime.NewServer(runtime.Options{})
	cases := map[string]struct {
		register func()
		want     []string
	}{
		"zero Server": {func() { (&runtime.Server{}).AddTool(runtime.Tool{Name: "x"}, raw) },
			[]string{"elicit: Server.AddTool:", "runtime.NewServer(runtime.Options{})"}},
		"nil Server, typed": {func() { runtime.AddTool(nil, runtime.Tool{Name: "x"}, typed) },
			[]string{"elicit: AddTool:", "runtime.NewServer(runtime.Options{})"}},
		"no name": {func() { srv.AddTool(runtime.Tool{}, raw) },
			[]string{"elicit: Server.AddTool:", "no name", "set Tool.Name"}},
		"no name, typed": {func() { runtime.AddTool(srv, runtime.Tool{}, typed) },
			[]string{"elicit: AddTool:", "set Tool.Name"}},
		"nil handler": {func() { srv.AddTool(runtime.Tool{Name: "raw"}, nil) },
			[]string{`tool "raw" has a nil handler`}},
		"nil handler, typed": {func() { runtime.AddTool[plain](srv, runtime.Tool{Name: "typed"}, nil) },
			[]string{"elicit: AddTool:", `tool "typed" has a nil handler`}},
		"AskMissing on no form": {func() { runtime.AddTool(srv, runtime.Tool{Name: "plain"}, typed, runtime.AskMissing("")) },
			[]string{"elicit: AddTool:", `tool "plain"`, "generated form type", "//elicit:form", "leave AskMissing out"}},
		"DeferTask without TaskSupport": {func() { srv.AddTool(runtime.Tool{Name: "later", DeferTask: true}, raw) },
			[]string{"elicit: AddTool:", `tool "later" has DeferTask`, "TaskOptional or TaskRequired"}},
		"DeferTask, TaskForbidden": {func() {
			srv.AddTool(runtime.Tool{Name: "later", DeferTask: true, TaskSupport: runtime.TaskForbidden}, raw)
		},
			[]string{`tool "later" has DeferTask`}},
		"bad RequestStateKeys": {func() { runtime.NewServer(runtime.Options{RequestStateKeys: [][]byte{{1}}}) },
			[]string{"RequestStateKeys[0] has 1 bytes, want 32"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) { adaptertest.WantPanic(t, tc.register, tc.want...) })
	}
	// A form with AskMissing registers without a panic.
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, func(context.Context, *runtime.CallToolRequest, testform.AskForm) (*runtime.CallToolResult, error) {
		return nil, nil
	}, runtime.AskMissing(""))
}
