// Command cluster-demo is what `make demo-cluster` runs: three replicas of
// an eliciting MCP server, clustered with runtime/natscluster through an
// embedded NATS server, behind a round-robin reverse proxy without
// stickiness, all on loopback. It drives mcptest through the proxy in the
// legacy era (every answer POST may land on another replica than the call
// it answers: the cluster forwards it) and in 2026-07-28 (the retry may land
// anywhere: the shared RequestStateKeys open it), prints the transcripts
// and how many answers crossed replicas; then it restarts the NATS server
// (same port, same store directory: the session directory is kept on file,
// natscluster's default) and runs the legacy script once more, with the
// replicas untouched; and stops everything.
//
//	go run ./internal/cmd/cluster-demo -mcptest bin/mcptest
//
// -serve keeps the topology up (printing the proxy's URL) until interrupted,
// for trying other clients against it.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

func main() {
	mcptest := flag.String("mcptest", "bin/mcptest", "the mcptest binary")
	replicas := flag.Int("replicas", 3, "number of replicas")
	serve := flag.Bool("serve", false, "keep serving until interrupted instead of running the scripts")
	flag.Parse()
	if err := run(*mcptest, *replicas, *serve); err != nil {
		fmt.Fprintf(os.Stderr, "cluster-demo: %v\n", err)
		os.Exit(1)
	}
}

// script is one legacy session: three eliciting calls and a plain one.
const script = `elicit-accept {"command":"show bgp peer list"}
@ze_execute
elicit-accept {"command":"show version"}
@ze_execute
elicit-decline
@ze_execute
@ze_execute {"command":"show uptime"}
`

// forwarded counts the answers replicas handed to each other.
var forwarded atomic.Int64

type countingCluster struct{ *natscluster.Cluster }

func (c countingCluster) Deliver(ctx context.Context, replica, sessionID string, response []byte) error {
	forwarded.Add(1)
	return c.Cluster.Deliver(ctx, replica, sessionID, response)
}

func run(mcptest string, n int, serve bool) error {
	if n < 1 {
		return errors.New("-replicas must be at least 1")
	}
	natsOpts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: mustTemp(), NoLog: true, NoSigs: true}
	defer os.RemoveAll(natsOpts.StoreDir)
	ns, err := startNATS(natsOpts)
	if err != nil {
		return err
	}
	defer func() { ns.Shutdown() }() // the server running at the end
	// A restart keeps the port.
	natsOpts.Port = ns.Addr().(*net.TCPAddr).Port
	fmt.Printf("NATS (JetStream) at %s\n", ns.ClientURL())

	key := make([]byte, 32)
	_, _ = rand.Read(key)
	var (
		backends []*url.URL
		conns    []*nats.Conn
	)
	for i := range n {
		name := fmt.Sprintf("replica-%d", i+1)
		u, nc, stop, err := startReplica(ns.ClientURL(), name, [][]byte{key})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer stop()
		backends = append(backends, u)
		conns = append(conns, nc)
		fmt.Printf("%s at %s/mcp\n", name, u)
	}
	proxyURL, stopProxy, err := startProxy(backends)
	if err != nil {
		return err
	}
	defer stopProxy()
	endpoint := proxyURL + "/mcp"
	fmt.Printf("round-robin proxy (no stickiness) at %s\n", endpoint)

	if serve {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		fmt.Println("serving; interrupt to stop")
		<-ctx.Done()
		return nil
	}
	for i, protocol := range []string{runtime.Version20251125, runtime.Version20260728, runtime.Version20251125} {
		if i == 2 {
			fmt.Printf("\n=== restarting NATS (same port, same store directory); the replicas keep running\n")
			ns.Shutdown()
			ns.WaitForShutdown()
			if ns, err = startNATS(natsOpts); err != nil {
				return err
			}
			if err := waitConnected(conns); err != nil {
				return err
			}
		}
		fmt.Printf("\n=== mcptest --protocol %s --elicit through the proxy\n--- script\n%s--- output\n", protocol, script)
		before := forwarded.Load()
		cmd := exec.Command(mcptest, "--url", endpoint, "--protocol", protocol, "--elicit", "--timeout", "30s")
		cmd.Stdin = strings.NewReader(script)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.MultiWriter(os.Stdout, &out), io.MultiWriter(os.Stdout, &out)
		err := cmd.Run()
		// The script's decline makes one call fail on purpose (exit 1);
		// anything else, or a missing result, is a real failure.
		if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 {
			return fmt.Errorf("mcptest: %w", err)
		}
		for _, want := range []string{"ran show bgp peer list", "ran show version", "ran show uptime", "declined"} {
			if !strings.Contains(out.String(), want) {
				return fmt.Errorf("protocol %s: no %q in mcptest's output", protocol, want)
			}
		}
		fmt.Printf("--- answers forwarded between replicas: %d\n", forwarded.Load()-before)
	}
	fmt.Println("\nevery call completed through the proxy, before and after the NATS restart")
	return nil
}

// waitConnected waits until every connection is back, up to 10s.
func waitConnected(conns []*nats.Conn) error {
	deadline := time.Now().Add(10 * time.Second)
	for _, nc := range conns {
		for !nc.IsConnected() {
			if time.Now().After(deadline) {
				return errors.New("a replica did not reconnect to NATS within 10s")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return nil
}

// startNATS starts a NATS server with opts.
func startNATS(opts *server.Options) (*server.Server, error) {
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("nats server not ready within 10s")
	}
	return ns, nil
}

func mustTemp() string {
	dir, err := os.MkdirTemp("", "cluster-demo-")
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

// startReplica serves one clustered runtime.Server on a loopback port.
func startReplica(natsURL, name string, keys [][]byte) (*url.URL, *nats.Conn, func(), error) {
	// Reconnect for ever, and soon: a NATS restart must not end the replica.
	nc, err := nats.Connect(natsURL, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, nil, nil, err
	}
	cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: name})
	if err != nil {
		nc.Close()
		return nil, nil, nil, err
	}
	srv := runtime.NewServer(runtime.Options{Name: "cluster-demo", Version: "1", Cluster: countingCluster{cl}, RequestStateKeys: keys})
	srv.AddTool(runtime.Tool{Name: "ze_execute", Description: "Run a command (asks for it when missing)"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		command := argCommand(req.Arguments)
		if command == "" {
			if !runtime.ClientSupportsElicit(ctx) {
				return runtime.ErrorResult("missing required argument: command"), nil
			}
			content, err := runtime.ElicitSchema(ctx, "Which command should run?", map[string]any{
				"type":       "object",
				"properties": map[string]any{"command": map[string]any{"type": "string", "description": "the command"}},
				"required":   []any{"command"},
			})
			switch {
			case errors.Is(err, runtime.ErrElicitDeclined), errors.Is(err, runtime.ErrElicitCanceled):
				return runtime.ErrorResult("no command: %v (on %s)", err, name), nil
			case err != nil:
				return nil, err
			}
			command, _ = content["command"].(string)
		}
		return runtime.TextResult(fmt.Sprintf("ran %s (on %s)", command, name)), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = cl.Close()
		nc.Close()
		return nil, nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		_ = hs.Shutdown(ctx)
		_ = cl.Close()
		nc.Close()
	}
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}, nc, stop, nil
}

func argCommand(raw []byte) string {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(raw, &in) // no command: ask for it
	return in.Command
}

// startProxy is a round-robin reverse proxy: every request goes to the next
// backend, SSE flushed at once, small bodies buffered (see bufferBody).
func startProxy(backends []*url.URL) (string, func(), error) {
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backends[(next.Add(1)-1)%uint64(len(backends))])
			bufferBody(pr)
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String(), stop, nil
}

// bufferBody gives the outbound request its own copy of the body: passing
// the server's request body through (ReverseProxy's default) occasionally
// gets a still-streaming backend response cut on Go 1.26 with keep-alive.
func bufferBody(pr *httputil.ProxyRequest) {
	if pr.In.Body == nil || pr.In.Body == http.NoBody {
		return
	}
	b, err := io.ReadAll(pr.In.Body)
	if err != nil {
		return
	}
	pr.Out.Body = io.NopCloser(bytes.NewReader(b))
	pr.Out.ContentLength = int64(len(b))
}
