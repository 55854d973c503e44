// Package netfault is a loopback TCP proxy that breaks connections the way
// networks and reverse proxies do, for the tests of streams that must
// survive them: it cuts a connection right after the server sent given
// bytes (a dropped connection mid-stream), and a connection on which the
// server has been silent for a read timeout (nginx's proxy_read_timeout).
// Tests only.
package netfault

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards each connection it accepts to its target.
type Proxy struct {
	ln     net.Listener
	target string
	idle   atomic.Int64 // read timeout on the server's side, in ns (0: none)

	mu      sync.Mutex
	cutOn   []byte // cut the next connection whose server bytes hold these
	cutAll  bool   // every such connection, not only the next
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
	cuts    atomic.Int32
	idleCut atomic.Int32
}

// Start listens on a loopback port and forwards to target (host:port).
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// CutAfter makes the proxy cut the next connection whose server sends
// bytes that contain pattern, right after it forwarded them to the client.
func (p *Proxy) CutAfter(pattern string) { p.cut(pattern, false) }

// CutEvery is CutAfter for every connection that carries pattern.
func (p *Proxy) CutEvery(pattern string) { p.cut(pattern, true) }

func (p *Proxy) cut(pattern string, all bool) {
	p.mu.Lock()
	p.cutOn, p.cutAll = []byte(pattern), all
	p.mu.Unlock()
}

// SetReadTimeout makes the proxy cut a connection on which the server sent
// nothing for d (0: never), as a reverse proxy's read timeout does.
func (p *Proxy) SetReadTimeout(d time.Duration) { p.idle.Store(int64(d)) }

// Cuts reports the connections cut after a pattern, and IdleCuts those cut
// by the read timeout.
func (p *Proxy) Cuts() int     { return int(p.cuts.Load()) }
func (p *Proxy) IdleCuts() int { return int(p.idleCut.Load()) }

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Add(2)
		go p.upstream(client, server)
		go p.downstream(client, server)
	}
}

// track records the pair; false once the proxy is closed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) drop(client, server net.Conn) {
	_ = client.Close()
	_ = server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// upstream copies the client's bytes to the server.
func (p *Proxy) upstream(client, server net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(server, client)
	p.drop(client, server)
}

// downstream copies the server's bytes to the client, cutting as told.
func (p *Proxy) downstream(client, server net.Conn) {
	defer p.wg.Done()
	defer p.drop(client, server)
	buf := make([]byte, 32<<10)
	for {
		if d := time.Duration(p.idle.Load()); d > 0 {
			_ = server.SetReadDeadline(time.Now().Add(d))
		}
		n, err := server.Read(buf)
		if n > 0 {
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
			if p.shouldCut(buf[:n]) {
				p.cuts.Add(1)
				return
			}
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				p.idleCut.Add(1)
			}
			return
		}
	}
}

func (p *Proxy) shouldCut(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cutOn == nil || !bytes.Contains(b, p.cutOn) {
		return false
	}
	if !p.cutAll {
		p.cutOn = nil
	}
	return true
}
