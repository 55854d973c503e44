package gosdk_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gosdk.AddTool with runtime.AskMissing asks for the missing required
// arguments on every protocol (adaptertest.AskMissing), though the go-sdk
// itself refuses a call without them.
func TestAskMissing(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "askmissing", Version: "1"}, nil)
	a, err := gosdk.New(s, gosdk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	gosdk.AddTool(a, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, in testform.AskForm) (*mcp.CallToolResult, any, error) {
		runs.Add(1)
		return text(adaptertest.GreetTool(in)), nil, nil
	}, runtime.AskMissing(adaptertest.AskMissingMessage))
	adaptertest.AskMissing(t, gosdk.NewStreamableHTTPHandler(s, nil), &runs)
}
