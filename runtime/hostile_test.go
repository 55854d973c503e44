package runtime

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Hostile-client memory tests. Each starts the test binary again as a child
// process that serves a Server on loopback (childServerEnv), drives it over
// real HTTP and reads the child's memory: its peak resident set
// (/proc/PID/status VmHWM) and its live heap after a collection
// (GET /heap). The figures are ratios to the bytes sent, so they hold on a
// noisy machine; nothing here is timed.

// childServerEnv makes the test binary a child server (see runChildServer).
const childServerEnv = "ELICIT_TEST_CHILD_SERVER"

// runChildServer serves a Server with default options (and the tools of a
// fixture that need no test) on a loopback port it prints as one line,
// plus GET /heap: the live heap in bytes after a collection. It stops when
// its standard input closes.
//
// With childServerEnv=stdio it serves MCP on its standard input and output
// instead (ServeStdio), until its standard input closes.
func runChildServer() int {
	srv := NewServer(Options{})
	srv.AddTool(Tool{Name: "plain"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult("plain"), nil
	})
	srv.AddTool(Tool{Name: "big"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return TextResult(strings.Repeat("x", bigResult)), nil // for TestHostileUnreadBigReplies
	})
	if os.Getenv(childServerEnv) == "stdio" {
		if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv)
	mux.HandleFunc("/heap", func(w http.ResponseWriter, r *http.Request) {
		goruntime.GC()
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		fmt.Fprint(w, ms.HeapAlloc)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hs := NewHTTPServer("", mux)
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("http://%s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// memoryBound is a ratio bound, doubled under the race detector (its
// shadow memory).
func memoryBound(r float64) float64 {
	if raceEnabled {
		return 2 * r
	}
	return r
}

// child is a running child server.
type child struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	base  string // http://host:port; "" for a stdio child
	hc    *http.Client
}

// startChild starts a child server on loopback HTTP.
func startChild(t *testing.T) *child { return startChildMode(t, "http") }

// startChildMode starts a child server, mode "http" or "stdio". A stdio
// child's standard output is not read until the test ends.
func startChildMode(t *testing.T, mode string) *child {
	t.Helper()
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status: Linux only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childServerEnv+"="+mode)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		go func() { _, _ = io.Copy(io.Discard, stdout) }() // unblock its writes
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	c := &child{t: t, cmd: cmd, stdin: stdin, hc: &http.Client{Timeout: 2 * time.Minute}}
	if mode == "stdio" {
		return c
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child server: %v", err)
	}
	c.base = strings.TrimSpace(line)
	return c
}

// procKB reads a /proc/PID/status field in KiB (VmHWM: peak resident set).
func (c *child) procKB(field string) int64 {
	c.t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		c.t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				c.t.Fatal(err)
			}
			return n
		}
	}
	c.t.Fatalf("no %s in /proc status", field)
	return 0
}

// heap is the child's live heap in bytes after a collection.
func (c *child) heap() int64 {
	c.t.Helper()
	resp, err := c.hc.Get(c.base + "/heap")
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		c.t.Fatalf("heap: %q", b)
	}
	return n
}

// post sends one MCP POST and returns the status, the session header and
// the body.
func (c *child) post(sid string, body []byte) (int, string, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	if sid != "" {
		req.Header.Set(HeaderSessionID, sid)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(HeaderSessionID), b
}

func (c *child) initialize(version, capabilities, clientInfo string) (int, string, []byte) {
	return c.post("", []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":%s}}`, version, capabilities, clientInfo)))
}

// TestHostileBatchMemory: a 2025-03-26 batch body of MaxBodyBytes made of
// tiny items ([0,0,0,...]) is refused with a clear error, and the child's
// peak resident set grows by a small multiple of the body. Before the item
// cap it built every item's error response: about 72x the body in one reply.
func TestHostileBatchMemory(t *testing.T) {
	c := startChild(t)
	status, sid, body := c.initialize("2025-03-26", `{}`, `{"name":"t","version":"1"}`)
	if status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	size := int(DefaultMaxBodyBytes) - 16
	batch := make([]byte, 0, size)
	batch = append(batch, '[')
	for len(batch) < size-2 {
		batch = append(batch, '0', ',')
	}
	batch = append(batch[:len(batch)-1], ']')
	c.heap() // settle
	before := c.procKB("VmHWM")
	status, _, reply := c.post(sid, batch)
	after := c.procKB("VmHWM")
	ratio := float64(after-before) * 1024 / float64(len(batch))
	t.Logf("batch of %d bytes: status %d, reply %d bytes (%.1fx the body), peak RSS +%d KiB = %.2fx the body",
		len(batch), status, len(reply), float64(len(reply))/float64(len(batch)), after-before, ratio)
	if status != http.StatusBadRequest || !strings.Contains(string(reply), "batch of more than") {
		t.Errorf("a batch of %d items: want 400 naming the item cap, got %d %.200s", len(batch)/2, status, reply)
	}
	if bound := memoryBound(8); ratio > bound {
		t.Errorf("peak RSS grew by %.1fx the request body, want at most %.0fx", ratio, bound)
	}
}

// TestHostileSessionMemory: initializes with 1.9 MiB in clientInfo or in
// capabilities leave almost nothing behind per session: clientInfo keeps
// its name and version, cut to MaxClientInfoField bytes; capabilities
// longer than MaxClientCapabilitiesBytes are refused by name. Before, every
// session kept both raw (RSS 12 MB -> 2.2 GB after 250 such sessions).
func TestHostileSessionMemory(t *testing.T) {
	c := startChild(t)
	const sessions = 12
	big := strings.Repeat("x", 1900<<10)
	infoBig := `{"name":"` + big + `","version":"1","description":"` + big[:1000] + `"}`
	capsBig := `{"elicitation":{},"experimental":{"x":"` + big + `"}}`
	base := c.heap()
	var sent int64
	refused := 0
	for i := 0; i < sessions; i++ {
		status, sid, body := c.initialize("2025-11-25", `{"elicitation":{}}`, infoBig)
		sent += int64(len(infoBig))
		if status != 200 || sid == "" {
			t.Fatalf("initialize with a long clientInfo: %d %.300s", status, body)
		}
		status, _, body = c.initialize("2025-11-25", capsBig, `{"name":"t","version":"1"}`)
		sent += int64(len(capsBig))
		if status == 200 && strings.Contains(string(body), `"result"`) {
			continue
		}
		if !strings.Contains(string(body), "capabilities") {
			t.Fatalf("initialize with long capabilities: %d %.300s", status, body)
		}
		refused++
	}
	grown := c.heap() - base
	ratio := float64(grown) / float64(sent)
	t.Logf("%d sessions, %d MiB of clientInfo and capabilities sent, %d refused: live heap +%d KiB = %.4fx what was sent (%d bytes a session)",
		2*sessions, sent>>20, refused, grown>>10, ratio, grown/int64(2*sessions))
	if refused != sessions {
		t.Errorf("%d of %d initializes with %d bytes of capabilities refused, want all", refused, sessions, len(capsBig))
	}
	if grown > int64(2*sessions)*16<<10 {
		t.Errorf("live heap grew by %d bytes for %d sessions, want at most 16 KiB a session", grown, 2*sessions)
	}
}

// writeUntilStalled writes line(0), line(1), ... to w from a goroutine
// until total lines are written or the reader stops taking them (no
// progress for half a second), and returns how many were taken.
func writeUntilStalled(w io.Writer, total int, line func(i int) string) int64 {
	var written atomic.Int64
	go func() {
		for i := 0; i < total; i++ {
			if _, err := io.WriteString(w, line(i)); err != nil {
				return
			}
			written.Add(1)
		}
	}()
	last, still := int64(-1), 0
	for still < 5 && written.Load() < int64(total) {
		time.Sleep(100 * time.Millisecond)
		if n := written.Load(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	return written.Load()
}

// stdioRequest is a 2026-07-28 tools/call line of about 16 KiB.
func stdioRequest(i int) string {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"plain","arguments":{},%s}}%s`+"\n", i, meta, strings.Repeat(" ", 16<<10))
}

// TestHostileStdioMemory: a client pushes 12000 requests of 16 KiB (192 MiB)
// into a stdio server and reads no reply. The server takes about a hundred
// and then stops reading: its peak RSS grows by a small part of what was
// offered. Before, it read them all, each call holding its line and its
// blocked reply (200k requests: 737 MB).
func TestHostileStdioMemory(t *testing.T) {
	c := startChildMode(t, "stdio")
	_, _ = io.WriteString(c.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n") // wait until it reads
	time.Sleep(200 * time.Millisecond)
	before := c.procKB("VmHWM")
	const total = 12000
	taken := writeUntilStalled(c.stdin, total, stdioRequest)
	after := c.procKB("VmHWM")
	offered := int64(total * len(stdioRequest(0)))
	ratio := float64(after-before) * 1024 / float64(offered)
	t.Logf("%d of %d requests (%d MiB offered) taken; peak RSS +%d KiB = %.3fx what was offered", taken, total, offered>>20, after-before, ratio)
	if bound := memoryBound(0.1); ratio > bound {
		t.Errorf("peak RSS grew by %.2fx the requests offered, want at most %.2fx", ratio, bound)
	}
}
