package runtime_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestAskMissingShared: runtime.AddTool with AskMissing passes the
// adapters' shared AskMissing test, tools/list included: what it asks for
// is advertised as optional, so a UI client can call without it.
func TestAskMissingShared(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "askmissing"})
	var runs atomic.Int32
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, func(_ context.Context, _ *runtime.CallToolRequest, in testform.AskForm) (*runtime.CallToolResult, error) {
		runs.Add(1)
		return runtime.TextResult(adaptertest.GreetTool(in)), nil
	}, runtime.AskMissing(adaptertest.AskMissingMessage))
	adaptertest.AskMissing(t, srv, &runs)
}
