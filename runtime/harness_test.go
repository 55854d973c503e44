package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// stdoutHelperEnv makes the test binary the child process of
// TestServeStdioProcessKeepsStdout (Unix only: stdoutHelper is nil elsewhere).
const stdoutHelperEnv = "ELICIT_TEST_STDOUT_HELPER"

var stdoutHelper func() int

func TestMain(m *testing.M) {
	if os.Getenv(stdoutHelperEnv) != "" && stdoutHelper != nil {
		os.Exit(stdoutHelper())
	}
	if os.Getenv(childServerEnv) != "" {
		os.Exit(runChildServer())
	}
	code := m.Run()
	// The tests' clients share http.DefaultTransport; its idle keep-alive
	// connections are the client's, not goroutines the server leaked.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if code == 0 {
		// The tests' HTTP clients may still be tearing down a keep-alive
		// connection the server just closed; those goroutines are the
		// client's. Every server-side goroutine still counts.
		if err := goleak.Find(
			goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// fixture is a real server on loopback with an eliciting tool.
type fixture struct {
	t        *testing.T
	srv      *Server
	http     *httptest.Server
	url      string
	outcomes chan outcome // what each handler's Elicit returned
	release  chan struct{}
}

type outcome struct {
	content map[string]any
	err     error
}

// userSchema is the form the "ask" tool sends.
var userSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"username": map[string]any{"type": "string", "minLength": 2, "description": "Your name"},
		"age":      map[string]any{"type": "integer", "minimum": 0, "maximum": 150},
	},
	"required": []any{"username"},
}

func newFixture(t *testing.T, opts Options, configure ...func(*httptest.Server)) *fixture {
	t.Helper()
	f := &fixture{t: t, outcomes: make(chan outcome, 64), release: make(chan struct{})}
	f.srv = NewServer(opts)
	f.srv.AddTool(Tool{Name: "ask", Description: "asks the user"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if !ClientSupportsElicit(ctx) {
			return ErrorResult("missing required argument: username"), nil
		}
		content, err := ElicitSchema(ctx, "Who are you?", userSchema)
		f.outcomes <- outcome{content, err}
		if err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(content)
		return TextResult("hello " + string(raw)), nil
	})
	f.srv.AddTool(Tool{Name: "plain"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult("plain " + string(req.Arguments)), nil
	})
	f.srv.AddTool(Tool{Name: "block"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		select {
		case <-f.release:
			return TextResult("released"), nil
		case <-ctx.Done():
			f.outcomes <- outcome{err: ctxError(ctx)}
			return nil, ctx.Err()
		}
	})
	f.http = httptest.NewUnstartedServer(f.srv)
	for _, c := range configure {
		c(f.http)
	}
	f.http.Start()
	f.url = f.http.URL + "/mcp"
	t.Cleanup(f.close)
	return f
}

// close shuts the server down and closes the listener.
func (f *fixture) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
	f.http.CloseClientConnections()
	f.http.Close()
}

// waitOutcome returns the next handler outcome or fails after a while.
func (f *fixture) waitOutcome() outcome {
	f.t.Helper()
	select {
	case o := <-f.outcomes:
		return o
	case <-time.After(10 * time.Second):
		f.t.Fatal("no handler outcome within 10s: a handler is stuck")
		return outcome{}
	}
}

// client is a raw-HTTP MCP client for wire tests.
type client struct {
	f    *fixture
	hc   *http.Client
	sid  string
	next int
}

const acceptBoth = "application/json, text/event-stream"

// post sends body with the client's session header and extra headers
// ("Name: value" pairs).
func (c *client) post(body string, headers ...string) *http.Response {
	c.f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.f.url, strings.NewReader(body))
	if err != nil {
		c.f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	if c.sid != "" {
		req.Header.Set(HeaderSessionID, c.sid)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if k == "Host" { // net/http takes the Host header from here
			req.Host = strings.TrimSpace(v)
			continue
		}
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.f.t.Fatal(err)
	}
	return resp
}

func (f *fixture) newClient() *client {
	return &client{f: f, hc: &http.Client{Timeout: 30 * time.Second}}
}

// initialize opens a session with the given capabilities JSON.
func (f *fixture) connect(version, capabilities string) *client {
	f.t.Helper()
	c := f.newClient()
	resp := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"test","version":"1"}}}`, version, capabilities))
	body := readAll(f.t, resp)
	if resp.StatusCode != 200 {
		f.t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	c.sid = resp.Header.Get(HeaderSessionID)
	if c.sid == "" {
		f.t.Fatal("initialize: no session id")
	}
	c.expect(c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 202)
	return c
}

func (c *client) expect(resp *http.Response, status int) string {
	c.f.t.Helper()
	body := readAll(c.f.t, resp)
	if resp.StatusCode != status {
		c.f.t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	return body
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// callTool starts a tools/call and returns the open response.
func (c *client) callTool(name, args string, headers ...string) (*http.Response, string) {
	c.f.t.Helper()
	c.next++
	id := fmt.Sprintf("%d", c.next)
	return c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args), headers...), id
}

// event is one SSE event.
type event struct {
	id   string
	data string
	msg  map[string]any
}

// stream reads SSE events from a response.
type stream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Reader
}

func openStream(t *testing.T, resp *http.Response) *stream {
	t.Helper()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("want an SSE stream, got %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return &stream{t: t, resp: resp, sc: bufio.NewReader(resp.Body)}
}

// next returns the next event, or ok=false at the end of the stream.
func (s *stream) next() (ev event, ok bool) {
	s.t.Helper()
	for {
		line, err := s.sc.ReadString('\n')
		if err != nil {
			if ev.data != "" {
				break
			}
			return ev, false
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if ev.data != "" {
				if err := json.Unmarshal([]byte(ev.data), &ev.msg); err != nil {
					s.t.Fatalf("event data is not JSON: %q", ev.data)
				}
				return ev, true
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
	_ = json.Unmarshal([]byte(ev.data), &ev.msg)
	return ev, true
}

// mustNext is next that fails at the end of the stream.
func (s *stream) mustNext() event {
	s.t.Helper()
	ev, ok := s.next()
	if !ok {
		s.t.Fatal("stream ended early")
	}
	return ev
}

func (s *stream) close() { s.resp.Body.Close() }

// elicitation reads the elicitation/create request off a stream.
func (s *stream) elicitation() (id string, params map[string]any) {
	s.t.Helper()
	ev := s.mustNext()
	if ev.msg["method"] != "elicitation/create" {
		s.t.Fatalf("want elicitation/create, got %s", ev.data)
	}
	id, _ = ev.msg["id"].(string)
	params, _ = ev.msg["params"].(map[string]any)
	return id, params
}

// answer posts a JSON-RPC response with result for the server's request id.
func (c *client) answer(id, result string) *http.Response {
	c.f.t.Helper()
	return c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":%s}`, id, result))
}

// result reads the terminal response off a stream and returns its result
// text (or error message) and whether it is an error.
func (s *stream) result() (text string, isError bool) {
	s.t.Helper()
	for {
		ev := s.mustNext()
		if _, isReq := ev.msg["method"]; isReq {
			continue // notifications before the result
		}
		return resultText(s.t, ev.data)
	}
}

func resultText(t *testing.T, frame string) (string, bool) {
	t.Helper()
	var m struct {
		Result *struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *RPCError
	}
	if err := json.Unmarshal([]byte(frame), &m); err != nil {
		t.Fatalf("bad response frame %q: %v", frame, err)
	}
	if m.Error != nil {
		return m.Error.Message, true
	}
	var b bytes.Buffer
	for _, c := range m.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String(), m.Result.IsError
}
