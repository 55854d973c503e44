package gosdk_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// greeting is the typed output of the tool "greet".
type greeting struct {
	Greeting string `json:"greeting"`
}

// gosdk.AddTool with runtime.AskMissing asks for the missing required
// arguments on every protocol (adaptertest.AskMissing), though the go-sdk
// itself refuses a call without them; the typed output still becomes the
// structured content.
func TestAskMissing(t *testing.T) {
	s, a := newAdapter(t, "askmissing")
	var runs atomic.Int32
	gosdk.AddTool(a, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, in testform.AskForm) (*mcp.CallToolResult, greeting, error) {
		runs.Add(1)
		return text(adaptertest.GreetTool(in)), greeting{adaptertest.GreetTool(in)}, nil
	}, runtime.AskMissing(adaptertest.AskMissingMessage))
	h := gosdk.NewStreamableHTTPHandler(s, nil)
	adaptertest.AskMissing(t, h, &runs)
	elicittest.NewServer(t, h).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "greet", map[string]any{"name": "Ada"}, elicittest.AcceptRaw(`{"count":2}`))
		res.WantStructured(t, greeting{"Ada x2"})
	})
}
