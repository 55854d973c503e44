package bookingtest

import (
	"bufio"
	"context"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
)

// mainServes checks that Main serves on the address it was given, announces
// it on stderr, answers a real client, and exits 0 on SIGINT.
func (s Suite) mainServes(t *testing.T) {
	pr, pw := io.Pipe()
	rc := make(chan int, 1)
	go func() {
		rc <- s.Main([]string{"-addr", "127.0.0.1:0"}, pw)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("first line %q", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, mcpclient.Options{URL: url, Protocol: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "book_table", []byte(`{}`))
	if err != nil || !res.IsError || strings.Join(res.Lines(), "") != "missing required arguments: name, guests" {
		t.Fatalf("got %v, %v", res, err)
	}
	_ = c.Close()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-rc:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("main did not return after SIGINT")
	}
}

// mainBadFlag checks that Main rejects an unknown flag with exit code 2.
func (s Suite) mainBadFlag(t *testing.T) {
	var b strings.Builder
	if code := s.Main([]string{"-nope"}, &b); code != 2 || !strings.Contains(b.String(), "flag provided but not defined: -nope") {
		t.Fatalf("exit %d, stderr %q", code, b.String())
	}
}
