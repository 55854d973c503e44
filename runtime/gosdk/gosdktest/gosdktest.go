// Package gosdktest runs a tool handler of the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) the way elicittest.Handle runs
// one of the runtime: served by a real go-sdk server through runtime/gosdk,
// called by a real client once on each protocol version, its elicitations
// answered from a script.
//
//	gosdktest.Handle(t, deploy, DeployArgs{Service: "api"}, elicittest.Decline()).
//		WantError(t, "not deployed")
//
// It is a package of its own so that elicittest, which adopters' tests
// import, does not bring the go-sdk into their module graph.
package gosdktest

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
)

// Handle calls the go-sdk tool handler h with the arguments in and answers
// its elicitations with answers, in order, once on each protocol version
// (elicittest.Protocols), and returns the results, as elicittest.Handle
// does for a runtime handler. h is the one tool of a fresh *mcp.Server
// adapted with gosdk.New and served over Streamable HTTP on loopback, so
// its ctx and request are a real call's and runtime.Elicit asks
// the client; the tool is named after h's function. in
// reaches h as is: the go-sdk's argument checks do not run. h's Out, when
// not nil, becomes the result's structuredContent, as the go-sdk makes it.
func Handle[In, Out any](t testing.TB, h mcp.ToolHandlerFor[In, Out], in In, answers ...elicittest.Answer) elicittest.Results {
	t.Helper()
	serve := func(tool string) http.Handler {
		s := mcp.NewServer(&mcp.Implementation{Name: "gosdktest", Version: "1"}, nil)
		a := gosdk.New(s, gosdk.Options{})
		gosdk.AddTool(a, &mcp.Tool{Name: tool}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, Out, error) {
			return h(ctx, req, in)
		})
		return gosdk.NewStreamableHTTPHandler(s, nil)
	}
	return elicittest.HandleServed(t, h, serve, in, answers...)
}
