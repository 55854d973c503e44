// Command conformance is the fixture server of the official MCP conformance
// suite (npm @modelcontextprotocol/conformance): it serves, on /mcp, every
// tool the suite's server scenarios call, on both protocol eras (legacy
// 2025-03-26 … 2025-11-25 sessions, and 2026-07-28 stateless requests).
//
//	go run ./examples/conformance -addr 127.0.0.1:0
//
// Once it accepts connections it prints exactly one line on stderr,
//
//	listening on http://127.0.0.1:PORT/mcp
//
// and it serves until SIGINT or SIGTERM. "make conformance" builds it, runs
// both suite versions against it and compares the outcome with the committed
// baseline (see internal/conformance).
//
// The elicitation forms are //elicit:form structs (forms.go) compiled by
// elicitgen into main_elicit.go; run "go generate ./examples/conformance"
// after changing them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "`host:port` to listen on (port 0 picks a free one)")
	verbose := fs.Bool("v", false, "log the runtime's debug output on stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}

	opts := runtime.Options{Name: "elicit-conformance", Version: "1.0.0"}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv := runtime.NewServer(opts)
	addTools(srv)

	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// A slow client must not hold a plain reply forever; streams that
		// wait on a person clear these deadlines themselves.
		ReadTimeout:  time.Minute,
		WriteTimeout: time.Minute,
		IdleTimeout:  time.Minute,
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	// The listener accepts connections from here on; the line tells a driver
	// where (and that it may start).
	fmt.Fprintf(stderr, "listening on http://%s/mcp\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // wakes waiting elicitations first
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
