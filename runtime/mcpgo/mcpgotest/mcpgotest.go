// Package mcpgotest runs a tool handler of mcp-go
// (github.com/mark3labs/mcp-go) the way elicittest.Handle runs one of the
// runtime: served by a real mcp-go server through runtime/mcpgo, called by
// a real client once on each protocol version, its elicitations answered
// from a script.
//
//	mcpgotest.Handle(t, deploy, DeployArgs{Service: "api"}, elicittest.Decline()).
//		WantError(t, "not deployed")
//
// It is a package of its own so that elicittest, which adopters' tests
// import, does not bring mcp-go into their module graph.
package mcpgotest

import (
	"context"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/mcpgo"
)

// Handle calls the mcp-go tool handler h (the kind mcpgo.AddTool takes)
// with the arguments in and answers its elicitations with answers, in
// order, once on each protocol version (elicittest.Protocols), and returns
// the results, as elicittest.Handle does for a runtime handler. h is the
// one tool of a fresh *server.MCPServer adapted with mcpgo.New and served
// over Streamable HTTP on loopback, so its ctx and request are a real
// call's and runtime.Elicit asks the client; the tool is
// named after h's function. in reaches h as is: mcpgo.AddTool's argument
// checks do not run.
func Handle[In any](t testing.TB, h func(context.Context, mcp.CallToolRequest, In) (*mcp.CallToolResult, error), in In, answers ...elicittest.Answer) elicittest.Results {
	t.Helper()
	serve := func(tool string) http.Handler {
		s := server.NewMCPServer("mcpgotest", "1")
		mcpgo.New(s, mcpgo.Options{})
		s.AddTool(mcp.NewTool(tool), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return h(ctx, req, in)
		})
		return server.NewStreamableHTTPServer(s)
	}
	return elicittest.HandleServed(t, h, serve, in, answers...)
}
