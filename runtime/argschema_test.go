package runtime_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
)

// TestArgumentsEnforceAdvertisedSchema: runtime.AddTool refuses every call
// whose arguments break the inputSchema tools/list advertises for an
// arguments struct that is not a form, keyword by keyword, naming each
// failing property; the cases come from the advertised schema itself.
func TestArgumentsEnforceAdvertisedSchema(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "rich", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "rich"}, func(_ context.Context, _ *runtime.CallToolRequest, in adaptertest.RichArgs) (*runtime.CallToolResult, error) {
		return runtime.TextResult(adaptertest.RichTool(in)), nil
	})
	schema := adaptertest.EnforcesAdvertised(t, srv, "rich")
	t.Logf("%d cases from %v", len(adaptertest.SchemaCases(t, schema)), schema)
}
