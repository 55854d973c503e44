package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// Issue 15's wire tests: JSON-RPC read strictly, and answers counted only
// for the questions asked.

// TestAnswerCountsOnlyForTheQuestionAsked: requestState binds each asked
// key to the question it was asked with. When the handler asks something
// else under the same key on the retry (here the peer changed between
// rounds), the answer to the old question does not count: the new one is
// asked.
func TestAnswerCountsOnlyForTheQuestionAsked(t *testing.T) {
	f := newFixture(t, Options{})
	var peer atomic.Value
	peer.Store("192.0.2.1")
	f.srv.AddTool(Tool{Name: "add-peer"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		p := peer.Load().(string)
		content, err := ElicitSchema(ctx, "Add peer "+p+"?", userSchema)
		f.outcomes <- outcome{content, err}
		if err != nil {
			return nil, err
		}
		return TextResult("added " + p + " for " + content["username"].(string)), nil
	})
	c := f.newClient()
	r := c.inputRequiredCallTool("add-peer", `{}`, inputRequiredCapsElicit, "")
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) || !strings.Contains(string(r.Result["inputRequests"]), "Add peer 192.0.2.1?") {
		t.Fatalf("first run: %v, %v", o.err, r.Result)
	}
	answer := `{"elicit":{"action":"accept","content":{"username":"ada"}}}`

	peer.Store("198.51.100.7") // the question changes before the answer comes back
	r = c.inputRequiredCallTool("add-peer", `{}`, inputRequiredCapsElicit, retryExtra(answer, r.Result["requestState"]))
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) {
		t.Fatalf("an answer to %q counted for %q: %v, %v", "Add peer 192.0.2.1?", "Add peer 198.51.100.7?", o.content, r.Result)
	}
	if str(r.Result["resultType"]) != "input_required" || !strings.Contains(string(r.Result["inputRequests"]), "Add peer 198.51.100.7?") {
		t.Fatalf("second run: %v", r.Result)
	}

	// Answering the question asked completes the call.
	r = c.inputRequiredCallTool("add-peer", `{}`, inputRequiredCapsElicit, retryExtra(answer, r.Result["requestState"]))
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("third run: %v", o.err)
	}
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "added 198.51.100.7 for ada") {
		t.Fatalf("third run: %v", r.Result)
	}
}

// TestDuplicateMultiSelectItemsRefused: a multi-select answer that names
// an option twice is invalid content naming the property, through the
// generated decoder and through the subset check of a hand-built schema
// alike, so the handler never sees the item twice.
func TestDuplicateMultiSelectItemsRefused(t *testing.T) {
	f := newFixture(t, Options{})
	report := func(v any, err error) (*CallToolResult, error) {
		f.outcomes <- outcome{err: err}
		if err != nil {
			return ErrorResult("%v", err), nil
		}
		return TextResult(fmt.Sprint("got ", v)), nil
	}
	f.srv.AddTool(Tool{Name: "generated"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		form, err := Elicit[testform.FamiliesForm](ctx, "Families?")
		return report(form, err)
	})
	f.srv.AddTool(Tool{Name: "hand-built"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		content, err := ElicitSchema(ctx, "Families?", map[string]any{"type": "object", "properties": map[string]any{
			"families": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"ipv4-unicast", "ipv6-unicast"}}},
		}})
		return report(content, err)
	})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	for _, tool := range []string{"generated", "hand-built"} {
		resp, _ := c.callTool(tool, `{}`)
		s := openStream(t, resp)
		id, _ := s.elicitation()
		c.expect(c.answer(id, `{"action":"accept","content":{"families":["ipv6-unicast","ipv4-unicast","ipv6-unicast"]}}`), 202)
		o := f.waitOutcome()
		var ce *ContentError
		if !errors.Is(o.err, ErrElicitInvalidContent) || !errors.As(o.err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Property != "families" ||
			ce.Problems[0].Message != `item 2 repeats "ipv6-unicast"` {
			t.Errorf("%s: Elicit returned %v", tool, o.err)
		}
		if text, isErr := s.result(); !isErr || !strings.Contains(text, `families`) {
			t.Errorf("%s: result %q", tool, text)
		}
		s.close()
	}
}

// wireError reads a JSON-RPC error reply: it must be valid UTF-8 JSON.
func wireError(t *testing.T, what, body string) (id json.RawMessage, code int, message string) {
	t.Helper()
	if !utf8.ValidString(body) || !json.Valid([]byte(body)) {
		t.Fatalf("%s: the reply is not valid UTF-8 JSON: %q", what, body)
	}
	var m struct {
		ID    json.RawMessage
		Error *RPCError
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil {
		t.Fatalf("%s: want an error reply, got %s", what, body)
	}
	return m.ID, m.Error.Code, m.Error.Message
}

// strictCases are messages a strict JSON-RPC reader refuses, with the id
// the error reply must carry and a word of its message. They hold for
// every transport.
var strictCases = []struct {
	name, body, id, code, says string
}{
	{"id with invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}", "null", "-32600", "id must be"},
	{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", "-32600", "id must be"},
	{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null", "-32600", "id must be"},
	{"id object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "null", "-32600", "id must be"},
	{"member case", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, "null", "-32600", `member "Method" is not "method"`},
	{"member case, both", `{"jsonrpc":"2.0","id":1,"method":"tools/list","METHOD":"ping"}`, "null", "-32600", `member "METHOD" is not "method"`},
	{"member twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"ping"}`, "null", "-32600", `member "method" appears more than once`},
	{"params member case", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"plain","arguments":{}}}`, "1", "-32602", `member "Name" is not "name"`},
}

// TestStrictJSONRPCOverHTTP: in a session, on 2026-07-28 and in a
// 2025-03-26 batch, a message with an invalid id gets an error with a null
// id (never the id echoed, so the reply stays valid UTF-8 JSON), and member
// names are exact and unique: "Method" is not "method", and a message that
// names a member twice is refused instead of one of the two winning.
func TestStrictJSONRPCOverHTTP(t *testing.T) {
	f := newFixture(t, Options{})
	sessionful := f.connect("2025-11-25", `{"elicitation":{}}`)
	for _, tc := range strictCases {
		body := sessionful.expect(sessionful.post(tc.body), map[bool]int{true: 200, false: 400}[tc.code == "-32602"])
		id, code, msg := wireError(t, tc.name, body)
		if string(id) != tc.id || strconv.Itoa(code) != tc.code || !strings.Contains(msg, tc.says) {
			t.Errorf("sessionful, %s: id %s, code %d, %q", tc.name, id, code, msg)
		}
	}
	// 2026-07-28: the same rules before any header check.
	stateless := f.newClient()
	for _, tc := range strictCases[:7] {
		body := stateless.expect(stateless.post(strings.Replace(tc.body, `"jsonrpc":"2.0"`, `"jsonrpc":"2.0","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, 1), inputRequiredHeaders("ping", "")...), 400)
		if id, code, msg := wireError(t, tc.name, body); string(id) != tc.id || strconv.Itoa(code) != tc.code || !strings.Contains(msg, tc.says) {
			t.Errorf("stateless, %s: id %s, code %d, %q", tc.name, id, code, msg)
		}
	}
	raw := stateless.expect(stateless.post(inputRequiredBody(1, "tools/call", `"name":"ask","arguments":{},"inputResponses":{"elicit":{"action":"cancel"},"elicit":{"action":"accept","content":{"username":"ada"}}},"requestState":"x"`, inputRequiredCapsElicit), inputRequiredHeaders("tools/call", "ask")...), 200)
	if id, code, msg := wireError(t, "inputResponses twice", raw); string(id) != "1" || code != CodeInvalidParams || !strings.Contains(msg, `member "elicit" appears more than once`) {
		t.Errorf("stateless, inputResponses twice: id %s, code %d, %q", id, code, msg)
	}
	resp := stateless.post(inputRequiredBody(2, "tools/call", `"name":"plain","Name":"ask","arguments":{}`, inputRequiredCapsElicit), inputRequiredHeaders("tools/call", "plain")...)
	if id, code, msg := wireError(t, "params member case", readAll(t, resp)); string(id) != "2" || code != CodeInvalidParams || !strings.Contains(msg, `member "Name" is not "name"`) {
		t.Errorf("stateless, params member case: id %s, code %d, %q", id, code, msg)
	}
	// A number with a fraction is a valid id (MCP's RequestId is any
	// number): it is echoed as sent.
	body := sessionful.expect(sessionful.post(`{"jsonrpc":"2.0","id":1.50,"method":"ping"}`), 200)
	if !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":1.50,"result":`) {
		t.Errorf("fractional id: %s", body)
	}

	// A 2025-03-26 batch: each item under the same rules.
	old := f.connect("2025-03-26", `{}`)
	var batch []string
	for _, tc := range strictCases[:7] {
		batch = append(batch, tc.body)
	}
	body = old.expect(old.post("["+strings.Join(batch, ",")+"]"), 200)
	if !utf8.ValidString(body) || !json.Valid([]byte(body)) {
		t.Fatalf("batch reply is not valid UTF-8 JSON: %q", body)
	}
	var replies []json.RawMessage
	_ = json.Unmarshal([]byte(body), &replies)
	if len(replies) != 7 {
		t.Fatalf("batch: want 7 replies, got %s", body)
	}
	for _, r := range replies {
		if id, code, _ := wireError(t, "batch item", string(r)); string(id) != "null" || code != CodeInvalidRequest {
			t.Errorf("batch item reply %s", r)
		}
	}
}

// TestStrictElicitationAnswers: the responses a client POSTs back are read
// by the same rule: a result naming "action" twice is malformed (encoding/json
// would let the last one win), and the content of a hand-built form may not
// name a property twice (as generated decoders already refused).
func TestStrictElicitationAnswers(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	for _, tc := range []struct {
		name, answer string
		want         error
		says         string
	}{
		{"action twice", `{"action":"decline","action":"accept","content":{"username":"ada"}}`, ErrElicitMalformed, `member "action" appears more than once`},
		{"action case", `{"Action":"accept","content":{"username":"ada"}}`, ErrElicitMalformed, `member "Action" is not "action"`},
		{"property twice", `{"action":"accept","content":{"username":"ada","username":"eve"}}`, ErrElicitInvalidContent, `"username" appears more than once`},
	} {
		resp, _ := c.callTool("ask", `{}`)
		s := openStream(t, resp)
		id, _ := s.elicitation()
		c.expect(c.answer(id, tc.answer), 202)
		if o := f.waitOutcome(); !errors.Is(o.err, tc.want) || !strings.Contains(o.err.Error(), tc.says) {
			t.Errorf("%s: Elicit returned %v, %v", tc.name, o.content, o.err)
		}
		s.result()
		s.close()
	}
	// The answer's envelope too: "Result" is not "result", so this is no
	// response at all and the elicitation still waits for one.
	resp, _ := c.callTool("ask", `{}`)
	s := openStream(t, resp)
	id, _ := s.elicitation()
	body := c.expect(c.post(`{"jsonrpc":"2.0","id":"`+id+`","Result":{"action":"accept","content":{"username":"ada"}}}`), 400)
	if _, code, msg := wireError(t, "Result", body); code != CodeInvalidRequest || !strings.Contains(msg, `member "Result" is not "result"`) {
		t.Errorf("Result: %d %q", code, msg)
	}
	c.expect(c.answer(id, `{"action":"accept","content":{"username":"ada"}}`), 202)
	if o := f.waitOutcome(); o.err != nil || o.content["username"] != "ada" {
		t.Errorf("the real answer: %v, %v", o.content, o.err)
	}
	s.result()
	s.close()
}

// TestStrictJSONRPCOverStdio: the same rules on stdio, each reply a line
// of valid UTF-8 JSON.
func TestStrictJSONRPCOverStdio(t *testing.T) {
	f := newFixture(t, Options{})
	p := startStdio(t, f, context.Background())
	p.initialize(`{"elicitation":{}}`)
	for _, tc := range strictCases {
		p.send(tc.body)
		var line string
		select {
		case line = <-p.lines:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no reply", tc.name)
		}
		if id, code, msg := wireError(t, tc.name, line); string(id) != tc.id || strconv.Itoa(code) != tc.code || !strings.Contains(msg, tc.says) {
			t.Errorf("stdio, %s: id %s, code %d, %q", tc.name, id, code, msg)
		}
	}
}
