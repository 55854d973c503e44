package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// unreadPOST is a raw HTTP request: a sessionless 2026-07-28 request whose
// method name is size bytes of '<' (escaped as \u003c in an error that
// echoes it: a reply larger than the request).
func unreadPOST(host string, size int) []byte {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("<", size) + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	return []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: x\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body))
}

// settledHeap polls the child's live heap until two readings in a row
// differ by less than 1 MiB (the server has taken what it will take).
func settledHeap(c *child) int64 {
	last := c.heap()
	for i := 0; i < 50; i++ {
		time.Sleep(200 * time.Millisecond)
		h := c.heap()
		if d := h - last; d < 1<<20 && d > -(1<<20) {
			return h
		}
		last = h
	}
	return last
}

// rawPOST is a raw HTTP request for the child server (see startChild).
func rawPOST(host string, headers, body string) []byte {
	return []byte(fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n%s", host, headers, len(body), body))
}

// sendUnread opens n connections to the child and sends req on each, never
// reading; it returns a function that closes them.
func sendUnread(t *testing.T, host string, n int, req []byte) (closeAll func()) {
	var conns []net.Conn
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = conn.Write(req) }()
	}
	return func() {
		for _, conn := range conns {
			conn.Close()
		}
		wg.Wait()
	}
}

// TestHostileUnreadRepliesMemory: the attack of issue 23: 8 raw TCP
// clients each send a 4 MiB request whose error reply echoes its method
// name, and never read. The live heap after a collection grows by at most
// about Options.MaxHeldBytes while they wait (before the budget: +773 MiB
// of RSS, each reply held up to WriteTimeout), and once they go it is back
// where it was.
func TestHostileUnreadRepliesMemory(t *testing.T) {
	c := startChild(t)
	host := strings.TrimPrefix(c.base, "http://")
	before := c.heap()
	const clients, size = 8, 4<<20 - 512
	req := unreadPOST(host, size)
	closeAll := sendUnread(t, host, clients, req)
	held := settledHeap(c) - before
	sent := int64(clients * len(req))
	t.Logf("%d clients x 4 MiB, never reading: live heap %+d MiB = %.2fx the %d MiB sent (MaxHeldBytes %d MiB); peak RSS %d MiB",
		clients, held>>20, float64(held)/float64(sent), sent>>20, DefaultMaxHeldBytes>>20, c.procKB("VmHWM")>>10)
	if bound := int64(memoryBound(1.25) * DefaultMaxHeldBytes); held > bound {
		t.Errorf("live heap grew by %d MiB, want at most %d MiB (1.25x MaxHeldBytes)", held>>20, bound>>20)
	}
	closeAll()
	after := settledHeap(c) - before
	t.Logf("after the clients closed: live heap %+d KiB; RSS %d MiB", after>>10, c.procKB("VmRSS")>>10)
	if after > 8<<20 {
		t.Errorf("live heap still %d MiB above its start after the clients went", after>>20)
	}
}

// bigResult is the text of the child's "big" tool: 8 MiB.
const bigResult = 8 << 20

// TestHostileUnreadBigReplies: 24 clients call a tool whose result is 8 MiB
// and never read. The server holds the replies of about
// MaxHeldBytes/8 MiB of them, each until its write times out; the others
// get a short 503 instead, and so does a client that reads, with
// Retry-After and a JSON-RPC error saying the server is busy. The live heap
// grows by about MaxHeldBytes, not by the 24 replies.
func TestHostileUnreadBigReplies(t *testing.T) {
	c := startChild(t)
	host := strings.TrimPrefix(c.base, "http://")
	before := c.heap()
	const clients = 24
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{},` + meta + `}}`
	headers := "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\n"
	closeAll := sendUnread(t, host, clients, rawPOST(host, headers, body))
	defer closeAll()
	held := settledHeap(c) - before
	t.Logf("%d clients x 8 MiB replies, never reading: live heap %+d MiB (MaxHeldBytes %d MiB, %d MiB of replies); peak RSS %d MiB",
		clients, held>>20, DefaultMaxHeldBytes>>20, clients*bigResult>>20, c.procKB("VmHWM")>>10)
	if bound := int64(memoryBound(1.25) * DefaultMaxHeldBytes); held > bound {
		t.Errorf("live heap grew by %d MiB, want at most %d MiB (1.25x MaxHeldBytes)", held>>20, bound>>20)
	}

	req, _ := http.NewRequest(http.MethodPost, c.base+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": acceptBoth, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "big"} {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !bytes.Contains(b, []byte(`"id":1,"error":{"code":-32603,"message":"server busy`)) {
		t.Errorf("a call past the budget: %d Retry-After %q %.200s, want 503 with Retry-After and a server busy error", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
}

// TestHeldBytes: the budget's arithmetic: what fits, what waits, one hold
// larger than the budget when nothing is held, no bound.
func TestHeldBytes(t *testing.T) {
	h := newHeldBytes(100)
	if !h.tryHold(60) || !h.tryHold(40) || h.tryHold(1) {
		t.Fatal("tryHold: want 60 and 40 to fit in 100, then 1 more not")
	}
	h.release(40)
	if !h.tryHold(30) || h.tryHold(11) {
		t.Fatal("after a release: want 30 to fit, 11 more not")
	}
	h.release(90)
	if !h.tryHold(500) {
		t.Fatal("one hold larger than the budget must fit when nothing is held")
	}
	done := make(chan bool)
	go func() { done <- h.hold(context.Background(), 10) }()
	h.release(500)
	if !<-done {
		t.Fatal("hold did not get the bytes released")
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.force(95)
	go func() { done <- h.hold(ctx, 10) }()
	cancel()
	if <-done {
		t.Fatal("hold past the budget returned true after its context ended")
	}
	if got := h.n.Load(); got != 105 {
		t.Fatalf("held %d, want 105", got)
	}
	var unbounded *heldBytes
	if !unbounded.tryHold(1<<40) || !newHeldBytes(-1).tryHold(1<<40) {
		t.Fatal("no budget must hold anything")
	}
}

// TestHostileStdioBytesInFlight: a client writes 4 MiB requests, whose
// replies are as large, into a stdio server over real pipes and never
// reads stdout. The server stops
// reading once the lines it holds reach Options.MaxHeldBytes: the live
// heap grows by about the budget, not by the lines offered (before the
// byte bound it took 98 lines, the in-flight cap: +3.3 GiB).
func TestHostileStdioBytesInFlight(t *testing.T) {
	const budget = 16 << 20
	srv := NewServer(Options{MaxHeldBytes: budget})
	srv.AddTool(Tool{Name: "echo"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult(string(req.Arguments)), nil // a reply as large as the request
	})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	text := strings.Repeat("x", 4<<20-512)
	line := func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q},%s}}`+"\n", i, text, meta)
	}
	before := liveHeap()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, outW) }()
	const total = 40
	taken := writeUntilStalled(inW, total, line)
	held := liveHeap() - before
	t.Logf("%d of %d lines of 4 MiB taken with stdout unread: live heap %+d MiB (MaxHeldBytes %d MiB)", taken, total, held>>20, budget>>20)
	if taken == total {
		t.Errorf("the server read all %d lines while nobody read its replies", total)
	}
	// The budget, the line the reader hands on, the one it reads and the
	// one this test is writing.
	if bound := int64(memoryBound(1.25)*budget) + 3*int64(len(line(0))); held > bound {
		t.Errorf("live heap grew by %d MiB with stdout unread, want at most %d MiB", held>>20, bound>>20)
	}
	cancel()
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-done; err != nil && err != context.Canceled {
		t.Fatal(err)
	}
	outW.Close()
	inR.Close()
}

// liveHeap is the heap in use after a collection.
func liveHeap() int64 {
	goruntime.GC()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestHostileUnreadStreams: 12 clients each call a tool that streams 32
// log notifications of 1 MiB (an SSE stream of many frames) and never
// read. Each stream holds the event being written; together they hold at
// most MaxHeldBytes, and the handlers' sends past it fail with
// ErrServerBusy instead of growing the heap.
func TestHostileUnreadStreams(t *testing.T) {
	const budget = 8 << 20
	srv := NewServer(Options{MaxHeldBytes: budget})
	data := strings.Repeat("x", 1<<20)
	var busy, sent atomic.Int32
	srv.AddTool(Tool{Name: "flood"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		for range 32 {
			err := req.Log("info", "flood", data)
			switch {
			case errors.Is(err, ErrServerBusy):
				busy.Add(1)
				return nil, err
			case err != nil:
				return nil, err
			}
			sent.Add(1)
		}
		return TextResult("done"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := NewHTTPServer("", srv)
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	host := ln.Addr().String()
	before := liveHeap()
	const clients = 12
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`
	closeAll := sendUnread(t, host, clients, rawPOST(host, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: flood\r\n", body))
	defer closeAll()
	var held int64
	for last, i := int64(-1), 0; i < 50; i++ { // until the streams stall
		time.Sleep(200 * time.Millisecond)
		if n := int64(sent.Load()) + int64(busy.Load()); n == last && busy.Load() > 0 {
			break
		} else {
			last = n
		}
	}
	held = liveHeap() - before
	t.Logf("%d streams of 1 MiB events, never read: %d events written, %d sends refused busy; live heap %+d MiB (MaxHeldBytes %d MiB)", clients, sent.Load(), busy.Load(), held>>20, budget>>20)
	if busy.Load() == 0 {
		t.Error("no send was refused: the streams' events did not fill the budget")
	}
	// The budget, and what each blocked handler keeps beside its event.
	if bound := int64(memoryBound(2.25) * budget); held > bound {
		t.Errorf("live heap grew by %d MiB, want at most %d MiB", held>>20, bound>>20)
	}
}
