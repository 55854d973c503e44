package gosdk

import (
	"net/http"
	"strings"

	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewStreamableHTTPHandler serves s over Streamable HTTP in both protocol
// eras on one endpoint. The go-sdk serves 2026-07-28 only without sessions
// (StreamableHTTPOptions.Stateless) and can send a legacy client an
// elicitation/create only with them, so this routes each request: one that
// names a 2026-07-28 (or later) MCP-Protocol-Version and carries no
// Mcp-Session-Id goes to a stateless handler, every other one (initialize,
// session traffic) to a stateful one. opts may be nil; its Stateless field
// is ignored. With a nil server every request gets 500 saying so.
func NewStreamableHTTPHandler(s *mcp.Server, opts *mcp.StreamableHTTPOptions) http.Handler {
	if s == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "elicit: gosdk.NewStreamableHTTPHandler was given a nil server: pass the *mcp.Server made by mcp.NewServer", http.StatusInternalServerError)
		})
	}
	var legacy, modern mcp.StreamableHTTPOptions
	if opts != nil {
		legacy, modern = *opts, *opts
	}
	legacy.Stateless, modern.Stateless = false, true
	get := func(*http.Request) *mcp.Server { return s }
	lh := mcp.NewStreamableHTTPHandler(get, &legacy)
	mh := mcp.NewStreamableHTTPHandler(get, &modern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && adapter.IsModern(strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))) {
			mh.ServeHTTP(w, r)
			return
		}
		lh.ServeHTTP(w, r)
	})
}
