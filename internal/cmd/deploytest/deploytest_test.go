//go:build unix

package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDeployDocShowsTheNginxConfig: docs/deploy.md shows mcp.conf, the
// location block the deployment test runs nginx with, verbatim.
func TestDeployDocShowsTheNginxConfig(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), mcpConf) {
		t.Errorf("docs/deploy.md does not show internal/cmd/deploytest/mcp.conf verbatim; copy it into the doc:\n%s", mcpConf)
	}
}

// TestCutProxy: a POST's connection is cut right after the bytes that
// carry an elicitation reached the client, before its response ends; a
// GET's passes through whole.
func TestCutProxy(t *testing.T) {
	release := make(chan struct{})
	backend := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\"}\n\n")
		w.(http.Flusher).Flush()
		if r.Method == http.MethodPost {
			select { // the cut ends the request before this
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprint(w, "data: done\n\n")
	}), ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = backend.Serve(ln) }()
	defer backend.Close()
	defer close(release)
	p, err := newCutProxy(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()

	for _, method := range []string{http.MethodGet, http.MethodPost} {
		conn, err := net.Dial("tcp", p.addr())
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(conn, "%s /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", method)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		body, err := io.ReadAll(resp.Body)
		conn.Close()
		got := strings.Contains(string(body), "elicitation/create")
		done := strings.Contains(string(body), "data: done")
		switch {
		case !got:
			t.Errorf("%s: the elicitation did not reach the client: %q", method, body)
		case method == http.MethodGet && (err != nil || !done):
			t.Errorf("GET: cut (%v), body %q", err, body)
		case method == http.MethodPost && (err == nil || done):
			t.Errorf("POST: not cut (%v), body %q", err, body)
		}
	}
	if n := p.cuts.Load(); n != 1 {
		t.Errorf("cuts = %d, want 1", n)
	}
}

// TestFailuresNameTheTarget: each missed target is one message naming the
// scenario, the protocol, what missed and the target; a killed replica's
// own calls are not a miss, a client that waited out its timeout is.
func TestFailuresNameTheTarget(t *testing.T) {
	rows := []row{
		{scenario: "healthy", protocol: "2025-11-25", calls: 10, completed: 10, target: "none lost"},
		{scenario: "NATS restarted", protocol: "2025-11-25", calls: 10, completed: 7, firstErr: "503", target: "none lost when NATS restarts"},
		{scenario: "replica killed", protocol: "2026-07-28", calls: 10, completed: 8, lostOnVictim: 2, victim: "127.0.0.1:1", target: "only the victim's"},
		{scenario: "replica killed", protocol: "2025-11-25", calls: 10, completed: 7, lostOnVictim: 2, waited: 1, victim: "127.0.0.1:1", target: "only the victim's"},
		{scenario: "dropped connection", protocol: "2026-07-28", target: "none lost"},
	}
	got := failures(rows)
	want := []string{
		"NATS restarted, 2025-11-25: 3 of 10 calls lost (first error: 503); target: none lost when NATS restarts",
		"replica killed, 2025-11-25: 1 calls lost whose handler was not on the killed replica; 1 clients waited out their timeout (first error: ); target: only the victim's",
		"dropped connection, 2026-07-28: no call ran (first error: ); target: none lost",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
