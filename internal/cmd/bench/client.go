package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httputil"
	"strconv"
	"time"
)

// The client harness: hand-rolled HTTP/1.1 over keep-alive loopback
// connections, the same code for every server, so that what the client
// costs is the same in every row. It speaks just what the flows need: POST
// with a body, responses with Content-Length or chunked bodies, and SSE
// events inside a body.
//
// It is the module's one client-side wire code that does not use
// internal/mcpclient, on purpose: the benchmark measures the floor of an
// elicitation round trip, so the client must cost as little as it can and
// the same for every server, and it must share no code path with the
// runtime it measures (mcpclient uses the runtime's types, net/http's
// client and a spec-complete SSE parser, all of which would be measured).

var errProtocol = errors.New("unexpected response")

// exchangeTimeout bounds one request and everything read from its response.
const exchangeTimeout = 2 * time.Minute

// rawConn is one keep-alive connection.
type rawConn struct {
	addr    string
	nc      net.Conn
	br      *bufio.Reader // the connection
	wbuf    []byte
	body    io.Reader     // the current response's body
	chunked bool          // body is chunked: read the trailer at its end
	events  *bufio.Reader // SSE lines within body
	data    []byte        // the last event's data
	close   bool          // the server asked to close after this response
	open    bool          // a body is not read to its end yet
}

// reqHeaders are the MCP headers a request may carry.
type reqHeaders struct {
	session, version, method, name string
}

// response is what the flows need from a response's head.
type response struct {
	status    int
	sessionID string
	sse       bool
}

func newRawConn(addr string) *rawConn {
	return &rawConn{addr: addr, wbuf: make([]byte, 0, 1024), events: bufio.NewReaderSize(nil, 4096)}
}

func (c *rawConn) dial() error {
	nc, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
	if err != nil {
		return err
	}
	c.nc = nc
	if c.br == nil {
		c.br = bufio.NewReaderSize(nc, 4096)
	} else {
		c.br.Reset(nc)
	}
	return nil
}

// Close closes the connection.
func (c *rawConn) Close() error {
	if c.nc == nil {
		return nil
	}
	err := c.nc.Close()
	c.nc = nil
	return err
}

// post sends a POST of body to path and reads the response's head; the body
// is then read with readAll or nextEvent, and must be finished with finish.
func (c *rawConn) post(path string, h reqHeaders, body []byte) (response, error) {
	if c.open {
		if err := c.finish(); err != nil {
			return response{}, err
		}
	}
	if c.nc == nil || c.close {
		c.Close()
		c.close = false
		if err := c.dial(); err != nil {
			return response{}, err
		}
	}
	w := c.wbuf[:0]
	w = append(w, "POST "...)
	w = append(w, path...)
	w = append(w, " HTTP/1.1\r\nHost: "...)
	w = append(w, c.addr...)
	w = append(w, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "...)
	w = strconv.AppendInt(w, int64(len(body)), 10)
	w = appendHeader(w, "Mcp-Session-Id", h.session)
	w = appendHeader(w, "Mcp-Protocol-Version", h.version)
	w = appendHeader(w, "Mcp-Method", h.method)
	w = appendHeader(w, "Mcp-Name", h.name)
	w = append(w, "\r\n\r\n"...)
	w = append(w, body...)
	c.wbuf = w
	// Bounds every exchange: a server that stops answering fails the run
	// instead of hanging it. Held pending calls wait longest, hence the slack.
	if err := c.nc.SetDeadline(time.Now().Add(exchangeTimeout)); err != nil {
		c.Close()
		return response{}, err
	}
	if _, err := c.nc.Write(w); err != nil {
		c.Close()
		return response{}, err
	}
	return c.readHead()
}

func appendHeader(w []byte, name, value string) []byte {
	if value == "" {
		return w
	}
	w = append(w, "\r\n"...)
	w = append(w, name...)
	w = append(w, ": "...)
	return append(w, value...)
}

func (c *rawConn) readHead() (response, error) {
	var r response
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		c.Close()
		return r, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		c.Close()
		return r, fmt.Errorf("%w: status line %q", errProtocol, line)
	}
	r.status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		c.Close()
		return r, fmt.Errorf("%w: status line %q", errProtocol, line)
	}
	length := int64(-1)
	c.chunked = false
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			c.Close()
			return r, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			continue
		}
		name, value := line[:i], bytes.TrimSpace(line[i+1:])
		switch {
		case bytes.EqualFold(name, []byte("content-length")):
			length, _ = strconv.ParseInt(string(value), 10, 64)
		case bytes.EqualFold(name, []byte("transfer-encoding")):
			c.chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("content-type")):
			r.sse = bytes.HasPrefix(value, []byte("text/event-stream"))
		case bytes.EqualFold(name, []byte("mcp-session-id")):
			r.sessionID = string(value)
		case bytes.EqualFold(name, []byte("connection")):
			c.close = bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case c.chunked:
		c.body = httputil.NewChunkedReader(c.br)
	case length >= 0:
		c.body = io.LimitReader(c.br, length)
	default:
		c.body = c.br // to the end of the connection
		c.close = true
	}
	c.events.Reset(c.body)
	c.open = true
	return r, nil
}

// readAll reads the rest of the body.
func (c *rawConn) readAll() ([]byte, error) {
	c.data = c.data[:0]
	for {
		if len(c.data) == cap(c.data) {
			c.data = append(c.data, 0)[:len(c.data)]
		}
		n, err := c.events.Read(c.data[len(c.data):cap(c.data)])
		c.data = c.data[:len(c.data)+n]
		if err == io.EOF {
			return c.data, c.finish()
		}
		if err != nil {
			c.Close()
			return nil, err
		}
	}
}

// nextEvent returns the data of the next SSE event that has any; io.EOF
// when the body ends first.
func (c *rawConn) nextEvent() ([]byte, error) {
	c.data = c.data[:0]
	for {
		line, err := c.events.ReadSlice('\n')
		if err != nil {
			if err == io.EOF {
				if ferr := c.finish(); ferr != nil {
					return nil, ferr
				}
			} else {
				c.Close()
			}
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(c.data) > 0 {
				return c.data, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte(" "))
			if len(c.data) > 0 {
				c.data = append(c.data, '\n')
			}
			c.data = append(c.data, d...)
		}
	}
}

// finish reads the body to its end, and a chunked body's trailer, so the
// connection can carry the next request.
func (c *rawConn) finish() error {
	if !c.open {
		return nil
	}
	c.open = false
	if _, err := io.Copy(io.Discard, c.events); err != nil {
		c.Close()
		return err
	}
	if c.chunked { // the (empty) trailer after the last chunk
		for {
			line, err := c.br.ReadSlice('\n')
			if err != nil {
				c.Close()
				return err
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				break
			}
		}
	}
	if c.close {
		c.Close()
	}
	return nil
}

// message reads the one JSON-RPC message of a response, whether it came as
// application/json or as an SSE event, and finishes the body.
func (c *rawConn) message(r response) ([]byte, error) {
	if !r.sse {
		return c.readAll()
	}
	ev, err := c.nextEvent()
	if err != nil {
		return nil, err
	}
	return ev, c.finish() // finish does not touch c.data
}
