package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/roundtrip"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// The round-trip benchmark and its floor: one elicitation of a two-field
// form (a string and an integer), accepted, over loopback HTTP with
// keep-alive. The floor is the least any server can do for the same
// exchange: two bare net/http POSTs, the first answered with a hand-written
// SSE frame, the second routed to it through a channel.
//
//	go test -run '^$' -bench 'RoundTrip' -benchmem ./runtime/

var benchSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":  map[string]any{"type": "string"},
		"count": map[string]any{"type": "integer"},
	},
	"required": []any{"name", "count"},
}

const benchAnswer = `{"action":"accept","content":{"name":"ada","count":3}}`

// benchClient drives one round trip per iteration against callURL.
type benchClient struct {
	hc      *http.Client
	sid     string
	callURL string
}

func (c *benchClient) post(url string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	if c.sid != "" {
		req.Header.Set(HeaderSessionID, c.sid)
	}
	return c.hc.Do(req)
}

// readEvent returns the data of the next SSE event.
func readEvent(r *bufio.Reader) ([]byte, error) {
	var data []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if len(line) <= 2 && (line[0] == '\n' || line[0] == '\r') {
			if data != nil {
				return data, nil
			}
			continue
		}
		if bytes.HasPrefix(line, []byte("data: ")) {
			data = append(data, bytes.TrimRight(line[6:], "\r\n")...)
		}
	}
}

var idField = []byte(`"id":"`)

// roundTrip: tools/call, read the elicitation, answer it, read the result.
func (c *benchClient) roundTrip(callBody []byte, answerURL string) error {
	resp, err := c.post(c.callURL, callBody)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	ev, err := readEvent(r)
	if err != nil {
		return err
	}
	i := bytes.Index(ev, idField)
	if i < 0 {
		return io.ErrUnexpectedEOF
	}
	rest := ev[i+len(idField):]
	id := rest[:bytes.IndexByte(rest, '"')]
	answer := make([]byte, 0, 128)
	answer = append(answer, `{"jsonrpc":"2.0","id":"`...)
	answer = append(answer, id...)
	answer = append(answer, `","result":`...)
	answer = append(answer, benchAnswer...)
	answer = append(answer, '}')
	aresp, err := c.post(answerURL, answer)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, aresp.Body)
	aresp.Body.Close()
	if aresp.StatusCode != http.StatusAccepted {
		return io.ErrUnexpectedEOF
	}
	final, err := readEvent(r)
	if err != nil {
		return err
	}
	if !bytes.Contains(final, []byte(`ada 3`)) {
		return io.ErrUnexpectedEOF
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

func newBenchHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
}

func BenchmarkRoundTripElicit(b *testing.B) {
	srv := NewServer(Options{})
	srv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		content, err := ElicitSchema(ctx, "Name and count?", benchSchema)
		if err != nil {
			return nil, err
		}
		return TextResult(content["name"].(string) + " " + content["count"].(json.Number).String()), nil
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	c := &benchClient{hc: newBenchHTTPClient(), callURL: hs.URL}
	resp, err := c.post(hs.URL, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"bench","version":"1"}}}`))
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.sid = resp.Header.Get(HeaderSessionID)
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.roundTrip(call, hs.URL); err != nil {
			b.Fatal(err)
		}
	}
}

// floorServer is the bare net/http version of the same exchange.
type floorServer struct {
	mu      sync.Mutex
	next    int
	waiting map[string]chan []byte
}

func (f *floorServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if bytes.Contains(body, []byte(`"result"`)) { // the answer
		var m struct {
			ID     string          `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal(body, &m)
		f.mu.Lock()
		ch := f.waiting[m.ID]
		delete(f.waiting, m.ID)
		f.mu.Unlock()
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
	io.WriteString(w, `id: 1`+"\nevent: message\ndata: "+`{"jsonrpc":"2.0","id":"`+id+`","method":"elicitation/create","params":{"message":"Name and count?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}},"required":["name","count"]}}}`+"\n\n")
	w.(http.Flusher).Flush()
	res := <-ch
	var a struct {
		Content struct {
			Name  string `json:"name"`
			Count int    `json:"count"`
		} `json:"content"`
	}
	_ = json.Unmarshal(res, &a)
	text := a.Content.Name + " " + strconv.Itoa(a.Content.Count)
	io.WriteString(w, "id: 2\nevent: message\ndata: "+`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":`+strconv.Quote(text)+`}]}}`+"\n\n")
}

func BenchmarkRoundTripFloor(b *testing.B) {
	hs := httptest.NewServer(&floorServer{waiting: map[string]chan []byte{}})
	defer hs.Close()
	c := &benchClient{hc: newBenchHTTPClient(), callURL: hs.URL}
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.roundTrip(call, hs.URL); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripSession is the 2025-11-25 round trip as the bench
// harness (internal/cmd/bench) drives it: Elicit[testform.AskForm] on a
// session, over loopback HTTP (client and server costs together).
// BenchmarkRoundTripSessionParallel runs it from 64 clients at once, each
// on its own session, for profiles of what concurrency costs:
//
//	go test -run '^$' -bench 'RoundTripSession' -cpuprofile cpu.out ./runtime/
func BenchmarkRoundTripSession(b *testing.B) { benchSessionHTTP(b, 1) }

func BenchmarkRoundTripSessionParallel(b *testing.B) { benchSessionHTTP(b, 64) }

func benchSessionHTTP(b *testing.B, clients int) {
	srv := newBenchInputRequiredServer()
	defer srv.Shutdown(context.Background())
	hs := httptest.NewServer(srv)
	defer hs.Close()
	hc := newBenchHTTPClient()
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	open := func() (*benchClient, error) {
		c := &benchClient{hc: hc, callURL: hs.URL}
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"bench","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		} {
			resp, err := c.post(hs.URL, []byte(body))
			if err != nil {
				return nil, err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if c.sid == "" {
				c.sid = resp.Header.Get(HeaderSessionID)
			}
		}
		return c, nil
	}
	b.ReportAllocs()
	if clients == 1 {
		c, err := open()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := c.roundTrip(call, hs.URL); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetParallelism((clients + goruntime.GOMAXPROCS(0) - 1) / goruntime.GOMAXPROCS(0))
	b.RunParallel(func(pb *testing.PB) {
		c, err := open()
		if err != nil {
			b.Error(err)
			return
		}
		for pb.Next() {
			if err := c.roundTrip(call, hs.URL); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// The 2026-07-28 round trip: a tools/call answered input_required, then the
// retry with inputResponses and the echoed requestState, answered complete.
// The tool asks the generated testform.AskForm through Elicit[T].

// benchAskSchema is the requestedSchema of testform.AskForm, as the floor
// writes it by hand.
const benchAskSchema = `{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}},"required":["name","count"]}`

// newBenchInputRequiredServer serves the tool "ask" that elicits
// testform.AskForm.
func newBenchInputRequiredServer() *Server {
	srv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1})
	srv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		form, err := Elicit[testform.AskForm](ctx, "Name and count?")
		if err != nil {
			return nil, err // ErrInputRequired on the first run
		}
		return TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
	})
	return srv
}

// newBenchDynamicServer serves the same exchange with a dynamic form:
// testform.AskChoiceForm, its name a run-time choice, its count prefilled,
// under AskForm's key. Its ServeInputRequired and RoundTripInputRequired
// benchmarks against the static ones are the cost of WithChoices and
// WithDefaults (issue 18: at most 2x a static form per round trip).
func newBenchDynamicServer() *Server {
	srv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1})
	names := []Choice{{Value: "ada", Title: "Ada"}, {Value: "bob", Title: "Bob"}}
	srv.AddTool(Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		form, err := Elicit[testform.AskChoiceForm](ctx, "Name and count?", WithKey("ask_form"),
			WithChoices(testform.AskChoiceForm_Name, names...), WithDefaults(testform.AskChoiceForm{Count: 3}))
		if err != nil {
			return nil, err
		}
		return TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
	})
	return srv
}

// The bodies a 2026-07-28 client sends, as the end-to-end harness sends them.
const (
	benchInputRequiredMeta  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
	benchInputRequiredFirst = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},` + benchInputRequiredMeta + `}}`
	benchRetryHead          = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{"ask_form":` + benchAnswer + `},"requestState":`
	benchRetryTail          = `,` + benchInputRequiredMeta + `}}`
)

var (
	requestStateField = []byte(`"requestState":"`)
	inputRequiredType = []byte(`"resultType":"input_required"`)
	completeType      = []byte(`"resultType":"complete"`)
)

// appendRetry appends to dst the retry of the first response first: the
// answer and first's requestState, found by a byte scan (states are
// base64url, nothing in them needs escaping).
func appendRetry(dst, first []byte) ([]byte, bool) {
	i := bytes.Index(first, requestStateField)
	if i < 0 || !bytes.Contains(first, inputRequiredType) {
		return dst, false
	}
	rest := first[i+len(requestStateField)-1:]
	j := bytes.IndexByte(rest[1:], '"')
	if j < 0 {
		return dst, false
	}
	dst = append(dst, benchRetryHead...)
	dst = append(dst, rest[:j+2]...)
	return append(dst, benchRetryTail...), true
}

// inputRequiredPost posts one 2026-07-28 tools/call of "ask" and returns the
// body.
func (c *benchClient) inputRequiredPost(body []byte, buf *bytes.Buffer) error {
	req, err := http.NewRequest(http.MethodPost, c.callURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	req.Header.Set(HeaderProtocolVersion, Version20260728)
	req.Header.Set(HeaderMethod, "tools/call")
	req.Header.Set(HeaderName, "ask")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %s", resp.StatusCode, buf.Bytes())
	}
	return nil
}

// inputRequiredRoundTrip: the first call, then the retry with the answer.
func (c *benchClient) inputRequiredRoundTrip(retry []byte, buf *bytes.Buffer) ([]byte, error) {
	if err := c.inputRequiredPost([]byte(benchInputRequiredFirst), buf); err != nil {
		return retry, err
	}
	retry, ok := appendRetry(retry[:0], buf.Bytes())
	if !ok {
		return retry, fmt.Errorf("want input_required with a requestState: %s", buf.Bytes())
	}
	if err := c.inputRequiredPost(retry, buf); err != nil {
		return retry, err
	}
	if !bytes.Contains(buf.Bytes(), completeType) || !bytes.Contains(buf.Bytes(), []byte(`ada 3`)) {
		return retry, fmt.Errorf("want the complete result: %s", buf.Bytes())
	}
	return retry, nil
}

func benchInputRequiredHTTP(b *testing.B, h http.Handler) {
	hs := httptest.NewServer(h)
	defer hs.Close()
	c := &benchClient{hc: newBenchHTTPClient(), callURL: hs.URL}
	var buf bytes.Buffer
	var retry []byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if retry, err = c.inputRequiredRoundTrip(retry, &buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripInputRequired is the 2026-07-28 round trip over loopback
// HTTP (client and server costs together).
func BenchmarkRoundTripInputRequired(b *testing.B) {
	srv := newBenchInputRequiredServer()
	defer srv.Shutdown(context.Background())
	benchInputRequiredHTTP(b, srv)
}

// BenchmarkRoundTripInputRequiredDynamic is BenchmarkRoundTripInputRequired
// with the dynamic form (newBenchDynamicServer).
func BenchmarkRoundTripInputRequiredDynamic(b *testing.B) {
	srv := newBenchDynamicServer()
	defer srv.Shutdown(context.Background())
	benchInputRequiredHTTP(b, srv)
}

// floorInputRequiredServer is the least a server can do for the 2026-07-28
// exchange: hand-written JSON, a constant requestState neither sealed nor
// checked.
type floorInputRequiredServer struct{}

func (floorInputRequiredServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			InputResponses map[string]struct {
				Content struct {
					Name  string `json:"name"`
					Count int64  `json:"count"`
				} `json:"content"`
			} `json:"inputResponses"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	w.Header().Set("Content-Type", "application/json")
	a, ok := m.Params.InputResponses["ask_form"]
	if !ok {
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"input_required","inputRequests":{"ask_form":{"method":"elicitation/create","params":{"mode":"form","message":"Name and count?","requestedSchema":`+benchAskSchema+`}}},"requestState":"s"}}`)
		return
	}
	text := a.Content.Name + " " + strconv.FormatInt(a.Content.Count, 10)
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","content":[{"type":"text","text":`+strconv.Quote(text)+`}]}}`)
}

// BenchmarkRoundTripInputRequiredFloor is BenchmarkRoundTripInputRequired's
// floor.
func BenchmarkRoundTripInputRequiredFloor(b *testing.B) {
	benchInputRequiredHTTP(b, floorInputRequiredServer{})
}

// benchWriter is a reusable in-memory http.ResponseWriter.
type benchWriter struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
func (w *benchWriter) Write(p []byte) (int, error) { return w.body.Write(p) }

// Deadlines are taken as net/http's writer takes them (see streamWriter).
func (w *benchWriter) SetWriteDeadline(time.Time) error { return nil }
func (w *benchWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *benchWriter) reset() {
	clear(w.h)
	w.status = http.StatusOK
	w.body.Reset()
}

// BenchmarkServeInputRequired is the server's share of the 2026-07-28 round
// trip alone: both POSTs handed to ServeHTTP in memory, with requests and a
// response writer reused, so what it allocates is the server's.
func BenchmarkServeInputRequired(b *testing.B) {
	srv := newBenchInputRequiredServer()
	defer srv.Shutdown(context.Background())
	benchServeInputRequired(b, srv)
}

// BenchmarkServeInputRequiredDynamic is BenchmarkServeInputRequired with the
// dynamic form (newBenchDynamicServer).
func BenchmarkServeInputRequiredDynamic(b *testing.B) {
	srv := newBenchDynamicServer()
	defer srv.Shutdown(context.Background())
	benchServeInputRequired(b, srv)
}

func benchServeInputRequired(b *testing.B, srv *Server) {
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	req.Header.Set(HeaderProtocolVersion, Version20260728)
	req.Header.Set(HeaderMethod, "tools/call")
	req.Header.Set(HeaderName, "ask")
	var body bytes.Reader
	rc := io.NopCloser(&body)
	w := &benchWriter{h: http.Header{}}
	var first, retry []byte
	serve := func(payload []byte) []byte {
		w.reset()
		body.Reset(payload)
		req.Body = rc
		req.ContentLength = int64(len(payload))
		srv.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			b.Fatalf("status %d: %s", w.status, w.body.Bytes())
		}
		return w.body.Bytes()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first = append(first[:0], serve([]byte(benchInputRequiredFirst))...)
		var ok bool
		if retry, ok = appendRetry(retry[:0], first); !ok {
			b.Fatalf("want input_required with a requestState: %s", first)
		}
		if res := serve(retry); !bytes.Contains(res, completeType) || !bytes.Contains(res, []byte(`ada 3`)) {
			b.Fatalf("want the complete result: %s", res)
		}
	}
}

// The fast decoders of the request path (decodeMessage, decodeParamsFast,
// parseElicitCapsFast, decodeResponsesFast, decodeElicitResultFast)
// against their fallback, roundtrip.StrictUnmarshal: where a fast path
// answers, it answers what the fallback does. Both are checked against an
// oracle of the strict member rule built on encoding/json's tokenizer (a
// repeated member, or one that differs from a field only in case, is
// refused), and against plain json.Unmarshal where the rule has nothing to
// say. Error replies stay valid UTF-8 JSON whatever the id. (Here beside
// the benchmarks they serve; they are correctness tests all the same.)

var fastDecodeSeeds = []string{
	benchInputRequiredFirst,
	benchRetryHead + `"abc"` + benchRetryTail,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"a":[1,2]},"_meta":{"progressToken":"t","x":null,"x":1}}}`,
	`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","x":1,"x":2}`,
	`{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"requeſtState":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","name":"b"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"inputResponses":{"k":{},"k":{}}}}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":1,"Message":"m"}}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m","code":2}}`,
	`{"jsonrpc":1,"id":1,"method":"a"}`,
	`{"jsonrpc":"2.0","id":"x","result":{}}`,
	`{"jsonrpc":"2.0","id":"x","result":` + benchAnswer + `}`,
	`{"jsonrpc":"2.0","id":"x","result":null}`,
	`{"jsonrpc":"2.0","id":"x","result":{},"Result":1}`,
	`{"jsonrpc":"2.0","id":"x","result":[1,"a"],"result":2}`,
	`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}`,
	` {"jsonrpc" : "2.0" , "method" : "notifications/initialized" } `,
	`{"jsonrpc":"2.0","method":"m\u0061","params":{"name":"\u00e9","uri":"u","requestState":null}}`,
	`{"jsonrpc":"2.0","method":"m","params":{"Name":"x","NAME":"y"}}`,
	`{"jsonrpc":"2.0","method":"m","params":{"name":5}}`,
	`{"jsonrpc":"2.0","method":"m","params":{"_meta":null}}`,
	`{"jsonrpc":"2.0","method":"m","params":{"_meta":{"\u0061":1,"b":{"c":[]}}}}`,
	`{"jsonrpc":"2.0","method":"m","params":[]}`,
	`{"jsonrpc":"2.0","method":"m"} x`,
	`{"jsonrpc":"2.0","method":"m",}`,
	`{"jsonrpc":"2.0","méthod":"m"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"a\xc3\",\"result\":{}}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"\xffmethod\":\"ping\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"\xff\":1,\"\xfe\":2}}}",
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`[]`, `"x"`, `null`, ``, `{`,
}

func FuzzFastDecoders(f *testing.F) {
	for _, s := range fastDecodeSeeds {
		f.Add(s)
	}
	for _, s := range []string{benchAnswer, `{"action":"decline"}`, `{"action":"x\u0041","content":null}`, `{"Action":"accept"}`, `{"action":null}`, `{"action":"cancel","action":"accept"}`, `{"a":{"action":"accept"},"b":5}`, `{"a":1,"a":{}}`, `{"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{}}`, `{}`, `{"elicitation":{}}`, `{"elicitation":{"form":{},"url":null}}`, `{"elicitation":null}`, `{"elicitation":5}`,
		`{"Elicitation":{"url":{}}}`, `{"elicitation":{"URL":{}}}`, `{"elicitation":{},"elicitation":{"url":{}}}`, `{"roots":{"listChanged":true},"elicitation":{"form":{"x":1}}}`,
		`{"action":"accept","content":{},"Content":{"x":1}}`, "{\"action\":\"accept\",\"\xffcontent\":1}"} {
		f.Add(s)
	}
	errorFields := []string{"code", "message", "data"}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var fast, slow message
		ferr, serr := decodeMessage(b, &fast), roundtrip.StrictUnmarshal(b, &slow)
		if (ferr == nil) != (serr == nil) || (ferr != nil && ferr.Error() != serr.Error()) {
			t.Fatalf("decodeMessage(%q): error %v, fallback %v", s, ferr, serr)
		}
		if ferr == nil && !sameMessage(&fast, &slow) {
			t.Fatalf("decodeMessage(%q) = %+v, fallback %+v", s, fast, slow)
		}
		// The member rule, by the oracle: refused where it applies, and
		// json.Unmarshal's reading where it does not.
		top, members := breaksMemberRule(b, messageFields[:])
		if !top && members != nil && members["error"] != nil {
			top, _ = breaksMemberRule(members["error"], errorFields)
		}
		var me *roundtrip.MemberError
		if top != errors.As(ferr, &me) {
			t.Fatalf("decodeMessage(%q): error %v, the member rule says refused=%v", s, ferr, top)
		}
		if ferr == nil {
			var plain message
			if err := json.Unmarshal(b, &plain); err != nil || !sameMessage(&fast, &plain) {
				t.Fatalf("decodeMessage(%q) = %+v, json.Unmarshal %+v, %v", s, fast, plain, err)
			}
			// Whatever the id, an error reply is valid UTF-8 JSON, and it
			// echoes the id only when the id is valid.
			frame := encodeError(fast.ID, &RPCError{Code: CodeInvalidRequest, Message: "m"})
			if !utf8.Valid(frame) || !json.Valid(frame) {
				t.Fatalf("error reply %q for %q", frame, s)
			}
			if validID(fast.ID) && !bytes.Contains(frame, fast.ID) || !validID(fast.ID) && !bytes.HasPrefix(frame, []byte(`{"jsonrpc":"2.0","id":null,`)) {
				t.Fatalf("error reply %q echoes the id of %q wrongly", frame, s)
			}
		}
		if ferr == nil && len(slow.Params) > 0 { // params read in the message's pass, or later
			fp, fe := fast.decodedParams()
			var sp requestParams
			se := roundtrip.StrictUnmarshal(slow.Params, &sp)
			if (fe == nil) != (se == nil) || (fe != nil && fe.Error() != se.Error()) || (fe == nil && !sameParams(fp, &sp)) {
				t.Fatalf("params of %q: %+v, %v; fallback %+v, %v", s, fp, fe, sp, se)
			}
			broken, pm := breaksMemberRule(slow.Params, paramsFields[:])
			if !broken && pm["_meta"] != nil { // inputResponses is read later, by the fast paths below
				broken, _ = breaksMemberRule(pm["_meta"], nil)
			}
			if broken != errors.As(fe, &me) {
				t.Fatalf("params of %q: error %v, the member rule says refused=%v", s, fe, broken)
			}
		}
		if len(b) > 0 {
			var fp, sp requestParams
			if decodeParamsFast(b, &fp) {
				if err := roundtrip.StrictUnmarshal(b, &sp); err != nil || !sameParams(&fp, &sp) {
					t.Fatalf("decodeParamsFast(%q) = %+v, fallback %+v, %v", s, fp, sp, err)
				}
			}
			if rs, ok := scanResponses(b); ok {
				var sr map[string]json.RawMessage
				if err := roundtrip.StrictUnmarshal(b, &sr); err != nil || len(sr) != rs.n {
					t.Fatalf("scanResponses(%q) read %d members, fallback %q, %v", s, rs.n, sr, err)
				}
				bad := false
				for k, v := range sr {
					if got, ok := rs.lookup([]byte(k)); !ok || !bytes.Equal(got, v) {
						t.Fatalf("scanResponses(%q)[%q] = %q, want %q", s, k, got, v)
					}
					bad = bad || len(v) == 0 || v[0] != '{'
				}
				if bad != (rs.bad != nil) || (rs.bad != nil && sr[string(rs.bad)][0] == '{') {
					t.Fatalf("scanResponses(%q): bad %q", s, rs.bad)
				}
			}
			if fr, ok := decodeResponsesFast(b); ok {
				var sr map[string]json.RawMessage
				if err := roundtrip.StrictUnmarshal(b, &sr); err != nil || !sameRaws(fr, sr) {
					t.Fatalf("decodeResponsesFast(%q) = %q, fallback %q, %v", s, fr, sr, err)
				}
			}
		}
		if action, content, ok := decodeElicitResultFast(b); ok {
			var r struct {
				Action  string          `json:"action"`
				Content json.RawMessage `json:"content"`
			}
			if err := roundtrip.StrictUnmarshal(b, &r); err != nil || r.Action != action || !sameRaw(r.Content, content) {
				t.Fatalf("decodeElicitResultFast(%q) = %q, %q; fallback %+v, %v", s, action, content, r, err)
			}
		}
		if c, ok := parseElicitCapsFast(b); ok {
			var slowCaps elicitCaps
			func() { // the reference: parseElicitCaps's fallback
				var v struct {
					Elicitation *struct {
						Form json.RawMessage `json:"form"`
						URL  json.RawMessage `json:"url"`
					} `json:"elicitation"`
				}
				if len(b) == 0 || roundtrip.StrictUnmarshal(b, &v) != nil || v.Elicitation == nil {
					return
				}
				declared := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
				slowCaps = elicitCapsOf(true, declared(v.Elicitation.Form), declared(v.Elicitation.URL))
			}()
			if c != slowCaps {
				t.Fatalf("parseElicitCapsFast(%q) = %+v, want %+v", s, c, slowCaps)
			}
		}
	})
}

// breaksMemberRule is the oracle of the strict member rule for one object,
// read with encoding/json's tokenizer: whether a member named in fields (or
// any member, fields nil: a map) appears twice, or a member differs from
// one of fields only in case. It also returns the members by exact name
// (nil when b is not a valid object).
func breaksMemberRule(b []byte, fields []string) (bool, map[string]json.RawMessage) {
	if !json.Valid(b) {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false, nil
	}
	members := map[string]json.RawMessage{}
	broken := false
	for dec.More() {
		tok, _ := dec.Token()
		name := tok.(string)
		var v json.RawMessage
		_ = dec.Decode(&v)
		read := fields == nil || slices.Contains(fields, name)
		if !read {
			for _, f := range fields {
				broken = broken || strings.EqualFold(f, name)
			}
			continue
		}
		if _, dup := members[name]; dup {
			broken = true
		}
		members[name] = v
	}
	return broken, members
}

func sameRaw(a, b json.RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func sameRaws(a, b map[string]json.RawMessage) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !sameRaw(v, w) {
			return false
		}
	}
	return true
}

func sameMessage(a, b *message) bool {
	return a.JSONRPC == b.JSONRPC && sameRaw(a.ID, b.ID) && a.Method == b.Method && sameRaw(a.Params, b.Params) &&
		sameRaw(a.Result, b.Result) && (a.Error == nil) == (b.Error == nil) &&
		(a.Error == nil || (a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && sameRaw(a.Error.Data, b.Error.Data)))
}

func sameParams(a, b *requestParams) bool {
	return sameRaws(a.Meta, b.Meta) && a.Name == b.Name && a.URI == b.URI && sameRaw(a.Arguments, b.Arguments) &&
		sameRaw(a.InputResponses, b.InputResponses) && sameState(a, b)
}

func sameState(a, b *requestParams) bool {
	as, aok := a.requestState()
	bs, bok := b.requestState()
	return aok == bok && string(as) == string(bs)
}

func TestFastDecodersTakeTheFastPath(t *testing.T) {
	// What clients send is read by the fast paths (FuzzFastDecoders checks
	// that they agree with encoding/json).
	for _, s := range []string{benchInputRequiredFirst, benchRetryHead + `"abc"` + benchRetryTail} {
		var m message
		if !decodeMessageFast([]byte(s), &m) {
			t.Fatalf("decodeMessageFast(%q) fell back", s)
		}
		var p requestParams
		if !decodeParamsFast(m.Params, &p) {
			t.Fatalf("decodeParamsFast(%q) fell back", m.Params)
		}
		if _, ok := parseElicitCapsFast(p.Meta[metaClientCapabilities]); !ok {
			t.Fatalf("parseElicitCapsFast(%q) fell back", p.Meta[metaClientCapabilities])
		}
		if p.InputResponses != nil {
			if _, ok := decodeResponsesFast(p.InputResponses); !ok {
				t.Fatalf("decodeResponsesFast(%q) fell back", p.InputResponses)
			}
			if rs, ok := scanResponses(p.InputResponses); !ok || rs.n != 1 || rs.bad != nil {
				t.Fatalf("scanResponses(%q) = %+v, %v", p.InputResponses, rs, ok)
			}
		}
	}
	answer := `{"jsonrpc":"2.0","id":"e1","result":` + benchAnswer + `}`
	if m := (message{}); !decodeMessageFast([]byte(answer), &m) || string(m.Result) != benchAnswer {
		t.Fatalf("decodeMessageFast(%q) fell back or read the result as %q", answer, m.Result)
	}
	if action, content, ok := decodeElicitResultFast([]byte(benchAnswer)); !ok || action != "accept" || string(content) != `{"name":"ada","count":3}` {
		t.Fatalf("decodeElicitResultFast(%q) = %q, %q, %v", benchAnswer, action, content, ok)
	}
}
