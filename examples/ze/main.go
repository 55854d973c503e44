// Command ze is the seed's ze_execute tool built with elicit: an MCP server
// whose tool asks the user which command to run when the caller left it out.
//
//	go run ./examples/ze -addr 127.0.0.1:0
//
// It serves MCP over Streamable HTTP at /mcp, on runtime.NewHTTPServer's
// http.Server (timeouts that a hostile client cannot hold connections open
// against, and that calls and elicitation streams outlive), and prints one line,
// "listening on http://HOST:PORT/mcp", on standard error once it accepts
// connections. Tools:
//
//	ze_execute   run a ze command (argument "command"); without one, elicit it
//	ze_add_peer  add a BGP peer, every field asked with a generated form
//	ze_drain     drain the peers (slow, -drain-time), then ask whether to shut
//	             their sessions down: a task for 2026-07-28 clients that
//	             declare the tasks extension, when ze has a task store
//
// Flags:
//
//	-addr                listen address (default 127.0.0.1:8080)
//	-read-timeout        http.Server ReadTimeout: reading a request, body included (default 30s)
//	-write-timeout       http.Server WriteTimeout: writing a reply or a stream event (default 30s)
//	-idle-timeout        http.Server IdleTimeout: closing an idle keep-alive connection (default 60s)
//	-session-idle        idle session expiry (default 30m)
//	-elicit-timeout      how long to wait for an answer (default 10m)
//	-stream-keep-alive   silence on an elicitation stream before a keep-alive comment (default 15s; below any proxy read timeout)
//	-stream-resume-window how long a dropped stream waits for the client to resume it (default 1m)
//	-nats                NATS URL: cluster the sessions with the other replicas (runtime/natscluster)
//	-replica             this replica's id, unique among the replicas (required with -nats)
//	-request-state-keys  file of the requestState keys every replica shares (required with -nats)
//	-nats-storage        where NATS keeps the session directory: file (default; survives a NATS restart) or memory
//	-nats-replicas       how many JetStream servers keep a copy of it (default 1)
//	-allowed-hosts       comma-separated extra Host names a loopback listener accepts
//	-allowed-origins     comma-separated Origin values browsers may call from ("*": any)
//	-tasks               file of the embedded task store (runtime/taskstore): ze_drain runs as a task, and a task waiting for its person survives a restart; with -nats the tasks are in JetStream instead, shared by the replicas
//	-drain-time          how long ze_drain takes to drain the peers (default 5s)
//	-stdio               serve MCP over stdin/stdout instead of HTTP (logs go to stderr)
//	-v                   log to standard error
//
// Telemetry is exported as the standard OpenTelemetry variables ask:
// OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER are "none" (the default:
// nothing is recorded), "console" (pretty-printed JSON on standard output,
// on standard error with -stdio: spans in batches within 5 s and when ze
// exits, metrics every minute and when ze exits) or "otlp" (OTLP over HTTP, configured by
// OTEL_EXPORTER_OTLP_ENDPOINT and the rest of the OTEL_EXPORTER_OTLP_*
// variables); any other value stops ze at start with an error. The trace of
// a call of ze_add_peer is in docs/telemetry.md.
//
// Every flag can also be set from the environment, as ZE_ and the flag's
// name in capitals with '_' for '-' (ZE_NATS, ZE_REPLICA,
// ZE_REQUEST_STATE_KEYS, ...); a flag given on the command line wins.
//
// The -request-state-keys file holds one key a line: 64 hex digits (32
// bytes, AES-256-GCM); blank lines and lines starting with '#' are skipped.
// The first key seals, every key opens: to rotate, put a new key first,
// deploy it to every replica, and remove the old one a RequestStateTTL
// (30m) later. Make one with
//
//	head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; echo
//
// With -nats, ze joins the cluster of every replica that uses the same NATS
// server (JetStream on) and shares the keys: a client's requests may land
// on any replica (docs/deploy.md, with the reverse proxy's settings).
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
	"github.com/go-elicit/elicit/runtime/taskstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx ends (SIGINT or SIGTERM in main). The console
// telemetry exporters write to stdout, or to stderr with -stdio.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ze", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	readTimeout := fs.Duration("read-timeout", runtime.HTTPReadTimeout, "http.Server ReadTimeout: reading a request, body included")
	writeTimeout := fs.Duration("write-timeout", runtime.HTTPWriteTimeout, "http.Server WriteTimeout: writing a reply or a stream event")
	idleTimeout := fs.Duration("idle-timeout", runtime.HTTPIdleTimeout, "http.Server IdleTimeout: closing an idle keep-alive connection")
	sessionIdle := fs.Duration("session-idle", runtime.DefaultSessionIdleTimeout, "idle session expiry")
	elicitTimeout := fs.Duration("elicit-timeout", runtime.DefaultElicitTimeout, "how long to wait for an elicitation answer")
	keepAlive := fs.Duration("stream-keep-alive", runtime.DefaultStreamKeepAlive, "silence on an elicitation stream before a keep-alive comment (keep it below any proxy's read timeout)")
	resumeWindow := fs.Duration("stream-resume-window", runtime.DefaultStreamResumeWindow, "how long a dropped elicitation stream waits for the client to resume it")
	natsURL := fs.String("nats", "", "NATS URL: cluster the sessions with the other replicas (runtime/natscluster)")
	replica := fs.String("replica", "", "this replica's id, unique among the replicas (required with -nats)")
	keyFile := fs.String("request-state-keys", "", "file of the requestState keys every replica shares, one a line in hex (required with -nats)")
	natsStorage := fs.String("nats-storage", "file", "where NATS keeps the session directory: file (survives a NATS restart) or memory")
	natsReplicas := fs.Int("nats-replicas", 1, "how many JetStream servers keep a copy of the session directory")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated extra Host names a loopback listener accepts")
	allowedOrigins := fs.String("allowed-origins", "", `comma-separated Origin values browsers may call from ("*": any)`)
	taskFile := fs.String("tasks", "", "file of the embedded task store: ze_drain runs as a task (with -nats the tasks are in JetStream instead)")
	drainTime := fs.Duration("drain-time", defaultDrainTime, "how long ze_drain takes to drain the peers")
	stdio := fs.Bool("stdio", false, "serve MCP over stdin/stdout instead of HTTP")
	verbose := fs.Bool("v", false, "log to standard error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := setFromEnv(fs, os.Getenv); err != nil {
		fmt.Fprintf(stderr, "ze: %v\n", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	opts := runtime.Options{
		Logger:             logger,
		SessionIdleTimeout: *sessionIdle,
		ElicitTimeout:      *elicitTimeout,
		StreamKeepAlive:    *keepAlive,
		StreamResumeWindow: *resumeWindow,
		AllowedHosts:       list(*allowedHosts),
		AllowedOrigins:     list(*allowedOrigins),
	}
	console := stdout
	if *stdio {
		console = stderr // standard output carries only JSON-RPC
	}
	otel, err := newProviders(ctx, os.Getenv, console)
	if err != nil {
		fmt.Fprintf(stderr, "ze: %v\n", err)
		return 2
	}
	defer func() {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := otel.Shutdown(shutdownCtx); err != nil {
			fmt.Fprintf(stderr, "ze: telemetry: %v\n", err)
		}
	}()
	opts.TracerProvider, opts.MeterProvider = otel.tracer, otel.meter
	if *keyFile != "" {
		keys, err := readKeys(*keyFile)
		if err != nil {
			fmt.Fprintf(stderr, "ze: -request-state-keys: %v\n", err)
			return 2
		}
		opts.RequestStateKeys = keys
	}
	if *natsURL != "" {
		if *keyFile == "" {
			fmt.Fprintln(stderr, "ze: -nats needs -request-state-keys: every replica must open the others' requestState")
			return 2
		}
		storage, err := storageType(*natsStorage)
		if err != nil {
			fmt.Fprintf(stderr, "ze: %v\n", err)
			return 2
		}
		cl, closeCluster, err := joinCluster(ctx, *natsURL, *replica, *sessionIdle, storage, *natsReplicas)
		if err != nil {
			fmt.Fprintf(stderr, "ze: %v\n", err)
			return 1
		}
		defer closeCluster()
		opts.Cluster = cl
		opts.Tasks.Store = cl.TaskStore()
	}
	if *taskFile != "" {
		if *natsURL != "" {
			fmt.Fprintln(stderr, "ze: -tasks is for one process: with -nats the replicas keep the tasks in JetStream")
			return 2
		}
		store, err := taskstore.Open(*taskFile)
		if err != nil {
			fmt.Fprintf(stderr, "ze: -tasks: %v\n", err)
			return 1
		}
		defer store.Close()
		opts.Tasks.Store = store
	}
	srv := newServer(opts, *drainTime)
	if *stdio {
		// Standard output carries only JSON-RPC; the client ends the
		// session by closing standard input.
		if err := srv.ServeStdioProcess(ctx); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "ze: %v\n", err)
			return 1
		}
		return 0
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "ze: %v\n", err)
		return 1
	}
	hs := runtime.NewHTTPServer("", mux)
	hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout = *readTimeout, *writeTimeout, *idleTimeout
	fmt.Fprintf(stderr, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "ze: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx) // answer waiting calls first, then close the listener
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "ze: shutdown: %v\n", err)
		return 1
	}
	return 0
}
