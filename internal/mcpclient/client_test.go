package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
	"github.com/go-elicit/elicit/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a stdio server for the stdio tests.
	if mode, ok := stdioHelperMode(); ok {
		os.Exit(stdioHelper(mode))
	}
	// Helpers are this binary: under -race, each would sleep a second at
	// exit (the race runtime's default atexit_sleep_ms) unless told not to.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	goleak.VerifyTestMain(m)
}

// syncBuffer is a bytes.Buffer safe for the trace's concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func connect(t *testing.T, url string, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	opts.URL = url
	return dial(t, opts)
}

// dial connects with opts and closes the client when the test ends.
func dial(t *testing.T, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

func answer(res mcpclient.ElicitResult) mcpclient.ElicitHandler {
	return func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) { return res, nil }
}

func call(t *testing.T, c *mcpclient.Client, tool, args string) *mcpclient.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	res, err := c.CallTool(ctx, tool, raw)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

func lines(res *mcpclient.CallToolResult) string { return strings.Join(res.Lines(), "\n") }

func TestLegacyFormElicitation(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	cases := []struct {
		action, content string
		want            string
		isError         bool
	}{
		{"accept", `{"name":"Ada"}`, "hello Ada", false},
		{"decline", "", "elicitation declined", true},
		{"cancel", "", "elicitation canceled", true},
	}
	for _, version := range []string{mcpclient.Version20250618, mcpclient.Version20251125} {
		for _, tc := range cases {
			t.Run(version+"/"+tc.action, func(t *testing.T) {
				var got mcpclient.ElicitParams
				c := connect(t, srv.URL, mcpclient.Options{
					Protocol:     version,
					Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
					OnElicit: func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
						got = p
						return mcpclient.ElicitResult{Action: tc.action, Content: json.RawMessage(tc.content)}, nil
					},
				})
				if c.ProtocolVersion() != version {
					t.Errorf("negotiated %q, want %q", c.ProtocolVersion(), version)
				}
				if c.SessionID() == "" {
					t.Error("no session id")
				}
				res := call(t, c, "greet", "")
				if lines(res) != tc.want || res.IsError != tc.isError {
					t.Errorf("result %q isError=%v, want %q isError=%v", lines(res), res.IsError, tc.want, tc.isError)
				}
				if got.Message != "What is your name?" || got.EffectiveMode() != mcpclient.ModeForm {
					t.Errorf("elicit params %+v", got)
				}
				if !strings.Contains(string(got.RequestedSchema), `"required":["name"]`) {
					t.Errorf("schema %s", got.RequestedSchema)
				}
			})
		}
	}
}

func TestNoCapability(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	res := call(t, c, "greet", "")
	if !res.IsError || !strings.Contains(lines(res), "does not support elicitation") {
		t.Fatalf("got %q isError=%v", lines(res), res.IsError)
	}
}

func TestInvalidContentRejectedByServer(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":7}`)}),
	})
	res := call(t, c, "greet", "")
	if !res.IsError || !strings.Contains(lines(res), "does not match requested schema") {
		t.Fatalf("got %q isError=%v", lines(res), res.IsError)
	}
}

func TestElicitHandlerError(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			return mcpclient.ElicitResult{}, errors.New("no human here")
		},
	})
	res := call(t, c, "greet", "")
	if !res.IsError || !strings.Contains(lines(res), "no human here") {
		t.Fatalf("got %q isError=%v", lines(res), res.IsError)
	}
}

// TestContentNotJSON: content that is not JSON at all cannot be sent (any
// JSON value can, verbatim: cmd/mcptest's TestReplyVerbatim); the server
// gets a JSON-RPC error saying why.
func TestContentNotJSON(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":`)}),
	})
	res := call(t, c, "greet", "")
	if !res.IsError || !strings.Contains(lines(res), "elicitation handler returned content that is not valid JSON") {
		t.Fatalf("got %q isError=%v", lines(res), res.IsError)
	}
}

func TestURLElicitation(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	var (
		mu    sync.Mutex
		notes []string
		got   mcpclient.ElicitParams
	)
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20251125,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true, URL: true}},
		Trace:        trace,
		OnElicit: func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			got = p
			return mcpclient.ElicitResult{Action: "accept"}, nil
		},
		OnNotification: func(method string, _ json.RawMessage) {
			mu.Lock()
			notes = append(notes, method)
			mu.Unlock()
		},
	})
	res := call(t, c, "login", "")
	if lines(res) != "login: accept" {
		t.Fatalf("got %q", lines(res))
	}
	if got.Mode != "url" || got.URL != "https://example.test/login" || got.ElicitationID != "login-1" {
		t.Errorf("params %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != "notifications/elicitation/complete" {
		t.Errorf("notifications %v", notes)
	}
	if !strings.Contains(trace.String(), `url elicitation "login-1" complete`) {
		t.Errorf("trace lacks the completion note:\n%s", trace)
	}
	if !strings.Contains(trace.String(), `"elicitation":{"form":{},"url":{}}`) {
		t.Errorf("trace lacks the declared capability:\n%s", trace)
	}
}

func TestURLModeNotDeclared(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20251125,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true}},
		OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			t.Error("OnElicit called for an undeclared mode")
			return mcpclient.ElicitResult{Action: "cancel"}, nil
		},
	})
	res := call(t, c, "login", "")
	if !res.IsError || !strings.Contains(lines(res), `does not support "url" elicitation`) {
		t.Fatalf("got %q", lines(res))
	}
}

func TestServerPingsClient(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	if got := lines(call(t, c, "ping", "")); got != "pong" {
		t.Fatalf("got %q", got)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Fatalf("ping: %v", err)
	}
}

func TestNotificationOnStream(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	var got []string
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities:   mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:       answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Bo"}`)}),
		OnNotification: func(method string, _ json.RawMessage) { got = append(got, method) },
	})
	if res := lines(call(t, c, "chatty", "")); res != "hello Bo" {
		t.Fatalf("got %q", res)
	}
	if len(got) != 1 || got[0] != "notifications/progress" {
		t.Fatalf("notifications %v", got)
	}
}

// TestConcurrentCalls holds every elicitation until all of them arrived,
// which only finishes if the calls really run at once on one session.
func TestConcurrentCalls(t *testing.T) {
	const n = 8
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	var arrived sync.WaitGroup
	arrived.Add(n)
	var mu sync.Mutex
	next := 0
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit: func(ctx context.Context, _ mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			arrived.Done()
			arrived.Wait()
			return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(fmt.Sprintf(`{"name":"p%d"}`, i))}, nil
		},
	})
	results := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := c.CallTool(ctx, "greet", nil)
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			results <- lines(res)
		})
	}
	wg.Wait()
	close(results)
	seen := map[string]bool{}
	for r := range results {
		seen[r] = true
	}
	for i := range n {
		if !seen[fmt.Sprintf("hello p%d", i)] {
			t.Errorf("missing result for p%d; got %v", i, seen)
		}
	}
}

func TestJSONResponseServer(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{JSONResponse: true})
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{Trace: trace})
	if got := lines(call(t, c, "echo", `{"text":"hi"}`)); got != "echo: hi" {
		t.Fatalf("got %q", got)
	}
	if !strings.Contains(trace.String(), "Content-Type: application/json") || strings.Contains(trace.String(), "sse data:") {
		t.Errorf("expected plain json replies:\n%s", trace)
	}
}

func TestStructuredContent(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	res := call(t, c, "structured", "")
	if got := res.Lines(); len(got) != 2 || got[0] != `{"n":42}` || got[1] != `{"n":42}` {
		t.Fatalf("got %q", got)
	}
}

func TestResumeAfterServerClosesStream(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{EventStore: true})
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{Protocol: mcpclient.Version20251125, Trace: trace})
	if got := lines(call(t, c, "resume", "")); got != "resumed" {
		t.Fatalf("got %q", got)
	}
	if !strings.Contains(trace.String(), "> Last-Event-Id: ") || !strings.Contains(trace.String(), "> GET ") {
		t.Errorf("no resumption in trace:\n%s", trace)
	}
}

func TestToolErrorsAndRPCErrors(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	res := call(t, c, "fail", "")
	if !res.IsError || lines(res) != "boom" {
		t.Errorf("fail: %q isError=%v", lines(res), res.IsError)
	}
	_, err := c.CallTool(context.Background(), "nope", nil)
	var rpcErr *mcpclient.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcpclient.CodeInvalidParams {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "echo", json.RawMessage(`[1]`)); err == nil {
		t.Error("array arguments accepted")
	}
}

func TestListTools(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"echo", "greet", "login", "confirm"} {
		if !names[want] {
			t.Errorf("tools/list lacks %q: %v", want, names)
		}
	}
}

func TestCloseDeletesSession(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c, err := mcpclient.Connect(context.Background(), mcpclient.Options{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	sid := c.SessionID()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "echo", nil); !errors.Is(err, mcpclient.ErrClosed) {
		t.Errorf("call after close: %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("session still alive after Close: %s", resp.Status)
	}
}

func TestSessionNotFound(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set("Mcp-Session-Id", c.SessionID())
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, err = c.CallTool(context.Background(), "echo", nil)
	if !errors.Is(err, mcpclient.ErrSessionNotFound) {
		t.Fatalf("got %v, want ErrSessionNotFound", err)
	}
	var httpErr *mcpclient.HTTPError
	if !errors.As(err, &httpErr) || httpErr.StatusCode != http.StatusNotFound {
		t.Errorf("no HTTPError 404 in %v", err)
	}
}

func TestCallTimeout(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "sleep", json.RawMessage(`{"ms":5000}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

func TestTraceShowsExchange(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{
		Trace:        trace,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "decline"}),
	})
	call(t, c, "greet", "")
	out := trace.String()
	for _, want := range []string{
		"] > POST " + srv.URL,
		"] > Accept: application/json, text/event-stream",
		"] < Mcp-Session-Id: " + c.SessionID(),
		"] > Mcp-Protocol-Version: 2025-06-18",
		"] < Content-Type: text/event-stream",
		`] < sse event="message"`,
		`] < sse data: {"jsonrpc":"2.0","id":1,"method":"elicitation/create"`,
		`] > {"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}`,
		"] < HTTP/1.1 202 Accepted",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("trace:\n%s", out)
	}
}

func TestConnectErrors(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	cases := []struct {
		name string
		opts mcpclient.Options
		is   error
		text string
	}{
		{"bad scheme", mcpclient.Options{URL: "ftp://x"}, nil, "want http:// or https://"},
		{"no host", mcpclient.Options{URL: "http://"}, nil, "want http:// or https://"},
		{"bad version", mcpclient.Options{URL: srv.URL, Protocol: "2024-01-01"}, mcpclient.ErrUnsupportedProtocol, "2024-01-01"},
		{"elicit without handler", mcpclient.Options{URL: srv.URL, Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}}}, nil, "without an OnElicit"},
		{"modern on stateful server", mcpclient.Options{URL: srv.URL, Protocol: mcpclient.Version20260728}, mcpclient.ErrUnsupportedProtocol, "server supports"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mcpclient.Connect(context.Background(), tc.opts)
			if err == nil {
				c.Close()
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q lacks %q", err, tc.text)
			}
		})
	}
}

func TestLegacyInputRequestsViaSDK(t *testing.T) {
	// A go-sdk handler that returns inputRequests is turned into a
	// server-sent elicitation for a legacy client.
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"ok":true}`)}),
	})
	res := call(t, c, "confirm", "")
	if got := lines(res); got != `confirmed: accept {"ok":true}` || res.Rounds != 0 {
		t.Fatalf("got %q rounds=%d", got, res.Rounds)
	}
}

func TestListenForJSONResponseServer(t *testing.T) {
	// A server that answers POSTs with application/json sends its
	// elicitations on the standalone GET stream.
	srv := sdkfixture.Serve(t, sdkfixture.Options{JSONResponse: true})
	opts := mcpclient.Options{
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Cy"}`)}),
	}
	res := call(t, connect(t, srv.URL, opts), "greet", "")
	if !res.IsError {
		t.Fatalf("without Listen the elicitation cannot be delivered, got %q", lines(res))
	}
	opts.Listen = true
	if got := lines(call(t, connect(t, srv.URL, opts), "greet", "")); got != "hello Cy" {
		t.Fatalf("with Listen: %q", got)
	}
}

func TestListenWithout405(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{Stateless: true})
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{Listen: true, Trace: trace})
	if got := lines(call(t, c, "echo", `{"text":"s"}`)); got != "echo: s" {
		t.Fatalf("got %q", got)
	}
	// The GET stream is opened in the background: its 405 may be noted
	// after the call returned.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(trace.String(), "no standalone stream (405)"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("trace:\n%s", trace)
		}
	}
}

func TestSleep(t *testing.T) {
	if err := mcpclient.Sleep(t.Context(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v, want nil after the pause", err)
	}
	why := errors.New("the call ended")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(why)
	if err := mcpclient.Sleep(ctx, time.Hour); !errors.Is(err, why) {
		t.Errorf("Sleep with an ended context: %v, want its cause", err)
	}
}

// TestRPCErrorIsTheRuntimes: one declaration serves both ends, and its text
// shows the data compacted, as mcptest prints it.
func TestRPCErrorIsTheRuntimes(t *testing.T) {
	var err error = &runtime.RPCError{Code: runtime.CodeUnsupportedVersion, Message: "unsupported protocol version", Data: json.RawMessage("{\n  \"supported\": [\"2026-07-28\"]\n}")}
	var rpcErr *mcpclient.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeUnsupportedVersion {
		t.Fatalf("errors.As(%T) into *mcpclient.RPCError: %v", err, rpcErr)
	}
	want := `json-rpc error -32022: unsupported protocol version (data: {"supported":["2026-07-28"]})`
	if got := err.Error(); got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got := (&mcpclient.RPCError{Code: -32603, Message: "kaput", Data: json.RawMessage("not json")}).Error(); got != "json-rpc error -32603: kaput (data: not json)" {
		t.Errorf("text with data that is not JSON: %q", got)
	}
}
