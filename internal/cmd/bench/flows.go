package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// The servers and eras a flow can run on.
const (
	serverOurs  = "ours"
	serverGoSDK = "gosdk"
	serverMCPGo = "mcpgo"
	serverFloor = "floor"
	// serverTraced is ours with OpenTelemetry SDK providers: every span
	// through a batch processor to an exporter that drops it, metrics
	// into a manual reader.
	serverTraced = "traced"

	eraLegacy = "legacy" // 2025-11-25: elicitation/create on the call's SSE stream
	eraModern = "modern" // 2026-07-28: input_required, then a retry
)

const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
	mcpPath       = "/mcp"
)

// flow is one server doing the exchange in one era.
type flow struct {
	name   string
	server string
	era    string
}

// flows in the order of the report; the run interleaves them.
var flows = []flow{
	{"ours-legacy", serverOurs, eraLegacy},
	{"gosdk-legacy", serverGoSDK, eraLegacy},
	{"mcpgo-legacy", serverMCPGo, eraLegacy},
	{"floor-legacy", serverFloor, eraLegacy},
	{"ours-modern", serverOurs, eraModern},
	{"gosdk-modern", serverGoSDK, eraModern},
	{"floor-modern", serverFloor, eraModern},
	{"traced-legacy", serverTraced, eraLegacy},
	{"traced-modern", serverTraced, eraModern},
}

func flowByName(name string) (flow, bool) {
	for _, f := range append(flows[:len(flows):len(flows)], taskFlow) {
		if f.name == name {
			return f, true
		}
	}
	return flow{}, false
}

// needsSession: the legacy flows of real servers start with initialize.
func (f flow) needsSession() bool { return f.era == eraLegacy && f.server != serverFloor }

// worker is one client of one flow: a session (legacy), a connection that
// carries the calls and one that carries the answers.
type worker struct {
	f       flow
	stream  *rawConn
	answer  *rawConn
	session string
	id      int
	body    []byte
}

func newWorker(f flow, addr string) *worker {
	return &worker{f: f, stream: newRawConn(addr), answer: newRawConn(addr), body: make([]byte, 0, 512)}
}

func (w *worker) Close() {
	w.stream.Close()
	w.answer.Close()
}

// rpcMessage is the part of a JSON-RPC message the flows look at.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func parseMessage(b []byte) (rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: not a JSON-RPC message: %v: %.200s", errProtocol, err, b)
	}
	if m.Error != nil {
		return m, fmt.Errorf("%w: error response: %.300s", errProtocol, m.Error)
	}
	return m, nil
}

// openSession runs initialize and notifications/initialized.
func (w *worker) openSession() error {
	if !w.f.needsSession() {
		return nil
	}
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyVersion + `","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"bench","version":"1"}}}`)
	r, err := w.answer.post(mcpPath, reqHeaders{}, body)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	msg, err := w.answer.message(r)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if _, err := parseMessage(msg); err != nil || r.status != 200 || r.sessionID == "" {
		return fmt.Errorf("initialize: status %d, session %q: %v", r.status, r.sessionID, err)
	}
	w.session = r.sessionID
	r, err = w.answer.post(mcpPath, w.headers(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if err := w.answer.finish(); err != nil || r.status != 202 {
		return fmt.Errorf("notifications/initialized: status %d: %v", r.status, err)
	}
	return nil
}

func (w *worker) headers() reqHeaders {
	if w.f.era == eraModern {
		return reqHeaders{version: modernVersion, method: "tools/call", name: toolName}
	}
	return reqHeaders{session: w.session, version: legacyVersion}
}

// roundTrip is one whole exchange: call, elicitation, answer, result.
func (w *worker) roundTrip() error {
	if w.f.era == eraModern {
		return w.modernRoundTrip()
	}
	elicitID, err := w.legacyCall()
	if err != nil {
		return err
	}
	if err := w.legacyAnswer(w.answer, elicitID); err != nil {
		return err
	}
	return w.legacyResult(w.stream)
}

// legacyCall posts tools/call on the stream connection and reads up to the
// elicitation request; it returns that request's id.
func (w *worker) legacyCall() (json.RawMessage, error) {
	w.id++
	w.body = append(w.body[:0], `{"jsonrpc":"2.0","id":`...)
	w.body = strconv.AppendInt(w.body, int64(w.id), 10)
	w.body = append(w.body, `,"method":"tools/call","params":{"name":"`+toolName+`","arguments":{}}}`...)
	r, err := w.stream.post(mcpPath, w.headers(), w.body)
	if err != nil {
		return nil, fmt.Errorf("tools/call: %w", err)
	}
	if r.status != 200 || !r.sse {
		msg, _ := w.stream.readAll()
		return nil, fmt.Errorf("%w: tools/call: status %d, sse %v: %.300s", errProtocol, r.status, r.sse, msg)
	}
	for {
		ev, err := w.stream.nextEvent()
		if err != nil {
			return nil, fmt.Errorf("tools/call: waiting for the elicitation: %w", err)
		}
		m, err := parseMessage(ev)
		if err != nil {
			return nil, err
		}
		if m.Method == "elicitation/create" && m.ID != nil {
			return append(json.RawMessage(nil), m.ID...), nil
		}
		if m.Result != nil {
			return nil, fmt.Errorf("%w: result before the elicitation: %.300s", errProtocol, ev)
		}
	}
}

// legacyAnswer posts the accepted answer to the elicitation id on c.
func (w *worker) legacyAnswer(c *rawConn, id json.RawMessage) error {
	body := make([]byte, 0, 128)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"result":`+acceptReply+`}`...)
	r, err := c.post(mcpPath, w.headers(), body)
	if err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	if err := c.finish(); err != nil {
		return fmt.Errorf("answer: %w", err)
	}
	if r.status != 202 && r.status != 200 {
		return fmt.Errorf("%w: answer: status %d", errProtocol, r.status)
	}
	return nil
}

// legacyResult reads the stream on to the call's result and its end.
func (w *worker) legacyResult(c *rawConn) error {
	for {
		ev, err := c.nextEvent()
		if err != nil {
			return fmt.Errorf("waiting for the result: %w", err)
		}
		m, err := parseMessage(ev)
		if err != nil {
			return err
		}
		if m.Result != nil && m.Method == "" {
			if !bytes.Contains(m.Result, []byte(resultText)) {
				return fmt.Errorf("%w: result lacks %q: %.300s", errProtocol, resultText, m.Result)
			}
			return c.finish()
		}
	}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// modernResult is the part of a 2026-07-28 tools/call result the flows read.
type modernResult struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  *string                    `json:"requestState"`
}

// modernFirst posts the first tools/call and returns the requestState of
// its input_required result (nil when the server sent none).
func (w *worker) modernFirst(c *rawConn) (*string, error) {
	w.id++
	w.body = append(w.body[:0], `{"jsonrpc":"2.0","id":`...)
	w.body = strconv.AppendInt(w.body, int64(w.id), 10)
	w.body = append(w.body, `,"method":"tools/call","params":{"name":"`+toolName+`","arguments":{},`+modernMeta+`}}`...)
	res, err := w.modernPost(c, "tools/call")
	if err != nil {
		return nil, err
	}
	var mr modernResult
	if err := json.Unmarshal(res, &mr); err != nil {
		return nil, fmt.Errorf("%w: tools/call: %v", errProtocol, err)
	}
	if mr.ResultType != "input_required" || mr.InputRequests[askKey] == nil {
		return nil, fmt.Errorf("%w: tools/call: want input_required asking %q: %.300s", errProtocol, askKey, res)
	}
	return mr.RequestState, nil
}

// modernRetry posts the retry with the answer and checks the result.
func (w *worker) modernRetry(c *rawConn, state *string) error {
	w.id++
	w.body = append(w.body[:0], `{"jsonrpc":"2.0","id":`...)
	w.body = strconv.AppendInt(w.body, int64(w.id), 10)
	w.body = append(w.body, `,"method":"tools/call","params":{"name":"`+toolName+`","arguments":{},"inputResponses":{"`+askKey+`":`+acceptReply+`}`...)
	if state != nil {
		w.body = append(w.body, `,"requestState":`...)
		w.body = strconv.AppendQuote(w.body, *state) // states are ASCII: Go and JSON quoting agree
	}
	w.body = append(w.body, ","+modernMeta+"}}"...)
	res, err := w.modernPost(c, "retry")
	if err != nil {
		return err
	}
	if !bytes.Contains(res, []byte(resultText)) || !bytes.Contains(res, []byte(`"complete"`)) {
		return fmt.Errorf("%w: retry: want a complete result with %q: %.300s", errProtocol, resultText, res)
	}
	return nil
}

func (w *worker) modernPost(c *rawConn, what string) (json.RawMessage, error) {
	r, err := c.post(mcpPath, w.headers(), w.body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	msg, err := c.message(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if r.status != 200 {
		return nil, fmt.Errorf("%w: %s: status %d: %.300s", errProtocol, what, r.status, msg)
	}
	m, err := parseMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return m.Result, nil
}

func (w *worker) modernRoundTrip() error {
	state, err := w.modernFirst(w.stream)
	if err != nil {
		return err
	}
	return w.modernRetry(w.stream, state)
}
