package runtime_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
)

// TestOutcomes: runtime.Elicit's outcomes, the same on the adapters
// (adaptertest.Outcomes).
func TestOutcomes(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "outcomes", ElicitTimeout: adaptertest.OutcomeTimeout})
	for name, body := range map[string]func(context.Context) (string, error){"outcome": adaptertest.OutcomeTool, "strict": adaptertest.StrictTool, "url": adaptertest.URLTool} {
		srv.AddTool(runtime.Tool{Name: name}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			text, err := body(ctx)
			if err != nil {
				return nil, err
			}
			return runtime.TextResult(text), nil
		})
	}
	adaptertest.Outcomes(t, elicittest.NewServer(t, srv), runtime.CodeMissingCapability)
}
