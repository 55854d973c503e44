package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// Options configure a [Client]. Exactly one of URL, Command and Pipe is
// required.
type Options struct {
	// URL is the server's Streamable HTTP endpoint, http or https.
	URL string
	// Command, instead of URL, runs the server as a child process (the
	// program and its arguments, not run through a shell) and speaks the
	// stdio transport: newline-delimited JSON-RPC on its stdin and stdout.
	Command []string
	// Pipe, instead of URL or Command, speaks the stdio transport to a
	// server running in this process (see [Pipe]).
	Pipe *Pipe
	// Env is the child's environment (Command only), as exec.Cmd.Env:
	// nil inherits this process's.
	Env []string
	// Dir is the child's working directory (Command only); "" is this
	// process's.
	Dir string
	// Stderr receives the child's standard error, whole lines at a time
	// (Command only). When nil, the lines appear in the trace as
	// "[-] ! LINE", or are dropped without a trace. Never read as protocol.
	Stderr io.Writer
	// Protocol is the version to speak; DefaultProtocol when empty. The
	// legacy versions run the initialize handshake; Version20260728 runs
	// sessionless with per-request _meta.
	Protocol string
	// Capabilities are declared in initialize (legacy) or in every request's
	// _meta (2026-07-28). Declaring elicitation requires OnElicit.
	Capabilities Capabilities
	// ClientInfo names the client; Name defaults to "mcpclient" and Version
	// to "0".
	ClientInfo Implementation
	// HTTPClient sends the requests (URL only); when nil the client uses its own
	// transport and closes its idle connections on Close. Give it no
	// overall Timeout: a response stream lives as long as its call.
	HTTPClient *http.Client
	// Header is added to every HTTP request (for example Origin or
	// Authorization); URL only.
	Header http.Header
	// Trace, when set, receives a transcript of every HTTP exchange and SSE
	// frame, or every stdio line (see the package documentation for its
	// format).
	Trace io.Writer
	// OnElicit answers elicitation/create, both the legacy server-sent
	// request and the 2026-07-28 input request. It may be called from
	// several goroutines at once when calls run concurrently.
	OnElicit ElicitHandler
	// OnRequest answers the other server requests the client declared:
	// sampling/createMessage (Capabilities.Sampling) and roots/list
	// (Capabilities.Roots), as server-sent requests and as 2026-07-28
	// input requests. It returns the raw result; an *RPCError answers with
	// that error. It may be called from several goroutines at once.
	OnRequest func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// OnNotification, when set, sees every notification the server sends.
	// It runs on the goroutine reading the stream (or the child's stdout),
	// so it must return quickly.
	OnNotification func(method string, params json.RawMessage)
	// MaxMessageBytes bounds one JSON body, SSE event or stdio line; 16 MiB
	// when zero.
	MaxMessageBytes int
	// MaxRounds bounds the input_required retries of one 2026-07-28 call;
	// 16 when zero.
	MaxRounds int
	// Listen opens the standalone GET stream after the legacy handshake, for
	// servers that send requests (elicitations) or notifications outside a
	// call's response stream — for example a server that answers POSTs with
	// application/json only. Ignored in 2026-07-28, which has no such stream.
	// URL only: over stdio every message shares the one channel.
	Listen bool
}

const (
	defaultMaxMessage  = 16 << 20
	defaultMaxRounds   = 16
	defaultRetry       = 500 * time.Millisecond
	maxResumeAttempts  = 3
	closeTimeout       = 5 * time.Second
	cancelTimeout      = 2 * time.Second
	answerTimeout      = 10 * time.Second
	loadSheddingPause  = 200 * time.Millisecond
	errorBodyMax       = 64 << 10
	errorMessageMax    = 300
	methodInitialize   = "initialize"
	methodInitialized  = "notifications/initialized"
	methodToolsCall    = "tools/call"
	methodDiscover     = "server/discover"
	methodElicit       = "elicitation/create"
	methodElicitDone   = "notifications/elicitation/complete"
	methodCancelled    = "notifications/cancelled"
	contentTypeJSON    = "application/json"
	contentTypeSSE     = "text/event-stream"
	headerLastEventID  = "Last-Event-ID"
	defaultClientName  = "mcpclient"
	defaultClientVer   = "0"
	jsonrpcVersion     = "2.0"
	eventMessage       = "message"
	acceptPOST         = contentTypeJSON + ", " + contentTypeSSE
	sessionIDMaxLength = 1024
)

// Client is a connection to one MCP server. All methods are safe for
// concurrent use; several calls (and their elicitations) may be in flight
// at once — over HTTP each is its own request with its own response stream,
// over stdio their messages share the child's stdin and stdout.
type Client struct {
	opts    Options
	tr      transport
	trace   *tracer
	ids     atomic.Int64
	serving servingSet // server requests being answered

	modern    bool
	requested string // the version asked for
	stdio     bool

	// HTTP only.
	url string
	hc  *http.Client
	own *http.Transport // non-nil when the client made hc

	mu         sync.Mutex
	sessionID  string
	negotiated string // legacy: the version the server chose
	initResult *InitializeResult
	discovered *DiscoverResult
	closed     bool

	closeOnce sync.Once
	closeErr  error

	stopListen context.CancelFunc // nil unless listening
	listenDone chan struct{}

	violMu    sync.Mutex
	violN     int
	violFirst string
}

// violation records a message of the server that breaks the protocol and
// was skipped; the trace note says what it was.
func (c *Client) violation(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	c.trace.notef(0, "%s", text)
	c.violMu.Lock()
	if c.violN == 0 {
		c.violFirst = text
	}
	c.violN++
	c.violMu.Unlock()
}

// ProtocolViolations reports how many messages the server sent that break
// the protocol and were skipped — over stdio, lines on its stdout that are
// not JSON-RPC and responses to no pending request — with the first one
// described. The client goes on past them; a strict caller (a test) fails
// on any.
func (c *Client) ProtocolViolations() (n int, first string) {
	c.violMu.Lock()
	defer c.violMu.Unlock()
	return c.violN, c.violFirst
}

// Connect validates opts and opens a connection — it starts the server
// when opts.Command is set — then runs the initialize handshake and
// notifications/initialized for legacy versions, server/discover for
// 2026-07-28. On error nothing is left open (a started server is stopped).
func Connect(ctx context.Context, opts Options) (*Client, error) {
	var u *url.URL
	switch {
	case opts.URL != "" && len(opts.Command) > 0:
		return nil, errors.New("mcpclient: set URL or Command, not both")
	case opts.Pipe != nil:
		if err := opts.Pipe.check(opts); err != nil {
			return nil, err
		}
	case len(opts.Command) > 0:
		if opts.Command[0] == "" {
			return nil, errors.New("mcpclient: empty command name")
		}
		switch {
		case opts.HTTPClient != nil:
			return nil, errors.New("mcpclient: HTTPClient needs URL; Command speaks stdio")
		case len(opts.Header) > 0:
			return nil, errors.New("mcpclient: Header needs URL; Command speaks stdio")
		case opts.Listen:
			return nil, errors.New("mcpclient: Listen needs URL; over stdio every message shares one channel")
		}
	case opts.URL == "":
		return nil, errors.New("mcpclient: no URL or Command")
	case opts.Env != nil || opts.Dir != "":
		return nil, errors.New("mcpclient: Env and Dir need Command; URL speaks HTTP")
	default:
		var err error
		if u, err = url.Parse(opts.URL); err != nil {
			return nil, fmt.Errorf("mcpclient: bad url %q: %w", opts.URL, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("mcpclient: bad url %q: want http:// or https:// with a host", opts.URL)
		}
	}
	if opts.Protocol == "" {
		opts.Protocol = DefaultProtocol
	}
	if !supported(opts.Protocol) {
		return nil, fmt.Errorf("mcpclient: %w %q (supported: %v)", ErrUnsupportedProtocol, opts.Protocol, Versions())
	}
	if (opts.Capabilities.Sampling != nil || opts.Capabilities.Roots != nil) && opts.OnRequest == nil {
		return nil, errors.New("mcpclient: sampling or roots capability declared without an OnRequest handler")
	}
	if opts.Capabilities.Elicitation != nil && opts.OnElicit == nil {
		return nil, errors.New("mcpclient: elicitation capability declared without an OnElicit handler")
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo.Name = defaultClientName
	}
	if opts.ClientInfo.Version == "" {
		opts.ClientInfo.Version = defaultClientVer
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = defaultMaxMessage
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = defaultMaxRounds
	}
	c := &Client{
		opts:      opts,
		trace:     newTracer(opts.Trace),
		modern:    IsModern(opts.Protocol),
		requested: opts.Protocol,
	}
	var err error
	if u != nil {
		c.url, c.hc, c.tr = u.String(), opts.HTTPClient, httpTransport{c}
		if c.hc == nil {
			c.own = http.DefaultTransport.(*http.Transport).Clone()
			c.hc = &http.Client{Transport: c.own}
		}
	} else {
		c.stdio = true
		if opts.Pipe != nil {
			c.tr = startPipe(c, opts.Pipe)
		} else if c.tr, err = startStdio(c, opts.Command); err != nil {
			return nil, err
		}
	}
	if c.modern {
		err = c.discover(ctx)
	} else {
		err = c.initialize(ctx)
	}
	if err != nil {
		_ = c.Close() // the handshake error is the one to report
		return nil, err
	}
	if opts.Listen && !c.modern {
		// The stream outlives Connect's ctx; Close ends it.
		lctx, stop := context.WithCancel(context.Background())
		c.stopListen, c.listenDone = stop, make(chan struct{})
		ready := make(chan struct{})
		go func() {
			defer close(c.listenDone)
			c.listen(lctx, ready)
		}()
		select {
		case <-ready:
		case <-ctx.Done():
			_ = c.Close()
			return nil, fmt.Errorf("opening the standalone stream: %w", context.Cause(ctx))
		}
	}
	return c, nil
}

func (c *Client) initialize(ctx context.Context) error {
	params, err := json.Marshal(struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    Capabilities   `json:"capabilities"`
		ClientInfo      Implementation `json:"clientInfo"`
	}{c.requested, c.opts.Capabilities, c.opts.ClientInfo})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	raw, err := c.request(ctx, methodInitialize, "", params)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("initialize: %w: bad result: %w", ErrProtocol, err)
	}
	if !slices.Contains(legacyVersions, res.ProtocolVersion) {
		return fmt.Errorf("initialize: %w: server chose %q, client asked for %q", ErrUnsupportedProtocol, res.ProtocolVersion, c.requested)
	}
	c.mu.Lock()
	c.negotiated = res.ProtocolVersion
	c.initResult = &res
	c.mu.Unlock()
	if res.ProtocolVersion != c.requested {
		c.trace.notef(0, "server negotiated protocol %s (asked for %s)", res.ProtocolVersion, c.requested)
	}
	if err := c.Notify(ctx, methodInitialized, nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

func (c *Client) discover(ctx context.Context) error {
	res, err := c.Discover(ctx)
	if err != nil {
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == runtime.CodeUnsupportedVersion {
			return fmt.Errorf("%w: %w", ErrUnsupportedProtocol, err)
		}
		return err
	}
	if !slices.Contains(res.SupportedVersions, c.requested) {
		return fmt.Errorf("server/discover: %w %q (server supports %v)", ErrUnsupportedProtocol, c.requested, res.SupportedVersions)
	}
	return nil
}

// Discover calls server/discover (2026-07-28 only).
func (c *Client) Discover(ctx context.Context) (*DiscoverResult, error) {
	if !c.modern {
		return nil, fmt.Errorf("server/discover: %w: needs protocol %s", ErrUnsupportedProtocol, Version20260728)
	}
	raw, err := c.request(ctx, methodDiscover, "", nil)
	if err != nil {
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	var res DiscoverResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("server/discover: %w: bad result: %w", ErrProtocol, err)
	}
	c.mu.Lock()
	c.discovered = &res
	c.mu.Unlock()
	return &res, nil
}

// SessionID returns the Mcp-Session-Id the server assigned ("" if none, and
// always over stdio, where the connection is the session).
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// ProtocolVersion returns the version in use: the negotiated one in the
// legacy era, the requested one in 2026-07-28.
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.negotiated != "" {
		return c.negotiated
	}
	return c.requested
}

// InitializeResult returns the server's initialize answer (nil for
// 2026-07-28).
func (c *Client) InitializeResult() *InitializeResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.initResult
}

// CallTool calls a tool. args must be a JSON object or nil (sent as {}).
//
// In 2026-07-28 an input_required result is answered through OnElicit (and
// OnRequest) and the call retried, with a new id, the inputResponses and
// the echoed requestState, until the result is complete; the input
// requests of one round are answered in the order the server wrote them. In the legacy era
// elicitations arrive as server-sent requests — on the call's stream,
// answered by separate POSTs while the stream stays open (HTTP), or as
// lines answered with lines (stdio).
//
// A result with isError set is returned as a result, not an error.
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage) (*CallToolResult, error) {
	if name == "" {
		return nil, errors.New("tools/call: empty tool name")
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !isJSONObject(args) {
		return nil, fmt.Errorf("tools/call %q: arguments must be a JSON object", name)
	}
	params := map[string]json.RawMessage{"name": jsonString(name), "arguments": args}
	for round := 0; ; round++ {
		body, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("tools/call %q: %w", name, err)
		}
		raw, err := c.request(ctx, methodToolsCall, name, body)
		if err != nil {
			return nil, fmt.Errorf("tools/call %q: %w", name, err)
		}
		var ir inputRequiredResult
		if err := json.Unmarshal(raw, &ir); err != nil {
			return nil, fmt.Errorf("tools/call %q: %w: bad result: %w", name, ErrProtocol, err)
		}
		if ir.ResultType != ResultInputRequired {
			res := &CallToolResult{}
			if err := json.Unmarshal(raw, res); err != nil {
				return nil, fmt.Errorf("tools/call %q: %w: bad result: %w", name, ErrProtocol, err)
			}
			res.Raw, res.Rounds = raw, round
			return res, nil
		}
		if round+1 >= c.opts.MaxRounds {
			return nil, fmt.Errorf("tools/call %q: %w (%d)", name, ErrTooManyRounds, c.opts.MaxRounds)
		}
		if len(ir.InputRequests) == 0 && ir.RequestState == nil {
			return nil, fmt.Errorf("tools/call %q: %w: input_required result with neither inputRequests nor requestState", name, ErrProtocol)
		}
		c.trace.notef(0, "tools/call %q: input_required with %d input request(s); answering and retrying (round %d)", name, len(ir.InputRequests), round+1)
		if len(ir.InputRequests) == 0 {
			// Load shedding: the server wants the same call again later.
			if err := Sleep(ctx, loadSheddingPause); err != nil {
				return nil, fmt.Errorf("tools/call %q: %w", name, err)
			}
			delete(params, "inputResponses")
		} else {
			responses, err := c.fulfill(ctx, ir.InputRequests)
			if err != nil {
				return nil, fmt.Errorf("tools/call %q: %w", name, err)
			}
			params["inputResponses"] = responses
		}
		if ir.RequestState != nil {
			params["requestState"] = jsonString(*ir.RequestState)
		} else {
			delete(params, "requestState")
		}
	}
}

// fulfill answers the input requests of one input_required round, in the
// order the server wrote them.
func (c *Client) fulfill(ctx context.Context, reqs inputRequests) (json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(reqs))
	for _, ir := range reqs {
		k := ir.key
		if ir.Method != methodElicit && ir.Method != MethodSample && ir.Method != MethodListRoots {
			return nil, fmt.Errorf("%w: input request %q has method %q; this client answers %s, %s and %s", ErrProtocol, k, ir.Method, methodElicit, MethodSample, MethodListRoots)
		}
		res, err := c.serverRequestOf(ctx, ir.Method, ir.Params)
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", k, err)
		}
		out[k] = res
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("input responses: %w", err)
	}
	return b, nil
}

// ListTools returns every tool, following nextCursor pages.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	var tools []Tool
	seen := map[string]bool{}
	cursor := ""
	for {
		var params json.RawMessage
		if cursor != "" {
			params = json.RawMessage(`{"cursor":` + string(jsonString(cursor)) + `}`)
		}
		raw, err := c.request(ctx, "tools/list", "", params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		var page struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("tools/list: %w: bad result: %w", ErrProtocol, err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("tools/list: %w: cursor %q repeats", ErrProtocol, page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// Ping checks the server is alive: ping in the legacy era, server/discover
// in 2026-07-28 (which has no ping).
func (c *Client) Ping(ctx context.Context) error {
	if c.modern {
		_, err := c.Discover(ctx)
		return err
	}
	if _, err := c.request(ctx, "ping", "", nil); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// Call sends any request and returns its raw result. params is marshaled
// with encoding/json (a json.RawMessage is sent as is) and must encode to an
// object or null. Server-sent requests on the response stream are handled
// as for CallTool; input_required results are returned as they are.
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	res, err := c.request(ctx, method, nameOf(method, raw), raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return res, nil
}

// Notify sends a notification. Over HTTP the server must accept it (202,
// or any 2xx); over stdio it is written as a line, in 2026-07-28 with the
// _meta a request carries (so a server can tell its era without a session).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if c.isClosed() {
		return ErrClosed
	}
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if c.modern && c.stdio {
		if raw, err = c.withMeta(raw); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
	}
	body, err := json.Marshal(wireMessage{JSONRPC: jsonrpcVersion, Method: method, Params: raw})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.tr.deliver(ctx, 0, body, method); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// Close ends the connection. Over HTTP: a DELETE with the session id in
// the legacy era (a 404 or 405 answer counts as success), nothing on the
// wire in 2026-07-28; it waits at most 5 seconds for the server, and calls
// still in flight end when the server drops the session. Over stdio: it
// closes the child's stdin, waits up to 5 seconds for it to exit (calls in
// flight get whatever the server writes before it does), then sends
// SIGTERM, and after 2 more seconds kills it; a child that exits with a
// non-zero status, or has to be stopped, is an error. Close is idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		c.closeErr = c.tr.close()
	})
	return c.closeErr
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *Client) session() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// headerVersion is the MCP-Protocol-Version to send: none before the
// legacy handshake finished, the negotiated one after it, always the
// requested one in 2026-07-28.
func (c *Client) headerVersion() string {
	if c.modern {
		return c.requested
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.negotiated
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if string(raw) == "null" {
		return nil, nil
	}
	if !isJSONObject(raw) {
		return nil, errors.New("params must be a JSON object")
	}
	return raw, nil
}

// nameOf extracts the Mcp-Name value of methods that carry one.
func nameOf(method string, params json.RawMessage) string {
	if len(params) == 0 {
		return ""
	}
	var p struct {
		Name   string `json:"name"`
		URI    string `json:"uri"`
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	switch method {
	case methodToolsCall, "prompts/get":
		return p.Name
	case "resources/read":
		return p.URI
	case MethodGetTask, MethodUpdateTask, MethodCancelTask:
		return p.TaskID
	}
	return ""
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// jsonString encodes s as a JSON string (which cannot fail).
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func idString(id int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(id, 10)) }
