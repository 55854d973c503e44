package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// Bad input over HTTP that the status-code table does not cover: each gets
// a clear answer and leaves the server serving.

func TestFaultBodyStopsMidStream(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{}`)
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	// Promise 500 bytes, send 20, hang up.
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n%s: %s\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\"", HeaderSessionID, c.sid)
	conn.Close()
	// The server shrugs it off and keeps serving the session.
	c.expect(c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 200)
}

func TestFaultDeeplyNestedJSON(t *testing.T) {
	f := newFixture(t, Options{MaxBodyBytes: 1 << 20})
	c := f.connect("2025-06-18", `{}`)
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	body := c.expect(c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"plain","arguments":`+deep+`}}`), 400)
	var m struct{ Error *RPCError }
	if json.Unmarshal([]byte(body), &m) != nil || m.Error == nil || m.Error.Code != CodeParseError {
		t.Fatalf("deep nesting: %s", body[:min(len(body), 200)])
	}
	c.expect(c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), 200)
}

func TestFaultInvalidUTF8(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-06-18", `{}`)
	resp, _ := c.callTool("plain", "{\"s\":\"\xff\xfe\"}")
	body := c.expect(resp, 200)
	if !json.Valid([]byte(body)) {
		t.Fatalf("the answer to invalid UTF-8 is not valid JSON: %q", body)
	}
	// Invalid UTF-8 in an answer reaches a map-based handler only as
	// U+FFFD, never as raw bytes, and its result is valid JSON.
	e := f.connect("2025-06-18", `{"elicitation":{}}`)
	st, id, _ := startElicit(t, e)
	defer st.close()
	e.expect(e.answer(id, "{\"action\":\"accept\",\"content\":{\"username\":\"a\xffb\"}}"), 202)
	o := f.waitOutcome()
	if o.err != nil || o.content["username"] != "a\uFFFDb" {
		t.Fatalf("outcome %+v", o)
	}
	text, _ := st.result()
	if !strings.Contains(text, "a\uFFFDb") {
		t.Errorf("result %q", text)
	}
}

// TestFaultSlowReader: a client that reads its stream slowly delays only its
// own call; the server never blocks other sessions on it.
func TestFaultSlowReader(t *testing.T) {
	f := newFixture(t, Options{})
	big := strings.Repeat("x", 64<<10)
	f.srv.AddTool(Tool{Name: "chatty"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		for i := range 64 { // 4 MiB of log lines: more than the socket buffers hold
			if err := req.Log("info", "chatty", fmt.Sprintf("%d %s", i, big)); err != nil {
				return nil, err
			}
		}
		return TextResult("done"), nil
	})
	slow := f.connect("2025-06-18", `{}`)
	resp, _ := slow.callTool("chatty", `{}`)
	// Meanwhile another session is served at once.
	other := f.connect("2025-06-18", `{}`)
	start := time.Now()
	other.expect(other.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 200)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("another session waited %v behind a slow reader", d)
	}
	// The slow reader still gets everything, in order, ending with the result.
	r := bufio.NewReader(resp.Body)
	defer resp.Body.Close()
	time.Sleep(200 * time.Millisecond)
	var last string
	for {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, "data: ") {
			last = line
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(last, `"text":"done"`) {
		t.Errorf("last event %.100q", last)
	}
}
