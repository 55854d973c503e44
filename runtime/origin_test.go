package runtime

import (
	"strings"
	"testing"
)

// TestHostCheckOnLoopback: a server on a loopback listener accepts only
// loopback host names (and AllowedHosts): DNS rebinding brings a hostile
// page to 127.0.0.1 under its own name, with or without an Origin header.
func TestHostCheckOnLoopback(t *testing.T) {
	f := newFixture(t, Options{AllowedHosts: []string{"mcp.internal"}})
	c := f.newClient()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	port := f.http.URL[strings.LastIndex(f.http.URL, ":")+1:]
	for host, want := range map[string]int{
		"localhost:" + port:    200,
		"127.0.0.1:" + port:    200,
		"[::1]:" + port:        200,
		"mcp.internal:" + port: 200,
		"evil.example:" + port: 403,
		"evil.example":         403,
	} {
		resp := c.post(init, "Host: "+host)
		body := readAll(t, resp)
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d: %s", host, resp.StatusCode, want, body)
		}
	}
}
