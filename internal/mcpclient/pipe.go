package mcpclient

import (
	"context"
	"errors"
	"io"
)

// Pipe connects a [Client] to a stdio server running in this process, for
// example a runtime.Server's ServeStdio on two io.Pipe pairs: the same
// transport as [Options.Command] (newline-delimited JSON-RPC, the same
// trace), without a child process.
type Pipe struct {
	// In is the server's input: the client writes one message a line to it,
	// and closes it on Close, which tells the server the connection ended.
	In io.WriteCloser
	// Out is the server's output, read line by line until EOF, which means
	// the server ended. Close waits up to 5 seconds for it after closing
	// In, then closes Out, which fails the server's further writes.
	Out io.ReadCloser
}

func (p *Pipe) check(opts Options) error {
	switch {
	case opts.URL != "" || len(opts.Command) > 0:
		return errors.New("mcpclient: set one of URL, Command and Pipe")
	case p.In == nil || p.Out == nil:
		return errors.New("mcpclient: Pipe needs both In and Out")
	case opts.HTTPClient != nil || len(opts.Header) > 0 || opts.Listen:
		return errors.New("mcpclient: HTTPClient, Header and Listen need URL; Pipe speaks stdio")
	case opts.Env != nil || opts.Dir != "" || opts.Stderr != nil:
		return errors.New("mcpclient: Env, Dir and Stderr need Command; a Pipe's server runs in this process")
	}
	return nil
}

// startPipe is startStdio for a server in this process: what it writes to
// p.Out is copied into the transport's stdout until EOF, which counts as
// the server's exit.
func startPipe(c *Client, p *Pipe) *stdioTransport {
	pr, pw := io.Pipe()
	t := &stdioTransport{
		c:        c,
		name:     "the in-process server",
		stdin:    p.In,
		stdout:   pr,
		outW:     pw,
		pending:  map[string]*stdioCall{},
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
	}
	t.stderr = &lineWriter{max: stderrLineMax, emit: t.stderrLine}
	t.kill = func(why error) {
		t.c.trace.notef(0, "%v; closing its output", why)
		_ = p.Out.Close()
		<-t.exited
	}
	t.ctx, t.stop = context.WithCancelCause(context.Background())
	t.x = &exchange{c: c, method: "stdio", cancel: t.stop}
	c.trace.notef(0, "connected to %s", t.name)
	go func() {
		_, err := io.Copy(pw, p.Out)
		if err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.exitErr = err
		}
		close(t.exited)
		pw.Close()
	}()
	go t.read()
	return t
}
