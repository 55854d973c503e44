// Package sdkfixture starts internal/cmd/sdkfixture, an MCP server built on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk) with tools
// that elicit, for tests of clients: an independent, widely used server
// implementation to check a client against, so a client bug and a server
// bug cannot cancel out. The server runs as its own process (`go run`, from
// the internal/cmd module), so the module these tests live in does not
// require go-sdk and neither does any adopter's module graph; the tools it
// serves are listed in internal/cmd/sdkfixture's doc.
package sdkfixture

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
)

// Options choose the server's transport behaviour.
type Options struct {
	// Stateless serves without sessions, which go-sdk v1.8.0 requires for
	// 2026-07-28 requests (a stateful handler rejects them with -32022).
	Stateless bool
	// JSONResponse answers calls with application/json instead of SSE.
	JSONResponse bool
	// EventStore keeps stream events so clients can resume (2025-11-25).
	EventStore bool
}

func (o Options) flags() []string {
	var f []string
	if o.Stateless {
		f = append(f, "-stateless")
	}
	if o.JSONResponse {
		f = append(f, "-json")
	}
	if o.EventStore {
		f = append(f, "-eventstore")
	}
	return f
}

// cmdModule is the directory of the internal/cmd module, found from this
// file's path (tests run from source).
func cmdModule() (string, error) {
	_, file, _, ok := goruntime.Caller(0)
	if !ok {
		return "", fmt.Errorf("sdkfixture: cannot locate the source tree")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "cmd")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("sdkfixture: the internal/cmd module: %w", err)
	}
	return dir, nil
}

// command is `go run ./sdkfixture args...` in the internal/cmd module (go
// run caches the executable, so only the first start builds it).
func command(args ...string) (*exec.Cmd, error) {
	dir, err := cmdModule()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", append([]string{"run", "./sdkfixture"}, args...)...)
	cmd.Dir = dir
	return cmd, nil
}

// process is one running HTTP fixture.
type process struct {
	url   *url.URL
	cmd   *exec.Cmd
	stdin *os.File
}

// start starts an HTTP fixture and reads the URL it prints. The process
// exits when stop closes its standard input, or when this process exits.
func start(opts Options) (*process, error) {
	cmd, err := command(opts.flags()...)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	defer outR.Close()
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("sdkfixture: go run ./sdkfixture: %w", err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	u, perr := url.Parse(strings.TrimSpace(line))
	if err != nil || perr != nil || u.Host == "" {
		inW.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("sdkfixture: the fixture printed %q, not its URL (%v)", line, err)
	}
	return &process{url: u, cmd: cmd, stdin: inW}, nil
}

func (p *process) stop() {
	p.stdin.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// proxy forwards to the fixture (for Handler). It keeps no idle
// connection, so no goroutine outlives a request.
func (p *process) proxy() http.Handler {
	rp := httputil.NewSingleHostReverseProxy(p.url)
	rp.FlushInterval = -1
	rp.Transport = &http.Transport{DisableKeepAlives: true}
	return rp
}

// Server is a running fixture, reached directly at URL.
type Server struct {
	// URL is the fixture's base URL, http://127.0.0.1:PORT.
	URL string

	p      *process
	client *http.Client
	once   sync.Once
}

// Client returns an HTTP client for the fixture, closed with it.
func (s *Server) Client() *http.Client { return s.client }

// Close stops the fixture's process; later calls do nothing.
func (s *Server) Close() {
	s.once.Do(func() {
		s.client.CloseIdleConnections()
		s.p.stop()
	})
}

// Serve starts the server and stops it when the test ends.
func Serve(tb testing.TB, opts Options) *Server {
	tb.Helper()
	p, err := start(opts)
	if err != nil {
		tb.Fatal(err)
	}
	srv := &Server{URL: p.url.String(), p: p, client: &http.Client{Transport: &http.Transport{}}}
	tb.Cleanup(srv.Close)
	return srv
}

var (
	shared   sync.Mutex
	handlers = map[Options]http.Handler{}
	kept     []*process // their standard input stays open while this process runs
)

// Handler returns a handler forwarding to a fixture started with opts,
// shared by every caller in this process and ended when it exits. If the
// fixture cannot start, the handler answers 500 with the reason.
func Handler(opts Options) http.Handler {
	shared.Lock()
	defer shared.Unlock()
	if h, ok := handlers[opts]; ok {
		return h
	}
	p, err := start(opts)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		})
	}
	kept = append(kept, p)
	handlers[opts] = p.proxy()
	return handlers[opts]
}

// RunStdio serves the fixture on this process's standard input and output
// until the input ends: for a test binary that doubles as a stdio server.
func RunStdio() error {
	cmd, err := command("-stdio")
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}
