package natscluster_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/natscluster"
)

// The test topology: an embedded NATS server, N replicas (each a
// runtime.Server on its own loopback httptest server, each with its own
// natscluster.Cluster) and a round-robin reverse proxy without stickiness
// in front of them.

// startNATS runs a JetStream-enabled NATS server on a random loopback port.
func startNATS(tb testing.TB) *server.Server {
	tb.Helper()
	return startNATSAt(tb, -1, tb.TempDir())
}

// startNATSAt runs a JetStream-enabled NATS server on a loopback port (-1:
// any) keeping its JetStream files in storeDir.
func startNATSAt(tb testing.TB, port int, storeDir string) *server.Server {
	tb.Helper()
	ns, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  storeDir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		tb.Fatalf("nats server: %v", err)
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		tb.Fatal("nats server not ready within 10s")
	}
	tb.Cleanup(ns.Shutdown)
	return ns
}

// askSchema is the form of the "ask" tool.
var askSchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"name": map[string]any{"type": "string"}},
	"required":   []any{"name"},
}

// replica is one server of the topology.
type replica struct {
	name string
	srv  *runtime.Server
	hs   *httptest.Server
	url  string // its MCP endpoint
	nc   *nats.Conn
	cl   *countingCluster // nil without a cluster
	// outcomes receives what each "ask" handler's Elicit returned.
	outcomes chan error
	// claimed counts the "once" calls that got past runtime.ClaimCall.
	claimed atomic.Int32
}

// countingCluster counts the answers this replica forwarded.
type countingCluster struct {
	*natscluster.Cluster
	forwarded atomic.Int64
}

func (c *countingCluster) Deliver(ctx context.Context, replica, sessionID string, response []byte) error {
	c.forwarded.Add(1)
	return c.Cluster.Deliver(ctx, replica, sessionID, response)
}

type topology struct {
	tb       testing.TB
	ns       *server.Server
	replicas []*replica
	proxy    *httptest.Server
	url      string // the proxy's MCP endpoint
	keys     [][]byte
	storage  jetstream.StorageType // of the replicas' buckets
	grace    time.Duration         // the replicas' ReconnectGrace
}

// newTopology starts n replicas, clustered through ns unless ns is nil,
// sharing one RequestStateKeys key, behind a round-robin proxy.
func newTopology(tb testing.TB, ns *server.Server, n int) *topology {
	tb.Helper()
	return newTopologyStorage(tb, ns, n, jetstream.FileStorage, 0)
}

// newTopologyStorage is newTopology with the buckets in storage, and the
// replicas' natscluster.Options.ReconnectGrace (0: the default).
func newTopologyStorage(tb testing.TB, ns *server.Server, n int, storage jetstream.StorageType, grace time.Duration) *topology {
	tb.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	top := &topology{tb: tb, ns: ns, keys: [][]byte{key}, storage: storage, grace: grace}
	for i := range n {
		top.replicas = append(top.replicas, top.startReplica(fmt.Sprintf("r%d", i)))
	}
	backends := make([]*url.URL, n)
	for i, r := range top.replicas {
		backends[i], _ = url.Parse(r.hs.URL)
	}
	var next atomic.Uint64
	rp := &httputil.ReverseProxy{
		// No stickiness at all: every request goes to the next backend.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(backends[(next.Add(1)-1)%uint64(len(backends))])
			bufferBody(pr)
		},
		FlushInterval: -1, // SSE events must pass at once
		Transport:     &http.Transport{MaxIdleConnsPerHost: 64},
		ErrorLog:      proxyLog(),
	}
	top.proxy = httptest.NewServer(rp)
	top.url = top.proxy.URL + "/mcp"
	tb.Cleanup(func() {
		top.proxy.CloseClientConnections()
		top.proxy.Close()
	})
	return top
}

func (top *topology) startReplica(name string) *replica {
	tb := top.tb
	r := &replica{name: name, outcomes: make(chan error, 4096)}
	opts := runtime.Options{Name: "cluster-test", RequestStateKeys: top.keys, ElicitTimeout: 30 * time.Second}
	if os.Getenv("CLUSTER_DEBUG") != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("replica", name)
	}
	if top.ns != nil {
		nc, err := nats.Connect(top.ns.ClientURL(), nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
		if err != nil {
			tb.Fatalf("nats connect: %v", err)
		}
		cl, err := natscluster.New(context.Background(), natscluster.Options{Conn: nc, Replica: name, SessionTTL: time.Minute, Storage: top.storage, Logger: opts.Logger, ReconnectGrace: top.grace,
			// Correctness, not latency, is tested here: a loaded CI machine
			// under -race must not turn a slow NATS round trip into a loss.
			RequestTimeout: 10 * time.Second})
		if err != nil {
			tb.Fatalf("natscluster.New: %v", err)
		}
		r.nc, r.cl = nc, &countingCluster{Cluster: cl}
		opts.Cluster = r.cl
		opts.SessionIdleTimeout = time.Minute
	}
	r.srv = runtime.NewServer(opts)
	r.srv.AddTool(runtime.Tool{Name: "ask", Description: "asks for a name"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		var in struct {
			Tag string `json:"tag"`
		}
		_ = json.Unmarshal(req.Arguments, &in)
		content, err := runtime.ElicitSchema(ctx, "tag:"+in.Tag, askSchema)
		if req.Session.ProtocolVersion() != runtime.Version20260728 || err == nil {
			select {
			case r.outcomes <- err:
			default:
			}
		}
		if err != nil {
			if os.Getenv("CLUSTER_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "%s: elicit: %v\n", name, err)
			}
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("hello %v from %s", content["name"], name)), nil
	})
	r.srv.AddTool(runtime.Tool{Name: "once"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		if _, err := runtime.ElicitSchema(ctx, "once?", askSchema); err != nil {
			return nil, err
		}
		if err := runtime.ClaimCall(ctx); err != nil {
			return nil, err
		}
		r.claimed.Add(1)
		return runtime.TextResult("once from " + name), nil
	})
	r.srv.AddTool(runtime.Tool{Name: "plain"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		return runtime.TextResult("plain from " + name), nil
	})
	r.hs = httptest.NewServer(r.srv)
	r.url = r.hs.URL + "/mcp"
	tb.Cleanup(r.stop)
	return r
}

// stop shuts the replica down (idempotent): server, HTTP, cluster, NATS.
func (r *replica) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
	r.hs.CloseClientConnections()
	r.hs.Close()
	if r.cl != nil {
		_ = r.cl.Close()
		r.nc.Close()
	}
}

// waitOutcome returns the next "ask" outcome on r.
func (r *replica) waitOutcome(tb testing.TB) error {
	tb.Helper()
	select {
	case err := <-r.outcomes:
		return err
	case <-time.After(10 * time.Second):
		tb.Fatalf("replica %s: no handler outcome within 10s", r.name)
		return nil
	}
}

// rawClient is a bare-HTTP client of a session, for exchanges the test must
// place on a chosen replica.
type rawClient struct {
	hc  *http.Client
	sid string
	n   int
}

func newRawClient() *rawClient {
	return &rawClient{hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
}

func (c *rawClient) close() { c.hc.Transport.(*http.Transport).CloseIdleConnections() }

func (c *rawClient) do(method, endpoint string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(method, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set(runtime.HeaderSessionID, c.sid)
	}
	return c.hc.Do(req)
}

// initialize opens a 2025-11-25 session that declares form elicitation.
func (c *rawClient) initialize(endpoint string) error {
	resp, err := c.do(http.MethodPost, endpoint, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"0"}}}`))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("initialize: %s", resp.Status)
	}
	c.sid = resp.Header.Get(runtime.HeaderSessionID)
	return nil
}

// call starts tools/call "ask" and returns its open stream and the id of
// the elicitation it carries.
func (c *rawClient) call(endpoint, tag string) (*http.Response, *bufio.Reader, string, error) {
	c.n++
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{"tag":%q}}}`, c.n, tag)
	resp, err := c.do(http.MethodPost, endpoint, []byte(body))
	if err != nil {
		return nil, nil, "", err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, nil, "", fmt.Errorf("tools/call: %s %s", resp.Status, b)
	}
	br := bufio.NewReader(resp.Body)
	data, err := readEvent(br)
	if err != nil {
		resp.Body.Close()
		return nil, nil, "", fmt.Errorf("reading the elicitation: %w", err)
	}
	var req struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal(data, &req); err != nil || req.Method != "elicitation/create" {
		resp.Body.Close()
		return nil, nil, "", fmt.Errorf("expected elicitation/create, got %s", data)
	}
	return resp, br, req.ID, nil
}

// answer posts the accepted answer to elicitation id and returns the status
// and body.
func (c *rawClient) answer(endpoint, id, name string) (int, string, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{"action":"accept","content":{"name":%q}}}`, id, name)
	resp, err := c.do(http.MethodPost, endpoint, []byte(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// result reads the call's final event and returns its first text.
func result(resp *http.Response, br *bufio.Reader) (string, error) {
	defer resp.Body.Close()
	data, err := readEvent(br)
	_, _ = io.Copy(io.Discard, br) // the stream ends after the result: keep the connection
	if err != nil {
		return "", fmt.Errorf("reading the result: %w", err)
	}
	var res struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &res); err != nil || len(res.Result.Content) == 0 {
		return "", fmt.Errorf("bad result %s", data)
	}
	if res.Result.IsError {
		return "", fmt.Errorf("tool error: %s", res.Result.Content[0].Text)
	}
	return res.Result.Content[0].Text, nil
}

// readEvent returns the data of the next SSE event.
func readEvent(r *bufio.Reader) ([]byte, error) {
	var data []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if data != nil {
				return data, nil
			}
			continue
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
}

func proxyLog() *log.Logger {
	if os.Getenv("CLUSTER_DEBUG") != "" {
		return log.New(os.Stderr, "proxy: ", log.Lmicroseconds)
	}
	return log.New(io.Discard, "", 0)
}

// bufferBody gives the outbound request its own copy of the (small, JSON)
// body. Passing the server's request body through to the transport, as
// ReverseProxy does by default, loses about one streamed call in a thousand
// with client keep-alive on Go 1.26: the proxy's transport closes the
// backend connection of a still-streaming response ("use of closed network
// connection" during the body copy). A bare net/http handler behind the
// same proxy shows it too, so it is not the runtime's doing; real load
// balancers buffer small bodies anyway.
func bufferBody(pr *httputil.ProxyRequest) {
	if pr.In.Body == nil || pr.In.Body == http.NoBody {
		return
	}
	b, err := io.ReadAll(pr.In.Body)
	if err != nil {
		return // the backend sees a short body and answers 400
	}
	pr.Out.Body = io.NopCloser(bytes.NewReader(b))
	pr.Out.ContentLength = int64(len(b))
}
