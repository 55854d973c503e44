package gosdk

import (
	"net/http"
	"strings"

	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewStreamableHTTPHandler serves s over Streamable HTTP with sessions and
// without on one endpoint. The go-sdk serves 2026-07-28 only without sessions
// (StreamableHTTPOptions.Stateless) and can send a client of an initialized
// session an elicitation/create only with them, so this routes each request:
// one that names a 2026-07-28 (or later) MCP-Protocol-Version and carries no
// Mcp-Session-Id goes to a stateless handler, every other one (initialize,
// session traffic) to a stateful one. opts may be nil; its Stateless field
// is ignored. With a nil server every request gets 500 saying so.
func NewStreamableHTTPHandler(s *mcp.Server, opts *mcp.StreamableHTTPOptions) http.Handler {
	if s == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "elicit: gosdk.NewStreamableHTTPHandler was given a nil server: pass the *mcp.Server made by mcp.NewServer", http.StatusInternalServerError)
		})
	}
	var sessionOpts, statelessOpts mcp.StreamableHTTPOptions
	if opts != nil {
		sessionOpts, statelessOpts = *opts, *opts
	}
	sessionOpts.Stateless, statelessOpts.Stateless = false, true
	get := func(*http.Request) *mcp.Server { return s }
	sessionful := mcp.NewStreamableHTTPHandler(get, &sessionOpts)
	stateless := mcp.NewStreamableHTTPHandler(get, &statelessOpts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && adapter.IsInputRequired(strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))) {
			stateless.ServeHTTP(w, r)
			return
		}
		sessionful.ServeHTTP(w, r)
	})
}
