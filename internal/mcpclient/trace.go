package mcpclient

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// tracer writes the human-readable transcript. Every HTTP exchange (or,
// over stdio, every request and the server request it answers) gets a
// number; each line starts with "[n] " ("[-] " for what belongs to none) and
// a direction mark:
//
//	[n] > ...   sent by the client (request line, headers, body; a stdio line)
//	[n] < ...   received (status, headers, body or SSE frames; a stdio line)
//	[n] * ...   a note from the client about what it does next
//	[-] ! ...   a line the stdio server wrote to its standard error
//
// Lines of one exchange may interleave with another's when calls run
// concurrently; the number tells them apart. Each write is one whole block,
// so lines never tear.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
	n  atomic.Int64
}

// tracedHeaders are the request and response headers worth showing; others
// (and credentials) are left out of the transcript.
var tracedHeaders = []string{
	"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version",
	"Mcp-Method", "Mcp-Name", "Last-Event-Id", "Origin", "Allow", "Www-Authenticate",
}

func newTracer(w io.Writer) *tracer {
	if w == nil {
		return nil
	}
	return &tracer{w: w}
}

// next numbers a new exchange; 0 when tracing is off.
func (t *tracer) next() int64 {
	if t == nil {
		return 0
	}
	return t.n.Add(1)
}

// block writes lines, each prefixed with "[n] mark ".
func (t *tracer) block(n int64, mark string, lines []string) {
	if t == nil {
		return
	}
	tag := "[-]" // a note that belongs to no single exchange
	if n > 0 {
		tag = fmt.Sprintf("[%d]", n)
	}
	var b bytes.Buffer
	for _, l := range lines {
		fmt.Fprintf(&b, "%s %s %s\n", tag, mark, l)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(b.Bytes()) // tracing must never fail a call
}

func (t *tracer) notef(n int64, format string, args ...any) {
	if t == nil {
		return
	}
	t.block(n, "*", []string{fmt.Sprintf(format, args...)})
}

func (t *tracer) request(n int64, req *http.Request, body []byte) {
	if t == nil {
		return
	}
	lines := []string{req.Method + " " + req.URL.String()}
	lines = append(lines, headerLines(req.Header)...)
	lines = append(lines, bodyLines(body)...)
	t.block(n, ">", lines)
}

func (t *tracer) response(n int64, resp *http.Response) {
	if t == nil {
		return
	}
	lines := []string{resp.Proto + " " + resp.Status}
	lines = append(lines, headerLines(resp.Header)...)
	t.block(n, "<", lines)
}

func (t *tracer) body(n int64, body []byte) {
	if t == nil || len(body) == 0 {
		return
	}
	t.block(n, "<", bodyLines(body))
}

// line shows one stdio message as it went over the wire.
func (t *tracer) line(n int64, mark string, data []byte) {
	if t == nil {
		return
	}
	t.block(n, mark, []string{string(bytes.TrimRight(data, "\r\n"))})
}

// event shows one SSE frame: its id and event fields, then its data.
func (t *tracer) event(n int64, ev Event) {
	if t == nil {
		return
	}
	head := "sse"
	if ev.HasID {
		head += fmt.Sprintf(" id=%q", ev.ID)
	}
	if ev.Name != "" {
		head += fmt.Sprintf(" event=%q", ev.Name)
	}
	if ev.HasRetry {
		head += fmt.Sprintf(" retry=%s", ev.Retry)
	}
	lines := []string{head}
	for _, l := range strings.Split(ev.Data, "\n") {
		lines = append(lines, "sse data: "+l)
	}
	t.block(n, "<", lines)
}

func headerLines(h http.Header) []string {
	var out []string
	for _, k := range tracedHeaders {
		for _, v := range h.Values(k) {
			out = append(out, k+": "+v)
		}
	}
	return out
}

func bodyLines(body []byte) []string {
	if len(body) == 0 {
		return nil
	}
	s := strings.TrimRight(string(body), "\r\n")
	return strings.Split(s, "\n")
}
