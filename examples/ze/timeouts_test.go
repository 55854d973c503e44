package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// runZe runs the example's HTTP server with args on a loopback port and
// returns its host:port; it stops at the end of the test.
func runZe(t *testing.T, args ...string) string {
	t.Helper()
	addr, stop := serveZe(t, io.Discard, args...)
	t.Cleanup(stop)
	return addr
}

// serveZe runs the example's HTTP server with args on a loopback port,
// its standard output written to stdout, and returns its host:port and
// what stops it (and fails the test unless it exits with 0).
func serveZe(t *testing.T, stdout io.Writer, args ...string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), stdout, pw); pw.Close() }()
	stop := func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("ze exited with %d", code)
		}
	}
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		stop()
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on http://")
	if !ok {
		stop()
		t.Fatalf("ze said %q", line)
	}
	return strings.TrimSuffix(addr, "/mcp"), stop
}

// TestZeServerTimeouts: the example's server, built the way the README
// shows, closes an idle keep-alive connection after -idle-timeout and cuts
// off a body trickled past -read-timeout. Before, it set ReadHeaderTimeout
// alone: 20,000 idle connections were held and a trickled body kept its
// connection for over 45s.
func TestZeServerTimeouts(t *testing.T) {
	addr := runZe(t, "-idle-timeout", "200ms", "-read-timeout", "300ms")
	ping := func(conn net.Conn) {
		body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	}
	for _, tc := range []struct {
		name string
		send func(net.Conn)
	}{
		{"idle keep-alive", func(conn net.Conn) {
			ping(conn)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("initialize: %v %v", resp, err)
			}
		}},
		{"trickled body", func(conn net.Conn) {
			fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", addr)
			go func() {
				for i := 0; i < 100; i++ {
					if _, err := conn.Write([]byte{' '}); err != nil {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
			}()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			tc.send(conn)
			_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = io.Copy(io.Discard, conn)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Error("connection still open after 10s")
			}
		})
	}
}
