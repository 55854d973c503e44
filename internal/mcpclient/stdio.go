package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	stdioPipeWait = time.Second // exec.Cmd.WaitDelay: output copying after exit
	stderrLineMax = 64 << 10    // a longer stderr line is passed on in pieces
)

// How long Close waits for the child: after closing its stdin, and after
// SIGTERM before SIGKILL. Variables for tests.
var (
	stdioExitWait = closeTimeout
	stdioTermWait = 2 * time.Second
)

// stdioTransport runs the server as a child process and speaks
// newline-delimited JSON-RPC on its stdin and stdout: one message a line,
// both directions sharing the one channel. Responses find their request by
// id. Server requests (legacy elicitation/create, ping) cannot be tied to a
// call, so they are answered for the connection: their handlers run until
// the server cancels them, the connection ends or Close.
type stdioTransport struct {
	c      *Client
	cmd    *exec.Cmd
	name   string // the command line, for messages
	stdin  io.WriteCloser
	stdout *io.PipeReader
	outW   *io.PipeWriter
	stderr *lineWriter

	wmu         sync.Mutex // one line at a time
	stdinClosed atomic.Bool

	mu      sync.Mutex
	pending map[string]*stdioCall // by request id

	x    *exchange // the connection's server requests
	ctx  context.Context
	stop context.CancelCauseFunc // ends ctx: stdout ended, a failed answer, Close

	readDone chan struct{}
	exited   chan struct{}
	exitErr  error // cmd.Wait's, set before exited closes

	// kill stops a server that did not end after its stdin closed (why
	// says so, for the trace), and returns once exited is closed.
	kill func(why error)
}

// stdioCall is a request waiting for its response.
type stdioCall struct {
	n  int64
	ch chan *wireMessage // buffered: the reader never blocks on it
}

func startStdio(c *Client, argv []string) (*stdioTransport, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = c.opts.Env, c.opts.Dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("mcpclient: %w", err)
	}
	pr, pw := io.Pipe()
	t := &stdioTransport{
		c:        c,
		cmd:      cmd,
		name:     strings.Join(argv, " "),
		stdin:    stdin,
		stdout:   pr,
		outW:     pw,
		pending:  map[string]*stdioCall{},
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
	}
	t.stderr = &lineWriter{max: stderrLineMax, emit: t.stderrLine}
	t.kill = t.killChild
	// Not *os.File writers: exec copies the output in its own goroutines,
	// which Wait (bounded by WaitDelay) ends, so nothing outlives the child.
	cmd.Stdout, cmd.Stderr = pw, t.stderr
	cmd.WaitDelay = stdioPipeWait
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mcpclient: starting the server: %w", err)
	}
	t.ctx, t.stop = context.WithCancelCause(context.Background())
	t.x = &exchange{c: c, method: "stdio", cancel: t.stop}
	c.trace.notef(0, "started %s (pid %d)", t.name, cmd.Process.Pid)
	go t.wait()
	go t.read()
	return t, nil
}

// wait reaps the child, then ends stdout once everything it wrote is read.
func (t *stdioTransport) wait() {
	err := t.cmd.Wait()
	t.stderr.flush()
	t.exitErr = err
	close(t.exited)
	t.outW.Close()
}

// read hands every stdout line to handleLine until stdout ends or breaks
// the protocol; then every waiting call fails and answers stop.
func (t *stdioTransport) read() {
	defer close(t.readDone)
	r := bufio.NewReaderSize(t.stdout, 64<<10)
	for {
		line, err := readLine(r, t.c.opts.MaxMessageBytes)
		if len(line) > 0 {
			t.handleLine(line)
		}
		if err == nil {
			continue
		}
		eof := errors.Is(err, io.EOF)
		if eof {
			err = t.exitReason()
		}
		t.c.trace.notef(0, "connection ended: %v", err)
		t.stop(err)
		if !eof {
			// Keep the child's writes flowing, so it can still exit (or be
			// stopped by Close); the pipe ends once it has.
			_, _ = io.Copy(io.Discard, t.stdout)
		}
		return
	}
}

// exitReason says why stdout ended: the child exited (it has, when the
// pipe closes), with its status.
func (t *stdioTransport) exitReason() error {
	<-t.exited
	if t.exitErr != nil {
		return fmt.Errorf("the server exited: %w", t.exitErr)
	}
	return errors.New("the server exited")
}

// readLine reads one line, at most max bytes before its newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+1 {
			return nil, fmt.Errorf("%w: the server wrote a line longer than %d bytes", ErrProtocol, max)
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, err
	}
}

// handleLine routes the messages of one line: a response to its waiting
// call, a server request to an answering goroutine, a notification to
// Client.notification.
func (t *stdioTransport) handleLine(line []byte) {
	data := bytes.TrimSpace(line)
	if len(data) == 0 {
		return
	}
	msgs, err := decodeMessages(data)
	if err != nil {
		t.c.trace.line(0, "<", data)
		t.c.violation("ignoring a line that is not JSON-RPC: %v", err)
		return
	}
	traced := false
	trace := func(n int64) {
		if !traced {
			traced = true
			t.c.trace.line(n, "<", data)
		}
	}
	for _, m := range msgs {
		switch {
		case m.isRequest():
			n := t.c.trace.next()
			trace(n)
			if err := t.x.serverRequest(t.ctx, m, n); err != nil {
				t.refuse(n, m, err)
			}
		case m.isNotification():
			trace(0)
			t.c.notification(0, m)
		case !hasID(m.ID):
			trace(0)
			if m.Error != nil {
				t.c.trace.notef(0, "server reported an error for no request: %v", m.Error)
			} else {
				t.c.trace.notef(0, "ignoring a message with neither method nor id")
			}
		default:
			key := idKey(m.ID)
			t.mu.Lock()
			call, ok := t.pending[key]
			delete(t.pending, key)
			t.mu.Unlock()
			if !ok {
				trace(0)
				t.c.violation("ignoring a response to no pending request %s", key)
				continue
			}
			trace(call.n)
			call.ch <- m
		}
	}
}

// refuse answers a server request the client must not serve (any request
// in 2026-07-28) with an error, so the server never waits for it.
func (t *stdioTransport) refuse(n int64, m *wireMessage, why error) {
	t.c.trace.notef(n, "%v; answering with an error", why)
	body, err := json.Marshal(wireMessage{JSONRPC: jsonrpcVersion, ID: m.ID, Error: &RPCError{Code: CodeInvalidRequest, Message: why.Error()}})
	if err != nil {
		return
	}
	// Not on the reading goroutine: a write may block until the server
	// reads, and the server may be blocked writing to us.
	t.x.handlers.Add(1)
	go func() {
		defer t.x.handlers.Done()
		_ = t.write(n, body)
	}()
}

func (t *stdioTransport) roundTrip(ctx context.Context, x *exchange, body []byte, _ string) (json.RawMessage, error) {
	key := idKey(x.id)
	call := &stdioCall{n: x.n, ch: make(chan *wireMessage, 1)}
	t.mu.Lock()
	t.pending[key] = call
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}()
	if t.ctx.Err() != nil {
		return nil, t.ended(x)
	}
	if err := t.write(x.n, body); err != nil {
		return nil, causeOr(ctx, err)
	}
	var m *wireMessage
	select {
	case m = <-call.ch:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-t.ctx.Done():
		select {
		case m = <-call.ch: // the response came just before the end
		default:
			return nil, t.ended(x)
		}
	}
	res, done, err := x.handleMessage(ctx, m, x.n)
	if err == nil && !done {
		err = fmt.Errorf("%w: message routed to request %s is not its response", ErrProtocol, x.id)
	}
	return res, err
}

// ended is the error of a call whose connection ended before its response.
func (t *stdioTransport) ended(x *exchange) error {
	return fmt.Errorf("%w to request %s: %w", ErrStreamEnded, x.id, context.Cause(t.ctx))
}

// deliver writes a notification or an answer as one line. A write to a
// pipe cannot be cancelled; a server that stops reading is ended by Close.
func (t *stdioTransport) deliver(_ context.Context, n int64, body []byte, _ string) error {
	return t.write(n, body)
}

// write sends one message as one line. json.Marshal output has no raw
// newlines, so a message is always exactly one line.
func (t *stdioTransport) write(n int64, body []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.stdinClosed.Load() {
		return ErrClosed
	}
	t.c.trace.line(n, ">", body)
	line := make([]byte, 0, len(body)+1)
	line = append(append(line, body...), '\n')
	if _, err := t.stdin.Write(line); err != nil {
		t.c.trace.notef(n, "write failed: %v", err)
		return fmt.Errorf("writing to the server's stdin: %w", err)
	}
	return nil
}

// close closes the child's stdin (the stdio way to end the connection),
// waits for it to exit, and stops it if it does not.
func (t *stdioTransport) close() error {
	// Not under wmu: a write blocked on a stuck server must not block
	// Close; closing the pipe wakes it.
	t.stdinClosed.Store(true)
	_ = t.stdin.Close()
	var err error
	timer := time.NewTimer(stdioExitWait)
	select {
	case <-t.exited:
		timer.Stop()
	case <-timer.C:
		err = fmt.Errorf("the server did not exit within %s of its stdin closing", stdioExitWait)
		t.kill(err)
	}
	t.stop(ErrClosed)
	<-t.readDone
	t.x.handlers.Wait()
	if err == nil && t.exitErr != nil {
		err = fmt.Errorf("the server exited: %w", t.exitErr)
	}
	status := "status 0"
	if t.exitErr != nil {
		status = t.exitErr.Error()
	}
	t.c.trace.notef(0, "%s exited (%s)", t.name, status)
	return err
}

// killChild sends the child SIGTERM and, if it is still running after
// stdioTermWait, kills it.
func (t *stdioTransport) killChild(why error) {
	t.c.trace.notef(0, "%v; sending SIGTERM", why)
	if t.cmd.Process.Signal(syscall.SIGTERM) == nil {
		select {
		case <-t.exited:
		case <-time.After(stdioTermWait):
		}
	}
	select {
	case <-t.exited:
	default:
		t.c.trace.notef(0, "killing the server")
		_ = t.cmd.Process.Kill()
		<-t.exited
	}
}

// stderrLine passes on one line of the child's stderr.
func (t *stdioTransport) stderrLine(line []byte) {
	if w := t.c.opts.Stderr; w != nil {
		_, _ = w.Write(line) // like a terminal: the child's output is not checked
		return
	}
	t.c.trace.block(0, "!", []string{string(bytes.TrimRight(line, "\r\n"))})
}

// lineWriter splits what is written into lines and emits each whole line
// (with its newline) in one call, so the child's stderr never tears a line
// of the client's own output; a line longer than max goes out in pieces.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	emit func(line []byte)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	start := 0
	for {
		i := bytes.IndexByte(w.buf[start:], '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[start : start+i+1])
		start += i + 1
	}
	for len(w.buf)-start >= w.max {
		w.emit(append(w.buf[start:start+w.max:start+w.max], '\n'))
		start += w.max
	}
	w.buf = append(w.buf[:0], w.buf[start:]...)
	return len(p), nil
}

// flush emits a last line without a newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(append(w.buf, '\n'))
		w.buf = nil
	}
}
