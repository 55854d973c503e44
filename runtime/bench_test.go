package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
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
		content, err := req.Session.Elicit(ctx, "Name and count?", benchSchema)
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
