package runtime

import (
	"net/http"
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

// TestOriginRule: the Origin and Host headers are read by one rule, the
// form a browser sends; anything else is refused before a name is
// compared, whatever AllowedOrigins and AllowedHosts list.
func TestOriginRule(t *testing.T) {
	allowed := []string{"https://app.example"}
	for _, c := range []struct {
		origins []string
		allowed []string
		want    bool
	}{
		{[]string{"http://localhost:8080"}, nil, true},
		{[]string{"http://LOCALHOST"}, nil, true},
		{[]string{"http://127.0.0.1:3000"}, nil, true},
		{[]string{"http://[::1]:3000"}, nil, true},
		{[]string{"https://app.example"}, allowed, true},
		{[]string{"HTTPS://APP.EXAMPLE"}, allowed, true},
		{[]string{"https://app.example"}, nil, false},
		{[]string{"https://other.example"}, allowed, false},
		{[]string{"https://other.example"}, []string{"*"}, true},
		{[]string{"null"}, nil, false},
		{[]string{"null"}, []string{"null"}, true},
		// What no browser sends.
		{[]string{"http://evil.example@localhost"}, nil, false},
		{[]string{"http://user@localhost"}, []string{"*"}, false},
		{[]string{"http://localhost#@evil.example"}, nil, false},
		{[]string{"http://localhost/"}, nil, false},
		{[]string{"http://localhost/path"}, nil, false},
		{[]string{"http://localhost?q"}, nil, false},
		{[]string{"//localhost"}, nil, false},
		{[]string{"localhost"}, nil, false},
		{[]string{"://localhost"}, nil, false},
		{[]string{"1http://localhost"}, nil, false},
		{[]string{"http://"}, nil, false},
		{[]string{"http://localhost:"}, nil, false},
		{[]string{"http://localhost:65536"}, nil, false},
		{[]string{"http://localhost:80a"}, nil, false},
		{[]string{"http://[::1"}, nil, false},
		{[]string{"http://[::1]x"}, nil, false},
		{[]string{"http://[127.0.0.1]"}, nil, false},
		{[]string{"http://[fe80::1%25eth0]"}, nil, false},
		{[]string{""}, nil, false},
		{[]string{"http://localhost", "http://localhost"}, nil, false},
		{[]string{"http://localhost", "https://evil.example"}, []string{"*"}, false},
	} {
		if got := originAllowed(c.origins, c.allowed); got != c.want {
			t.Errorf("Origin %q with AllowedOrigins %q: allowed %v, want %v", c.origins, c.allowed, got, c.want)
		}
	}
	for _, c := range []struct {
		host    string
		allowed []string
		want    bool
	}{
		{"localhost", nil, true},
		{"localhost:8080", nil, true},
		{"127.0.0.1:8080", nil, true},
		{"[::1]:8080", nil, true},
		{"[::1]", nil, true},
		{"mcp.internal:8080", []string{"mcp.internal"}, true},
		{"mcp.internal:8080", []string{"mcp.internal:8080"}, true},
		{"mcp.internal:8081", []string{"mcp.internal:8080"}, false},
		{"evil.example", nil, false},
		{"", nil, false},
		{"[::1", nil, false},
		{"[::1", []string{"[::1"}, false},
		{"::1", nil, false},
		{"localhost:", nil, false},
		{"localhost:99999", nil, false},
		{"evil.example@localhost", nil, false},
		{"localhost/x", nil, false},
		{"localhost:8080:1", nil, false},
	} {
		if got := loopbackHostAllowed(c.host, c.allowed); got != c.want {
			t.Errorf("Host %q with AllowedHosts %q: allowed %v, want %v", c.host, c.allowed, got, c.want)
		}
	}
}

// TestRepeatedOriginRefused: over HTTP, an Origin header given twice gets
// 403 even when the first is a loopback origin; once, it is allowed.
func TestRepeatedOriginRefused(t *testing.T) {
	f := newFixture(t, Options{})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		origins []string
		want    int
	}{
		{[]string{"http://localhost"}, 200},
		{[]string{"http://localhost", "https://evil.example"}, 403},
		{[]string{"http://localhost", "http://localhost"}, 403},
		{[]string{"http://evil.example@localhost"}, 403},
	} {
		req, err := http.NewRequest(http.MethodPost, f.url, strings.NewReader(init))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", acceptBoth)
		req.Header["Origin"] = c.origins
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp)
		if resp.StatusCode != c.want {
			t.Errorf("Origin %q: %d, want %d: %s", c.origins, resp.StatusCode, c.want, body)
		}
	}
}
