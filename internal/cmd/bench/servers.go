package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	rt "runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/runtime"
)

// Every server runs in a child process of its own (the bench binary started
// again with serveEnv set), so that its allocations, heap and goroutines can
// be read without the client's mixed in, and a slow or leaky server cannot
// disturb the others. The child serves MCP at /mcp and, on the same
// listener, /_bench/mem (runtime/metrics) and /debug/pprof/profile.

const serveEnv = "ELICIT_BENCH_SERVE"

const (
	toolName    = "ask"
	askMessage  = "Name and count?"
	askKey      = "ask_form" // the generated form's key; every modern server uses it
	resultText  = "ada 3"
	acceptReply = `{"action":"accept","content":{"name":"ada","count":3}}`
)

// askSchema is the requestedSchema every server sends: the bytes elicitgen
// generated for AskForm, as text.
var askSchema = func() string {
	v, ok := (*AskForm)(nil).ElicitForm().Lookup(runtime.Version20251125)
	if !ok || v.Schema == nil {
		return "" // newHandler reports it
	}
	return string(v.Schema)
}()

// askSchemaMap is askSchema as the peers take it.
func askSchemaMap() (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(askSchema), &m); err != nil {
		return nil, fmt.Errorf("the AskForm schema %q: %w", askSchema, err)
	}
	return m, nil
}

// newHandler builds the MCP handler a flow's child process serves.
func newHandler(f flow) (http.Handler, func(), error) {
	if askSchema == "" {
		return nil, nil, errors.New("AskForm has no 2025-11-25 schema: run go generate ./internal/cmd/bench")
	}
	schema, err := askSchemaMap()
	if err != nil {
		return nil, nil, err
	}
	switch f.server {
	case serverOurs, serverTraced:
		opts := runtime.Options{Name: "bench", Version: "1", ElicitTimeout: -1}
		var stopTelemetry func()
		if f.server == serverTraced {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			opts.TracerProvider, opts.MeterProvider = tp, mp
			stopTelemetry = func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }
		}
		srv := runtime.NewServer(opts)
		srv.AddTool(runtime.Tool{Name: toolName}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			form, err := runtime.Elicit[AskForm](ctx, askMessage)
			if err != nil {
				return nil, err // ErrInputRequired on a first 2026-07-28 run
			}
			return runtime.TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
		})
		return srv, func() {
			_ = srv.Shutdown(context.Background())
			if stopTelemetry != nil {
				stopTelemetry()
			}
		}, nil
	case serverOursTask:
		return newTaskHandler()
	case serverGoSDK:
		return goSDKHandler(f.era, schema), func() {}, nil
	case serverMCPGo:
		return mcpGoHandler(schema), func() {}, nil
	case serverFloor:
		if f.era == eraModern {
			return newFloorModern(), func() {}, nil
		}
		return newFloorLegacy(), func() {}, nil
	}
	return nil, nil, fmt.Errorf("unknown server %q", f.server)
}

// goSDKHandler is the flow written the way the go-sdk documents it: legacy
// with ServerSession.Elicit on a stateful handler; modern with InputRequests
// on a stateless handler answering application/json (its faster setting,
// and the natural one when the server sends nothing on a stream).
func goSDKHandler(era string, schema map[string]any) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	inputSchema := map[string]any{"type": "object"}
	if era == eraModern {
		server.AddTool(&mcp.Tool{Name: toolName, InputSchema: inputSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses[askKey].(*mcp.ElicitResult); ok {
				return goSDKResult(r)
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				askKey: &mcp.ElicitParams{Mode: "form", Message: askMessage, RequestedSchema: schema},
			}}, nil
		})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	}
	server.AddTool(&mcp.Tool{Name: toolName, InputSchema: inputSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: askMessage, RequestedSchema: schema})
		if err != nil {
			return nil, err
		}
		return goSDKResult(r)
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
}

// goSDKResult reads the two fields the cheapest way a go-sdk user can (type
// assertions on the content map; the SDK's own schema check already ran on
// the legacy path) and returns them.
func goSDKResult(r *mcp.ElicitResult) (*mcp.CallToolResult, error) {
	if r.Action != "accept" {
		return nil, fmt.Errorf("elicitation %s", r.Action)
	}
	name, _ := r.Content["name"].(string)
	count, ok := r.Content["count"].(float64)
	if name == "" || !ok {
		return nil, errors.New("bad content")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " " + strconv.FormatInt(int64(count), 10)}}}, nil
}

func mcpGoHandler(schema map[string]any) http.Handler {
	s := mcpgoserver.NewMCPServer("bench", "1", mcpgoserver.WithElicitation())
	s.AddTool(mcpgomcp.NewTool(toolName), func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
		r, err := s.RequestElicitation(ctx, mcpgomcp.ElicitationRequest{Params: mcpgomcp.ElicitationParams{
			Mode: "form", Message: askMessage, RequestedSchema: schema,
		}})
		if err != nil {
			return nil, err
		}
		if r.Action != mcpgomcp.ElicitationResponseActionAccept {
			return nil, fmt.Errorf("elicitation %s", r.Action)
		}
		content, _ := r.Content.(map[string]any)
		name, _ := content["name"].(string)
		count, ok := content["count"].(float64)
		if name == "" || !ok {
			return nil, errors.New("bad content")
		}
		return mcpgomcp.NewToolResultText(name + " " + strconv.FormatInt(int64(count), 10)), nil
	})
	// Its default logger writes a line per answered elicitation; a server
	// under load would silence it, so the bench does.
	return mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
}

// floorLegacy is the least any server can do for the legacy exchange: the
// call's POST answered with a hand-written SSE frame carrying the
// elicitation, the answer's POST routed to it through a channel, the result
// as a second frame. No sessions, no schema check.
type floorLegacy struct {
	askParams string // the elicitation's params, written once
	mu        sync.Mutex
	next      int
	waiting   map[string]chan []byte
}

func newFloorLegacy() *floorLegacy {
	return &floorLegacy{
		askParams: `{"message":"` + askMessage + `","mode":"form","requestedSchema":` + askSchema + `}`,
		waiting:   map[string]chan []byte{},
	}
}

func (f *floorLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m.Result != nil { // the answer
		var id string
		_ = json.Unmarshal(m.ID, &id)
		f.mu.Lock()
		ch := f.waiting[id]
		delete(f.waiting, id)
		f.mu.Unlock()
		if ch == nil {
			http.Error(w, "unknown id", http.StatusNotFound)
			return
		}
		ch <- m.Result
		w.WriteHeader(http.StatusAccepted)
		return
	}
	f.mu.Lock()
	f.next++
	id := "e" + strconv.Itoa(f.next)
	ch := make(chan []byte, 1)
	f.waiting[id] = ch
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\""+id+"\",\"method\":\"elicitation/create\",\"params\":"+f.askParams+"}\n\n")
	w.(http.Flusher).Flush()
	var res []byte
	select {
	case res = <-ch:
	case <-r.Context().Done():
		return
	}
	var a struct {
		Content struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
		} `json:"content"`
	}
	_ = json.Unmarshal(res, &a)
	text := a.Content.Name + " " + strconv.FormatInt(a.Content.Count, 10)
	_, _ = io.WriteString(w, "id: 2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(m.ID)+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":"+strconv.Quote(text)+"}]}}\n\n")
}

// floorModern is the least a server can do for the 2026-07-28 exchange: two
// POSTs answered with hand-written JSON; the first asks, the second reads
// the answer. Its requestState is a constant: it neither seals nor checks.
type floorModern struct {
	inputRequired string // the result after the id, written once
}

func newFloorModern() *floorModern {
	return &floorModern{inputRequired: `,"result":{"resultType":"input_required","inputRequests":{"` + askKey +
		`":{"method":"elicitation/create","params":{"mode":"form","message":"` + askMessage + `","requestedSchema":` + askSchema +
		`}}},"requestState":"s"}}`}
}

func (f *floorModern) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			InputResponses map[string]struct {
				Action  string `json:"action"`
				Content struct {
					Name  string `json:"name"`
					Count int64  `json:"count"`
				} `json:"content"`
			} `json:"inputResponses"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	a, ok := m.Params.InputResponses[askKey]
	if !ok {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+f.inputRequired)
		return
	}
	text := a.Content.Name + " " + strconv.FormatInt(a.Content.Count, 10)
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","content":[{"type":"text","text":`+strconv.Quote(text)+`}]}}`)
}

// memSample is what /_bench/mem reports.
type memSample struct {
	AllocObjects uint64  `json:"allocObjects"` // cumulative
	AllocBytes   uint64  `json:"allocBytes"`   // cumulative
	HeapObjects  uint64  `json:"heapObjects"`  // bytes of live+unswept objects
	Stacks       uint64  `json:"stacks"`       // bytes of stack memory
	Goroutines   uint64  `json:"goroutines"`
	CPU          float64 `json:"cpuSeconds"` // the process's user and system CPU time so far (0 where unknown)
}

var memMetrics = []string{
	"/gc/heap/allocs:objects",
	"/gc/heap/allocs:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/sched/goroutines:goroutines",
}

func readMem(gc bool) memSample {
	if gc { // twice: the first GC's finalizers and sweeps settle in the second
		rt.GC()
		rt.GC()
	}
	s := make([]metrics.Sample, len(memMetrics))
	for i, n := range memMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return memSample{AllocObjects: v(0), AllocBytes: v(1), HeapObjects: v(2), Stacks: v(3), Goroutines: v(4), CPU: processCPU()}
}

// serveChild is the child process: it serves flow name on a loopback port,
// prints "addr HOST:PORT" on stdout, and exits when stdin closes (the
// parent went away or is done).
func serveChild(name string) int {
	f, ok := flowByName(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "bench: unknown flow %q\n", name)
		return 2
	}
	h, stop, err := newHandler(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.HandleFunc("/_bench/mem", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(readMem(r.URL.Query().Get("gc") == "1"))
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.Handle("/debug/pprof/allocs", pprof.Handler("allocs")) // ?seconds=N: the allocations of those N seconds
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var done atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		done.Store(true)
		stop()
		_ = hs.Close()
	}()
	fmt.Printf("addr %s\n", ln.Addr())
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !done.Load() {
		fmt.Fprintf(os.Stderr, "bench: serving %s: %v\n", name, err)
		return 1
	}
	return 0
}

// discardSpans is a span exporter that drops what it is given: the cost
// measured is the runtime's and the SDK's, not an exporter's.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }
