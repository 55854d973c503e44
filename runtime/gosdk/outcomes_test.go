package gosdk_test

import (
	"context"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOutcomes: runtime.Elicit has the runtime's outcomes on the go-sdk,
// -32021 included.
func TestOutcomes(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "outcomes", Version: "1"}, nil)
	a := gosdk.New(s, gosdk.Options{ElicitTimeout: adaptertest.OutcomeTimeout})
	for name, body := range map[string]func(context.Context) (string, error){"outcome": adaptertest.OutcomeTool, "strict": adaptertest.StrictTool, "url": adaptertest.URLTool} {
		a.AddTool(&mcp.Tool{Name: name}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := body(ctx)
			if err != nil {
				return nil, err
			}
			return text(out), nil
		})
	}
	adaptertest.Outcomes(t, elicittest.NewServer(t, gosdk.NewStreamableHTTPHandler(s, nil)), runtime.CodeMissingCapability)
}
