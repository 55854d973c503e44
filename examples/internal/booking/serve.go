package booking

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
)

// Serve is the body of an example's main: it parses args (-addr, -v),
// builds the MCP handler with newHandler, serves it at /mcp, prints
// "listening on http://HOST:PORT/mcp" to stderr once it accepts
// connections, and shuts down on SIGINT or SIGTERM. It returns the exit
// code: 0 after a clean shutdown, 2 for bad flags, 1 for any other error,
// which it prints to stderr prefixed with name.
func Serve(name string, args []string, stderr io.Writer, newHandler func(*slog.Logger) (http.Handler, error)) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	verbose := fs.Bool("v", false, "log to standard error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	handler, err := newHandler(logger)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	// No ReadTimeout or WriteTimeout: an elicitation stream lasts as long
	// as the person takes to answer, and neither the go-sdk nor mcp-go
	// lifts the deadlines itself (the ReadTimeout's expiry would cancel
	// the call). The idle and header timeouts touch no request.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10}
	// Catch the signals before saying so: whoever waits for the line may
	// send one at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(stderr, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "%s: shutdown: %v\n", name, err)
		return 1
	}
	return 0
}
