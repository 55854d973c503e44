//go:build unix

package main

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// cutTriggers are what marks an elicitation in a reply: the 2025-11-25
// request on the call's stream, and the 2026-07-28 input_required result.
var cutTriggers = [][]byte{[]byte(`"method":"elicitation/create"`), []byte(`"resultType":"input_required"`)}

// cutProxy is a TCP proxy between the clients and nginx that drops the
// connection of a POST right after passing on the bytes that carry an
// elicitation (the client has it; the stream of its call is then broken),
// as a mobile client's network or a restarted middlebox would. GET
// connections (a client resuming its stream) are passed on untouched.
type cutProxy struct {
	ln       net.Listener
	upstream string
	cuts     atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
}

func newCutProxy(upstream string) (*cutProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &cutProxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.handle(c)
		}()
	}
}

// track records an open connection so that close can end it; it reports
// false once the proxy is closing.
func (p *cutProxy) track(c net.Conn, open bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !open {
		delete(p.conns, c)
		return true
	}
	if p.conns == nil {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *cutProxy) handle(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer server.Close()
	if !p.track(client, true) || !p.track(server, true) {
		return
	}
	defer p.track(client, false)
	defer p.track(server, false)
	var post atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		first := true
		for {
			n, err := client.Read(buf)
			if n > 0 {
				if first {
					post.Store(bytes.HasPrefix(buf[:n], []byte("POST ")))
					first = false
				}
				if _, werr := server.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				if tc, ok := server.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				return
			}
		}
	}()
	p.copyCutting(client, server, &post)
	client.Close()
	server.Close()
	<-done
}

// copyCutting copies the server's bytes to the client, and returns (so
// that both connections close) right after bytes carrying a trigger went
// to a POST's client. A trigger split across reads is found too.
func (p *cutProxy) copyCutting(client io.Writer, server io.Reader, post *atomic.Bool) {
	buf := make([]byte, 32<<10)
	var tail []byte
	for {
		n, err := server.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
			window := append(tail, buf[:n]...)
			if post.Load() && containsAny(window, cutTriggers) {
				p.cuts.Add(1)
				return
			}
			if keep := 64; len(window) > keep {
				window = window[len(window)-keep:]
			}
			tail = append(tail[:0], window...)
		}
		if err != nil {
			return
		}
	}
}

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

func (p *cutProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}
