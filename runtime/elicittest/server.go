package elicittest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// Transports a [Client] can speak.
const (
	HTTP  = "http"  // Streamable HTTP to an httptest server on loopback
	Stdio = "stdio" // newline-delimited JSON-RPC on in-process pipes (a *runtime.Server only)
)

// DefaultCallTimeout bounds each [Client.Call] unless [Server.CallTimeout]
// says otherwise.
const DefaultCallTimeout = 10 * time.Second

// stdioStopWait bounds how long a closed stdio connection's ServeStdio may
// take to return.
const stdioStopWait = 10 * time.Second

// Protocols returns the protocol versions [Server.Each] runs, oldest first:
// every version with elicitation that the runtime and the adapters serve.
func Protocols() []string {
	return []string{runtime.Version20250618, runtime.Version20251125, runtime.Version20260728}
}

// Server is an MCP server under test: an httptest server on loopback
// around its handler and, for a *runtime.Server, stdio connections on
// in-process pipes. Everything it starts stops with the test.
type Server struct {
	// URL is the server's Streamable HTTP endpoint.
	URL string
	// CallTimeout bounds each Call of the server's clients, elicitations
	// included; DefaultCallTimeout when zero. Set it before connecting.
	CallTimeout time.Duration

	rt *runtime.Server // nil: an http.Handler of another library, HTTP only
}

// NewServer serves h for the test t and stops it in t.Cleanup, once the
// clients connected to it have closed. h is any MCP Streamable HTTP
// handler: a *runtime.Server, or a server on the official Go SDK or mcp-go
// (through runtime/gosdk or runtime/mcpgo). A *runtime.Server itself (not
// wrapped in middleware) is also served over stdio, each stdio client on
// its own ServeStdio connection.
func NewServer(t testing.TB, h http.Handler) *Server {
	t.Helper()
	if h == nil {
		t.Fatal("elicittest: NewServer: nil handler: pass the server's http.Handler (a *runtime.Server, a gosdk or mcpgo handler)")
		return nil
	}
	rt, isRuntime := h.(*runtime.Server)
	if isRuntime && rt == nil {
		t.Fatal("elicittest: NewServer: nil *runtime.Server: build it with runtime.NewServer")
		return nil
	}
	s, stop := newServer(h)
	t.Cleanup(stop)
	return s
}

// newServer serves h on loopback until stop.
func newServer(h http.Handler) (s *Server, stop func()) {
	rt, _ := h.(*runtime.Server)
	hs := httptest.NewServer(h)
	return &Server{URL: hs.URL, rt: rt}, func() {
		hs.CloseClientConnections()
		hs.Close()
	}
}

// Transports returns the transports the server is reachable over: HTTP,
// and Stdio for a *runtime.Server.
func (s *Server) Transports() []string {
	if s != nil && s.rt != nil {
		return []string{HTTP, Stdio}
	}
	return []string{HTTP}
}

// Each runs f once per protocol version ([Protocols]) and transport
// ([Server.Transports]), each time in a subtest named VERSION/TRANSPORT
// (go test -run 'TestX/2025-11-25/stdio' runs one) with a client connected
// for it that declares elicitation (form and, where the version has it,
// url mode).
func (s *Server) Each(t *testing.T, f func(t *testing.T, c *Client)) {
	t.Helper()
	if s == nil || f == nil {
		t.Fatal("elicittest: Each needs a Server from NewServer and a function")
		return
	}
	for _, version := range Protocols() {
		t.Run(version, func(t *testing.T) {
			for _, transport := range s.Transports() {
				t.Run(transport, func(t *testing.T) {
					f(t, s.Connect(t, Conn{Protocol: version, Transport: transport}))
				})
			}
		})
	}
}

// Capability is the elicitation capability a client declares.
type Capability int

// The capabilities a [Conn] may declare.
const (
	// FormAndURL declares form mode and, from 2025-11-25 on, url mode
	// (on 2025-06-18, which has only form mode, it is sent as {}).
	FormAndURL Capability = iota
	// FormOnly declares form mode alone; the client refuses a url-mode
	// elicitation with JSON-RPC error -32602, as a real one would.
	FormOnly
	// NoElicitation declares no elicitation capability: the handler sees a
	// client it cannot ask (runtime.CanElicit fails).
	NoElicitation
)

// Conn says how [Server.Connect] connects a client.
type Conn struct {
	// Protocol is the version to speak; "" is the newest, 2026-07-28.
	Protocol string
	// Transport is HTTP or Stdio; "" is HTTP.
	Transport string
	// Elicitation is the capability to declare; the zero value is
	// FormAndURL.
	Elicitation Capability
	// NoSampling declares no sampling capability (the client declares
	// sampling, with tools from 2025-11-25 on, otherwise); NoRoots no roots
	// capability. The handler's runtime.Sample or ListRoots then fails with
	// a *runtime.MissingCapabilityError.
	NoSampling, NoRoots bool
	// Tasks declares the tasks extension (runtime.ExtensionTasks; on
	// 2026-07-28 only): a Call of a tool whose TaskSupport allows tasks
	// then runs as a task, its questions answered from the same script
	// (see "Tasks" in the package doc). The server needs a task store
	// (runtime.Options.Tasks).
	Tasks bool
}

// Connect connects a client to the server as conn says, the legacy
// handshake done, and closes it in t.Cleanup (a DELETE of its session over
// HTTP, the end of its input over stdio).
func (s *Server) Connect(t testing.TB, conn Conn) *Client {
	t.Helper()
	if s == nil || s.URL == "" {
		t.Fatal("elicittest: Connect on a nil or zero Server: get one from elicittest.NewServer")
		return nil
	}
	c, closeClient := s.connect(t, conn)
	if c != nil {
		t.Cleanup(closeClient)
	}
	return c
}

// connect is Connect without the cleanup: closeClient closes the client
// and, over stdio, waits for its ServeStdio to return.
func (s *Server) connect(t testing.TB, conn Conn) (c *Client, closeClient func()) {
	t.Helper()
	if conn.Protocol == "" {
		conn.Protocol = runtime.Version20260728
	}
	if conn.Transport == "" {
		conn.Transport = HTTP
	}
	if !slices.Contains(mcpclient.Versions(), conn.Protocol) {
		t.Fatalf("elicittest: Connect: unknown protocol version %q: use one of %q", conn.Protocol, mcpclient.Versions())
		return nil, nil
	}
	c = &Client{protocol: conn.Protocol, transport: conn.Transport, timeout: s.CallTimeout}
	if c.timeout <= 0 {
		c.timeout = DefaultCallTimeout
	}
	opts := mcpclient.Options{Protocol: conn.Protocol, ClientInfo: mcpclient.Implementation{Name: "elicittest", Version: "1"}}
	switch conn.Elicitation {
	case FormAndURL, FormOnly:
		ec := &mcpclient.ElicitationCapability{}
		if conn.Protocol != runtime.Version20250618 && conn.Protocol != runtime.Version20250326 {
			ec.Form, ec.URL = true, conn.Elicitation == FormAndURL
		}
		opts.Capabilities.Elicitation, opts.OnElicit = ec, c.onElicit
	case NoElicitation:
	default:
		t.Fatalf("elicittest: Connect: unknown Capability %d: use FormAndURL, FormOnly or NoElicitation", conn.Elicitation)
		return nil, nil
	}
	if !conn.NoSampling {
		opts.Capabilities.Sampling = &mcpclient.SamplingCapability{Tools: conn.Protocol >= runtime.Version20251125}
	}
	if !conn.NoRoots {
		opts.Capabilities.Roots = &mcpclient.RootsCapability{}
	}
	opts.OnRequest = c.onRequest
	if conn.Tasks {
		if conn.Protocol != runtime.Version20260728 {
			t.Fatalf("elicittest: Connect: Tasks needs protocol %s (the tasks extension has no place in %s's sessions)", runtime.Version20260728, conn.Protocol)
			return nil, nil
		}
		opts.Capabilities.Extensions = map[string]json.RawMessage{runtime.ExtensionTasks: json.RawMessage(`{}`)}
	}
	var stopServer func()
	switch conn.Transport {
	case HTTP:
		opts.URL = s.URL
	case Stdio:
		if s.rt == nil {
			t.Fatal("elicittest: Connect: stdio needs a *runtime.Server; an http.Handler of another library is served over HTTP only")
			return nil, nil
		}
		opts.Pipe, stopServer = s.serveStdio(t)
	default:
		t.Fatalf("elicittest: Connect: unknown transport %q: use elicittest.HTTP or elicittest.Stdio", conn.Transport)
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	mc, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		if stopServer != nil {
			stopServer()
		}
		t.Fatalf("elicittest: connecting over %s with protocol %s: %v", conn.Transport, conn.Protocol, err)
		return nil, nil
	}
	c.mc = mc
	return c, func() {
		if err := mc.Close(); err != nil {
			t.Errorf("elicittest: closing the %s client (%s): %v", conn.Transport, conn.Protocol, err)
		}
		if stopServer != nil {
			stopServer()
		}
		if n, first := mc.ProtocolViolations(); n > 0 {
			t.Errorf("elicittest: the server broke the protocol %d time(s) over %s (%s); first: %s", n, conn.Transport, conn.Protocol, first)
		}
	}
}

// serveStdio runs s.rt.ServeStdio on a pair of pipes. stop waits for it
// to return (the client's Close ends its input) and reports its error.
func (s *Server) serveStdio(t testing.TB) (*mcpclient.Pipe, func()) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.rt.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		inR.Close()
		done <- err
	}()
	stop := func() {
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("elicittest: ServeStdio: %v", err)
			}
		case <-time.After(stdioStopWait):
			t.Errorf("elicittest: ServeStdio did not return within %v of its input closing: a handler does not return when its ctx ends", stdioStopWait)
		}
	}
	return &mcpclient.Pipe{In: inW, Out: outR}, stop
}
