package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// stdioPeer is the client end of a ServeStdio connection over pipes.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter // the server's stdin
	lines chan string    // the server's stdout, line by line
	done  chan error     // ServeStdio's return
}

func startStdio(t *testing.T, f *fixture, ctx context.Context) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() {
		p.done <- f.srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after EOF")
		}
		for range p.lines {
		}
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next reads the next line and decodes it; every line must be JSON.
func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("stdout closed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			p.t.Fatalf("stdout line is not JSON: %q", line)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no line within 10s")
		return nil
	}
}

func (p *stdioPeer) initialize(caps string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}`)
	if m := p.next(); m["result"].(map[string]any)["protocolVersion"] != "2025-11-25" {
		p.t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func resultTextOf(m map[string]any) (string, bool) {
	r, _ := m["result"].(map[string]any)
	var b strings.Builder
	content, _ := r["content"].([]any)
	for _, c := range content {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := r["isError"].(bool)
	return b.String(), isErr
}

func TestStdioSessionElicit(t *testing.T) {
	f := newFixture(t, Options{})
	// The elicitation's message names the call, so answers can be told apart.
	f.srv.AddTool(Tool{Name: "askas"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		content, err := ElicitSchema(ctx, string(req.Arguments), userSchema)
		f.outcomes <- outcome{content, err}
		if err != nil {
			return nil, err
		}
		return TextResult(string(req.Arguments) + " " + content["username"].(string)), nil
	})
	p := startStdio(t, f, context.Background())
	p.initialize(`{"elicitation":{}}`)
	p.send(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)
	if m := p.next(); !strings.Contains(mustJSON(m), `"name":"ask"`) {
		t.Fatalf("tools/list: %v", m)
	}
	// Two calls at once, answered in reverse order.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"askas","arguments":{"call":1}}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"askas","arguments":{"call":2}}}`)
	asked := map[string]string{} // call arguments -> elicitation id
	for range 2 {
		m := p.next()
		if m["method"] != "elicitation/create" {
			t.Fatalf("want an elicitation, got %v", m)
		}
		asked[m["params"].(map[string]any)["message"].(string)] = m["id"].(string)
	}
	p.send(`{"jsonrpc":"2.0","id":"` + asked[`{"call":2}`] + `","result":{"action":"accept","content":{"username":"second"}}}`)
	p.send(`{"jsonrpc":"2.0","id":"` + asked[`{"call":1}`] + `","result":{"action":"accept","content":{"username":"first"}}}`)
	got := map[float64]string{}
	for range 2 {
		m := p.next()
		text, _ := resultTextOf(m)
		got[m["id"].(float64)] = text
	}
	f.waitOutcome()
	f.waitOutcome()
	if got[1] != `{"call":1} first` || got[2] != `{"call":2} second` {
		t.Fatalf("results crossed: %v", got)
	}
}

func TestStdioBadInput(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 256})
	p := startStdio(t, f, context.Background())
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := p.next(); errCode(m) != CodeInvalidRequest || m["id"] != 1.0 {
		t.Fatalf("request before initialize: %v", m)
	}
	p.initialize(`{}`)
	for _, tc := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":`, CodeParseError},
		{"\xff\xfe", CodeParseError},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 300) + `"}}`, CodeInvalidRequest},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, CodeInvalidRequest},
		{`{"jsonrpc":"2.0","id":4,"method":"nope"}`, CodeMethodNotFound},
	} {
		p.send(tc.line)
		if m := p.next(); int(errCode(m)) != tc.code {
			t.Errorf("%.40q: got %v, want code %d", tc.line, m, tc.code)
		}
	}
	// An answer for no pending request writes nothing; the connection
	// still works afterwards.
	p.send(`{"jsonrpc":"2.0","id":"elicit-nothing","result":{"action":"accept"}}`)
	p.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := p.next(); m["id"] != 9.0 || m["result"] == nil {
		t.Fatalf("after bad input: %v", m)
	}
}

func TestStdioEOFMidElicitation(t *testing.T) {
	f := newFixture(t, Options{})
	p := startStdio(t, f, context.Background())
	p.initialize(`{"elicitation":{}}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if m := p.next(); m["method"] != "elicitation/create" {
		t.Fatalf("%v", m)
	}
	p.in.Close() // the client goes away
	if o := f.waitOutcome(); !errors.Is(o.err, ErrSessionClosed) {
		t.Fatalf("err %v", o.err)
	}
	if text, isErr := resultTextOf(p.next()); !isErr || !strings.Contains(text, "stdio") {
		t.Errorf("result %q", text)
	}
	if err := <-p.done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	p.done <- nil // for the cleanup
}

func TestStdioCancelled(t *testing.T) {
	f := newFixture(t, Options{})
	p := startStdio(t, f, context.Background())
	p.initialize(`{"elicitation":{}}`)
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"stop"}}`)
	if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) {
		t.Fatalf("err %v", o.err)
	}
	if m := p.next(); m["method"] != "notifications/cancelled" {
		t.Fatalf("want the server's own cancel, got %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if m := p.next(); m["id"] != 6.0 {
		t.Fatalf("a response was sent for the cancelled call: %v", m)
	}
}

func TestStdioInputRequired(t *testing.T) {
	f := newFixture(t, Options{})
	p := startStdio(t, f, context.Background())
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	if m := p.next(); m["result"].(map[string]any)["resultType"] != "complete" {
		t.Fatalf("discover: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}`)
	if m := p.next(); errCode(m) != CodeInvalidParams {
		t.Fatalf("discover without _meta: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{},` + meta + `}}`)
	m := p.next()
	r := m["result"].(map[string]any)
	if r["resultType"] != "input_required" {
		t.Fatalf("first round: %v", m)
	}
	f.waitOutcome()
	state, _ := json.Marshal(r["requestState"])
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask","arguments":{},"inputResponses":{"elicit":{"action":"accept","content":{"username":"ada"}}},"requestState":` + string(state) + `,` + meta + `}}`)
	if text, isErr := resultTextOf(p.next()); isErr || !strings.Contains(text, "ada") {
		t.Fatalf("retry: %q", text)
	}
	f.waitOutcome()
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestStdioBackpressure: a client that sends requests and never reads a
// reply gets at most the in-flight bound of them taken; then the server
// stops reading. Before, every line was read and its call started (200k
// such requests grew the server to 737 MB).
func TestStdioBackpressure(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // nobody reads outR
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(ctx, inR, outW) }()

	// Lines of 16 KiB, so that what the reader buffers is a few of them.
	const total = 2000
	n := writeUntilStalled(inW, total, stdioRequest)
	bound := int64(MaxStdioInFlight + DefaultMaxPendingElicitations + 8) // + the lines buffered on the way
	t.Logf("a client that reads no reply got %d of %d requests taken (bound %d)", n, total, bound)
	if n > bound {
		t.Errorf("%d requests taken from a client that reads no reply, want at most %d", n, bound)
	}
	outR.CloseWithError(errors.New("the client went away")) // the blocked writes fail
	cancel()
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return")
	}
}
