package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// The client side speaks raw HTTP, like the runtime's own wire tests: the
// driver must see every byte (how many responses a stream carried, whether
// it ended), close a stream mid-elicitation without a cancellation and drop
// a retry, which internal/mcpclient rightly hides or refuses (it sends
// notifications/cancelled when a call ends early, and retries
// input_required itself). What is the same job, parsing a stream's SSE
// events, is mcpclient's EventReader.

const (
	acceptBoth    = "application/json, text/event-stream"
	modernVersion = runtime.Version20260728
	toolName      = "book"
	formKey       = "booking_form"

	maxEventBytes    = 1 << 20 // one SSE line or JSON body
	maxStreamEvents  = 16      // a call's stream: elicitation, notifications, result
	maxErrorBodySize = 4 << 10
)

var errProtocol = errors.New("protocol violation")

func protocolf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errProtocol, fmt.Sprintf(format, args...))
}

// wire is the HTTP side of every simulated client: one transport, loopback
// only, no proxy, enough idle connections that steady load does not dial.
type wire struct {
	url string
	tr  *http.Transport
	hc  *http.Client
}

func newWire(url string, conns int) *wire {
	d := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		Proxy:               nil, // loopback only, whatever the environment says
		DialContext:         d.DialContext,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &wire{url: url, tr: tr, hc: &http.Client{Transport: tr}}
}

// post sends one JSON-RPC message with the given headers ("Name", "value",
// ...). The caller closes the body.
func (w *wire) post(ctx context.Context, body []byte, headers ...string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return w.hc.Do(req)
}

// do sends a request whose reply has no stream and returns status and body.
func (w *wire) do(ctx context.Context, method string, body []byte, headers ...string) (int, []byte, error) {
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = w.post(ctx, body, headers...)
	} else {
		var req *http.Request
		if req, err = http.NewRequestWithContext(ctx, method, w.url, nil); err != nil {
			return 0, nil, err
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err = w.hc.Do(req)
	}
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxEventBytes+1))
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if len(b) > maxEventBytes {
		return resp.StatusCode, nil, protocolf("reply body larger than %d bytes", maxEventBytes)
	}
	return resp.StatusCode, b, nil
}

// nextData returns the data of the next SSE event that carries any (a
// priming event carries only an id); io.EOF when the stream ended. The
// events are parsed by mcpclient's reader, the module's one SSE parser.
func nextData(r *mcpclient.EventReader) ([]byte, error) {
	for range maxStreamEvents {
		ev, err := r.Next()
		if err != nil {
			return nil, err
		}
		if ev.Data != "" {
			return []byte(ev.Data), nil
		}
	}
	return nil, protocolf("more than %d events without data", maxStreamEvents)
}

// message is a JSON-RPC message as the client reads it.
type message struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params json.RawMessage   `json:"params"`
	Result json.RawMessage   `json:"result"`
	Error  *runtime.RPCError `json:"error"`
}

func (m *message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// toolResult is the part of a tools/call result the driver checks.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError       bool                       `json:"isError"`
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *string                    `json:"requestState"`
}

func (r *toolResult) text() string {
	if len(r.Content) != 1 || r.Content[0].Type != "text" {
		return ""
	}
	return r.Content[0].Text
}

// elicitParams is the part of elicitation/create params the driver checks.
type elicitParams struct {
	Message         string          `json:"message"`
	Mode            *string         `json:"mode"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// checkElicitation checks that an elicitation request is the one call asked
// for, in the shape its protocol version defines.
func checkElicitation(raw json.RawMessage, version string, call int) error {
	var p elicitParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return protocolf("elicitation params: %v", err)
	}
	if want := elicitMessage(call); p.Message != want {
		return protocolf("elicitation for another call: message %q, want %q", p.Message, want)
	}
	switch {
	case version == runtime.Version20250618 && p.Mode != nil:
		return protocolf("2025-06-18 elicitation carries mode %q", *p.Mode)
	case version != runtime.Version20250618 && (p.Mode == nil || *p.Mode != "form"):
		return protocolf("%s elicitation without mode \"form\"", version)
	}
	v, ok := bookingForm.Lookup(version)
	if !ok || v.Schema == nil {
		return protocolf("the form has no schema for %s", version)
	}
	if !bytes.Equal(p.RequestedSchema, v.Schema) && !jsonEqual(p.RequestedSchema, v.Schema) {
		return protocolf("requestedSchema for %s is not the generated one: %s", version, p.RequestedSchema)
	}
	return nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x) // maps marshal with sorted keys
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// readResponses reads a call's reply, JSON or SSE, to its end and returns
// every response frame with the call's id. Server requests on it fail the
// read (a modern stream must carry none; a legacy one only before the
// answer, which the caller reads itself); notifications are skipped.
func readResponses(resp *http.Response, r *mcpclient.EventReader, id string) ([]message, error) {
	if !isSSE(resp) {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxEventBytes+1))
		if err != nil {
			return nil, err
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, protocolf("reply is not a JSON-RPC message: %v: %.200s", err, b)
		}
		if !m.isResponse() || string(m.ID) != id {
			return nil, protocolf("reply is not the response to %s: %.200s", id, b)
		}
		return []message{m}, nil
	}
	if r == nil {
		r = mcpclient.NewEventReader(resp.Body, maxEventBytes)
	}
	var out []message
	for range maxStreamEvents {
		data, err := nextData(r)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return out, protocolf("event is not a JSON-RPC message: %v: %.200s", err, data)
		}
		switch {
		case m.isResponse():
			if string(m.ID) != id {
				return out, protocolf("stream of %s carries the response to %s", id, m.ID)
			}
			out = append(out, m)
		case len(m.ID) > 0:
			return out, protocolf("unexpected server request %s on the stream of %s", m.Method, id)
		}
	}
	return out, protocolf("stream of %s has more than %d events", id, maxStreamEvents)
}

func isSSE(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

func errorBody(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodySize))
	return strconv.Quote(string(b))
}
