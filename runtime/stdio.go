package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// ServeStdio serves the server's tools over the stdio transport:
// newline-delimited JSON-RPC, one message a line, read from in and written
// to out. It is the same server as over HTTP — same tools, same handlers,
// same Elicit[T] and ElicitSchema — for clients that start the server as a child
// process.
//
// An initialize selects the session mechanism for the connection (one session
// for as long as it lasts): an eliciting handler writes elicitation/create as
// a line and the client's response line is routed to it by id. A request
// with 2026-07-28 _meta is served statelessly, elicitation being the
// input_required round trip. Calls run concurrently; notifications/cancelled
// cancels one.
//
// A line that is not JSON, is too long (Options.MaxBodyBytes) or is not
// JSON-RPC gets a JSON-RPC error; nothing but JSON-RPC lines is ever written
// to out (logs go to Options.Logger). At most MaxStdioInFlight requests run
// at once, plus Options.MaxPendingElicitations (so that calls waiting on an
// answer never fill it), and their lines and unwritten replies hold at most
// Options.MaxHeldBytes (a reply that does not fit is replaced by a short
// "server busy" error); past either, ServeStdio reads nothing until a
// request ends, so a client that does not read its replies holds the
// server's memory to that bound instead of growing it. ServeStdio returns nil when in
// ends (EOF), after ending the connection's calls — waiting elicitations get
// ErrSessionClosed and every call writes its result — or ctx.Err() when ctx
// ends first, or the read error.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	switch {
	case !s.made():
		return errNotMade
	case ctx == nil:
		return errNilContext
	case in == nil || out == nil:
		return errors.New("elicit: ServeStdio needs a reader and a writer: pass os.Stdin and os.Stdout, or use ServeStdioProcess")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &stdioConn{srv: s, out: out, ctx: ctx, slots: make(chan struct{}, MaxStdioInFlight+s.opts.MaxPendingElicitations)}
	err := c.readLoop(in)
	// The connection is over: wake waiting elicitations, cancel what still
	// runs, and let every call write its result before returning.
	c.mu.Lock()
	sess := c.sess
	c.closed = true
	c.mu.Unlock()
	if sess != nil {
		sess.close(errStdioClosed)
	}
	cancel(errStdioClosed)
	c.calls.cancelAll(errStdioClosed)
	c.wg.Wait()
	if err == nil && ctx.Err() != nil && !errors.Is(context.Cause(ctx), errStdioClosed) {
		return ctx.Err()
	}
	return err
}

// ServeStdioProcess is ServeStdio on os.Stdin and os.Stdout, until stdin
// closes or ctx ends. On Unix, when os.Stdout is the process's standard
// output, it keeps that for the protocol alone while it serves: whatever
// else the process writes to stdout (fmt.Println, a logger made on
// os.Stdout, a C library) goes to stderr instead of corrupting the MCP
// stream. A program that reassigned os.Stdout is served on that file as is.
func (s *Server) ServeStdioProcess(ctx context.Context) error {
	switch {
	case !s.made():
		return errNotMade
	case ctx == nil:
		return errNilContext
	}
	out, restore := takeStdout()
	defer restore()
	return s.ServeStdio(ctx, os.Stdin, out)
}

var errStdioClosed = &sessionClosedError{reason: "the client closed the stdio connection"}

// MaxStdioInFlight bounds the requests ServeStdio runs at once (see
// ServeStdio).
const MaxStdioInFlight = 64

// stdioConn is one stdio connection.
type stdioConn struct {
	srv *Server
	ctx context.Context

	wmu sync.Mutex
	out io.Writer

	mu     sync.Mutex
	sess   *Session // after initialize
	closed bool

	calls callSet // 2026-07-28 calls, for notifications/cancelled
	wg    sync.WaitGroup
	slots chan struct{} // one per request running: the in-flight bound
	// lineSize is the size of the line being handled (the read loop's),
	// held in Options.MaxHeldBytes while its request runs.
	lineSize int64
}

// write sends one message as one line. Frames are compact JSON (the
// encoders never emit raw newlines). Its bytes are held in
// Options.MaxHeldBytes until written: ErrServerBusy when they do not fit.
func (c *stdioConn) write(frame []byte) error {
	if !c.srv.held.tryHold(lineSize(frame)) {
		return ErrServerBusy
	}
	return c.writeHeld(frame)
}

// writeReply writes a call's response, or the short error that says the
// server is busy when it does not fit in Options.MaxHeldBytes.
func (c *stdioConn) writeReply(id json.RawMessage, frame []byte) error {
	frame, _ = c.srv.held.holdReply(frame, id, lineSize)
	return c.writeHeld(frame)
}

// lineSize is what a frame holds until written: its line.
func lineSize(frame []byte) int64 { return int64(len(frame) + 1) }

// writeHeld writes a frame whose lineSize is held, and releases it.
func (c *stdioConn) writeHeld(frame []byte) error {
	defer c.srv.held.release(lineSize(frame))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if len(frame) > 64<<10 { // not copied: the newline follows in a write of its own
		if _, err := c.out.Write(frame); err != nil {
			return err
		}
		_, err := c.out.Write(newline)
		return err
	}
	line := make([]byte, 0, len(frame)+1)
	line = append(append(line, frame...), '\n')
	_, err := c.out.Write(line)
	return err
}

var newline = []byte{'\n'}

func (c *stdioConn) writeError(id json.RawMessage, e *RPCError) {
	if err := c.writeReply(id, encodeError(id, e)); err != nil {
		c.srv.log.Info("stdio: write failed", "err", err)
	}
}

// readLoop reads lines until EOF, a read error or the end of ctx.
func (c *stdioConn) readLoop(in io.Reader) error {
	max := int(c.srv.opts.MaxBodyBytes)
	r := bufio.NewReaderSize(in, 64<<10)
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() { // reading blocks; the loop below also watches ctx
		defer close(lines)
		var line []byte
		tooLong := false
		for {
			chunk, err := r.ReadSlice('\n')
			switch {
			case tooLong:
			case len(line)+len(chunk) > max+1:
				tooLong, line = true, nil
			default:
				line = append(line, chunk...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if tooLong {
				c.writeError(nil, rpcErrorf(CodeInvalidRequest, "message longer than %d bytes", max))
			} else if len(line) > 0 {
				select {
				case lines <- line:
				case <-c.ctx.Done():
					errc <- nil
					return
				}
			}
			line, tooLong = nil, false
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				errc <- err
				return
			}
		}
	}()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return <-errc
			}
			c.handleLine(line)
		case <-c.ctx.Done():
			return nil
		}
	}
}

// stdioSink sends a call's messages as lines.
type stdioSink struct {
	c    *stdioConn
	id   json.RawMessage // the request's
	mu   sync.Mutex
	sent bool
	done bool
}

func (k *stdioSink) send(msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errSinkClosed
	}
	k.sent = true
	return k.c.write(msg)
}

func (k *stdioSink) finish(_ int, msg []byte) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return errSinkClosed
	}
	k.done = true
	if msg == nil {
		return nil
	}
	return k.c.writeReply(k.id, msg)
}

func (k *stdioSink) close() {
	k.mu.Lock()
	k.done = true
	k.mu.Unlock()
}

func (k *stdioSink) streaming() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sent
}

func (k *stdioSink) canSend() bool { return true }

// handleLine handles one message. Requests that may take time (tools/call)
// run in their own goroutine, so the connection keeps reading answers.
func (c *stdioConn) handleLine(line []byte) {
	c.lineSize = int64(cap(line))
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		c.writeError(nil, rpcErrorf(CodeInvalidRequest, "JSON-RPC batches are not supported"))
		return
	}
	var msg message
	kind, rerr := readMessage(line, &msg)
	if rerr != nil {
		if msg.owesErrorReply() {
			c.writeError(msg.ID, rerr)
		}
		return
	}
	if msg.Method == "notifications/cancelled" {
		c.cancel(&msg) // _meta is optional on notifications, so under either mechanism
		return
	}
	if msg.Method == "server/discover" || hasMetaVersion(&msg) {
		c.handleInputRequired(&msg)
		return
	}
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	if msg.Method == "initialize" {
		if sess != nil {
			c.writeError(msg.ID, rpcErrorf(CodeInvalidRequest, "the connection is already initialized"))
			return
		}
		sess, rep := c.srv.initializeResult(&msg, "", false)
		if sess != nil {
			c.mu.Lock()
			c.sess = sess
			c.mu.Unlock()
		}
		c.reply(&stdioSink{c: c, id: msg.ID}, rep)
		return
	}
	if sess == nil {
		if kind == requestMessage {
			c.writeError(msg.ID, rpcErrorf(CodeInvalidRequest, "send initialize first (or 2026-07-28 _meta on every request)"))
		}
		return
	}
	switch kind {
	case responseMessage:
		c.srv.sessionReply(sess, &msg)
	case notificationMessage:
		c.srv.sessionNotification(sess, &msg)
	default:
		c.goRequest(msg.ID, func(sk sink) reply { return c.srv.sessionRequest(c.ctx, sess, &msg, sk) })
	}
}

// handleInputRequired serves a 2026-07-28 message; stdio has no headers, so
// only the _meta rules apply.
func (c *stdioConn) handleInputRequired(msg *message) {
	if msg.isNotification() {
		return
	}
	if msg.isResponse() {
		return // 2026-07-28 servers send no requests, so nothing is answered
	}
	mm, rerr := parseRequestMeta(msg)
	if rerr == nil {
		rerr = checkRequestVersion(mm)
	}
	if rerr != nil {
		c.writeError(msg.ID, rerr)
		return
	}
	mm.calls = &c.calls
	c.goRequest(msg.ID, func(sk sink) reply { return c.srv.inputRequiredRequest(c.ctx, msg, mm, sk) })
}

// cancel handles notifications/cancelled: the id names a 2026-07-28 call of
// the connection or a call of its session (after initialize).
func (c *stdioConn) cancel(msg *message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if roundtrip.StrictUnmarshal(msg.Params, &p) != nil || !validID(p.RequestID) {
		return
	}
	key := idKey(p.RequestID)
	if c.calls.cancel(key, p.Reason) {
		return
	}
	c.mu.Lock()
	sess := c.sess
	c.mu.Unlock()
	if sess != nil {
		sess.cancelCall(key, p.Reason)
	}
}

// goRequest runs a request in its own goroutine and writes its reply.
// It waits for a free slot first, and for its line to fit in
// Options.MaxHeldBytes, and the reading loop with it: that is the
// backpressure on a client that sends faster than it reads.
func (c *stdioConn) goRequest(id json.RawMessage, run func(sink) reply) {
	select {
	case c.slots <- struct{}{}:
	case <-c.ctx.Done():
		return // the connection is ending: the request is not run
	}
	size := c.lineSize
	if !c.srv.held.hold(c.ctx, size) {
		<-c.slots
		return
	}
	c.wg.Add(1)
	go func() {
		defer func() { c.srv.held.release(size); <-c.slots; c.wg.Done() }()
		sk := &stdioSink{c: c, id: id}
		c.reply(sk, run(sk))
	}()
}

func (c *stdioConn) reply(sk sink, rep reply) {
	if rep.cancelled { // a line is never owed for a cancelled request
		sk.close()
		return
	}
	if err := sk.finish(rep.status, rep.frame); err != nil {
		c.srv.log.Info("stdio: reply not written", "err", err)
	}
}
