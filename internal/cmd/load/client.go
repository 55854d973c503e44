package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// client is one simulated MCP client: a legacy session, or a 2026-07-28
// client (no session; the name only groups its workers).
type client struct {
	index   int
	era     era
	version string
	session string // Mcp-Session-Id (legacy)
	nextID  atomic.Int64
}

// legacyVersionOf spreads the legacy sessions over both versions with form
// elicitation: their elicitation params and schemas differ.
func legacyVersionOf(session int) string {
	if session%2 == 1 {
		return runtime.Version20250618
	}
	return runtime.Version20251125
}

func (c *client) headers() []string {
	if c.era == eraModern {
		return []string{runtime.HeaderProtocolVersion, modernVersion, runtime.HeaderMethod, "tools/call", runtime.HeaderName, toolName}
	}
	return []string{runtime.HeaderSessionID, c.session, runtime.HeaderProtocolVersion, c.version}
}

func (c *client) id() string { return strconv.FormatInt(c.nextID.Add(1), 10) }

// initialize opens the legacy session.
func (d *driver) initialize(ctx context.Context, c *client) error {
	caps := `{"elicitation":{"form":{}}}`
	if c.version == runtime.Version20250618 {
		caps = `{"elicitation":{}}` // the 2025-06-18 shape
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"load","version":"1"}}}`, c.version, caps)
	resp, err := d.wire.post(ctx, []byte(body))
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return protocolf("initialize: status %d: %s", resp.StatusCode, errorBody(resp))
	}
	msgs, err := readResponses(resp, nil, "0")
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	switch {
	case len(msgs) != 1:
		return protocolf("initialize: %d responses, want 1", len(msgs))
	case msgs[0].Error != nil:
		return protocolf("initialize: JSON-RPC error %d: %s", msgs[0].Error.Code, msgs[0].Error.Message)
	case json.Unmarshal(msgs[0].Result, &res) != nil:
		return protocolf("initialize: result is not an object: %.200s", msgs[0].Result)
	case res.ProtocolVersion != c.version:
		return protocolf("initialize: negotiated %q, asked %q", res.ProtocolVersion, c.version)
	}
	if c.session = resp.Header.Get(runtime.HeaderSessionID); c.session == "" {
		return protocolf("initialize: no %s", runtime.HeaderSessionID)
	}
	status, b, err := d.wire.do(ctx, http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), c.headers()...)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if status != http.StatusAccepted {
		return protocolf("notifications/initialized: status %d: %.200s", status, b)
	}
	return nil
}

// closeSession ends a legacy session with DELETE.
func (d *driver) closeSession(ctx context.Context, c *client) error {
	status, b, err := d.wire.do(ctx, http.MethodDelete, nil, c.headers()...)
	if err != nil {
		return fmt.Errorf("DELETE session %d: %w", c.index, err)
	}
	if status != http.StatusNoContent {
		return protocolf("DELETE session %d: status %d: %.200s", c.index, status, b)
	}
	return nil
}

// legacyCall runs one call of a legacy session: tools/call, the
// elicitation on its stream, the answer POSTed (or the stream closed), the
// result read to the stream's end.
func (d *driver) legacyCall(ctx context.Context, c *client, call int) {
	p, rec := &d.plan.calls[call], &d.plan.records[call]
	id := c.id()
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + toolName + `","arguments":{"call":` + strconv.Itoa(call) + `}}}`
	start := time.Now()
	resp, err := d.wire.post(ctx, []byte(body), c.headers()...)
	if err != nil {
		d.callFailed(call, "tools/call: %v", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !isSSE(resp) {
		d.callFailed(call, "tools/call: want a 200 SSE stream, got %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), errorBody(resp))
		return
	}
	r := mcpclient.NewEventReader(resp.Body, maxEventBytes)
	data, err := nextData(r)
	if err != nil {
		d.callFailed(call, "reading the elicitation: %v", err)
		return
	}
	var req message
	if err := json.Unmarshal(data, &req); err != nil || req.Method != "elicitation/create" || len(req.ID) == 0 {
		d.callFailed(call, "first event is not an elicitation/create request: %.200s", data)
		return
	}
	if err := checkElicitation(req.Params, c.version, call); err != nil {
		d.callFailed(call, "%v", err)
		return
	}
	rec.elicited = true
	if p.outcome == outcomeDisconnect {
		// Leave mid-elicitation: closing an unfinished body closes the
		// connection, and the handler must return with the context error.
		resp.Body.Close()
		// Wait for the handler to return before this worker's next call:
		// until then the call still holds one of the session's pending
		// slots, and at high concurrency the next one could rightly get
		// ErrElicitTooMany, which is not what the plan says.
		if !waitFor(settle, func() bool { return rec.outcomes[0].Load() != int32(outcomeNone) }) {
			d.callFailed(call, "the handler did not return within %v of the client closing the stream", settle)
		}
		return
	}
	answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + p.answer(call) + `}`
	status, b, err := d.wire.do(ctx, http.MethodPost, []byte(answer), c.headers()...)
	if err != nil {
		d.callFailed(call, "posting the answer: %v", err)
		return
	}
	if status != http.StatusAccepted {
		d.callFailed(call, "posting the answer: status %d, want 202: %.200s", status, b)
		return
	}
	msgs, err := readResponses(resp, r, id)
	rec.results[0] = int8(len(msgs))
	if len(msgs) > 0 {
		rec.latency = time.Since(start)
		d.checkResult(call, msgs[0])
	}
	switch {
	case err != nil:
		d.callFailed(call, "reading the result: %v", err)
	case len(msgs) != 1:
		d.callFailed(call, "the stream carried %d responses, want 1", len(msgs))
	}
}

// modernMeta is the _meta every 2026-07-28 request carries.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"load","version":"1"}}`

// modernCall runs one 2026-07-28 call: tools/call answered input_required,
// then (unless the plan drops it) the retry with the answer and the echoed
// requestState.
func (d *driver) modernCall(ctx context.Context, c *client, call int) {
	p, rec := &d.plan.calls[call], &d.plan.records[call]
	args := `"name":"` + toolName + `","arguments":{"call":` + strconv.Itoa(call) + `}`
	start := time.Now()
	id := c.id()
	m, n, err := d.modernPost(ctx, c, id, args)
	rec.results[0] = int8(n)
	if err != nil {
		d.callFailed(call, "tools/call: %v", err)
		return
	}
	var res toolResult
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ResultType != "input_required" {
		d.callFailed(call, "tools/call: want input_required, got %.300s", m.Result)
		return
	}
	ask, ok := res.InputRequests[formKey]
	if len(res.InputRequests) != 1 || !ok || res.RequestState == nil || *res.RequestState == "" {
		d.callFailed(call, "input_required: want one %q request and a requestState: %.300s", formKey, m.Result)
		return
	}
	var ir struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(ask, &ir); err != nil || ir.Method != "elicitation/create" {
		d.callFailed(call, "input request is not elicitation/create: %.300s", ask)
		return
	}
	if err := checkElicitation(ir.Params, modernVersion, call); err != nil {
		d.callFailed(call, "%v", err)
		return
	}
	rec.elicited = true
	if p.outcome == outcomeDisconnect {
		return // the client walks away: there is no retry
	}
	state, _ := json.Marshal(*res.RequestState) // a string always marshals
	args += `,"inputResponses":{"` + formKey + `":` + p.answer(call) + `},"requestState":` + string(state)
	m, n, err = d.modernPost(ctx, c, c.id(), args)
	rec.results[1] = int8(n)
	if n > 0 {
		rec.latency = time.Since(start)
	}
	if err != nil {
		d.callFailed(call, "retry: %v", err)
		return
	}
	d.checkResult(call, m)
}

// modernPost sends a modern tools/call and returns its one response and
// how many responses the reply carried.
func (d *driver) modernPost(ctx context.Context, c *client, id, params string) (message, int, error) {
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + params + `,` + modernMeta + `}}`
	resp, err := d.wire.post(ctx, []byte(body), c.headers()...)
	if err != nil {
		return message{}, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return message{}, 0, protocolf("status %d: %s", resp.StatusCode, errorBody(resp))
	}
	msgs, err := readResponses(resp, nil, id)
	switch {
	case err != nil:
		return message{}, len(msgs), err
	case len(msgs) != 1:
		return message{}, len(msgs), protocolf("%d responses, want 1", len(msgs))
	case msgs[0].Error != nil:
		return message{}, 1, protocolf("JSON-RPC error %d: %s", msgs[0].Error.Code, msgs[0].Error.Message)
	}
	return msgs[0], 1, nil
}

// checkResult compares a call's terminal result with the plan.
func (d *driver) checkResult(call int, m message) {
	p, rec := &d.plan.calls[call], &d.plan.records[call]
	if m.Error != nil {
		rec.received = outcomeUnexpected
		d.callFailed(call, "result is JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
		return
	}
	var res toolResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		rec.received = outcomeUnexpected
		d.callFailed(call, "result: %v: %.300s", err, m.Result)
		return
	}
	text := res.text()
	rec.received = parseResultOutcome(text)
	want := resultText(call, p.outcome, p.expectedDetail(call))
	wantType := ""
	if p.era == eraModern {
		wantType = "complete"
	}
	if text != want || res.IsError != (p.outcome != outcomeAccept) || res.ResultType != wantType {
		d.callFailed(call, "result %q (isError %t, resultType %q), want %q (isError %t, resultType %q)",
			text, res.IsError, res.ResultType, want, p.outcome != outcomeAccept, wantType)
		return
	}
	rec.detailOK = true
}

// expectedDetail is the detail the handler's result must carry.
func (p *callPlan) expectedDetail(call int) string {
	switch p.outcome {
	case outcomeAccept:
		return acceptedDetail(p.accepted(call))
	case outcomeBadContent:
		return badContents[p.kind].property
	}
	return ""
}

func (d *driver) callFailed(call int, format string, args ...any) {
	d.plan.records[call].clientErr = true
	d.viol.add("%s: %s", d.describe(call), fmt.Sprintf(format, args...))
}

// describe names a call for a report line.
func (d *driver) describe(call int) string {
	r := d.cfg.totalRounds()
	round := call % r
	worker := call / r % d.cfg.Concurrency
	session := call / r / d.cfg.Concurrency % d.cfg.Sessions
	p := &d.plan.calls[call]
	version := modernVersion
	if p.era == eraLegacy {
		version = legacyVersionOf(session)
	}
	return fmt.Sprintf("%s call %d (client %d, worker %d, round %d, %s, planned %s)", p.era, call, session, worker, round, version, p.outcome)
}
