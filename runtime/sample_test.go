package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sampleReq is a request of one user text message.
func sampleReq(text string) SampleRequest {
	return SampleRequest{Messages: []SamplingMessage{{Role: "user", Content: []SamplingContent{{Type: "text", Text: text}}}}, MaxTokens: 50}
}

// addAskAll adds the tool "all": a name form, the model and the roots,
// asked together; its outcome goes to f.outcomes.
func addAskAll(f *fixture) {
	f.srv.AddTool(Tool{Name: "all"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var name map[string]any
		var msg *SampleResult
		var roots []Root
		err := AskTogether(ctx,
			func(ctx context.Context) (err error) {
				name, err = ElicitSchema(ctx, "Who are you?", userSchema)
				return err
			},
			func(ctx context.Context) (err error) {
				msg, err = Sample(ctx, sampleReq("Greet"), WithKey("greeting"))
				return err
			},
			func(ctx context.Context) (err error) { roots, err = ListRoots(ctx); return err },
		)
		f.outcomes <- outcome{err: err}
		if err != nil {
			return nil, err
		}
		return TextResult(fmt.Sprintf("%v|%s|%s|%s|%s", name["username"], msg.Content[0].Text, msg.Model, msg.StopReason, roots[0].URI)), nil
	})
}

const allCaps = `{"elicitation":{},"sampling":{},"roots":{"listChanged":true}}`

// TestSampleAndRootsSession: in a session, Sample and ListRoots are server
// requests on the call's stream, answered by POSTed responses, one after
// the other; a refusal is a *ClientError.
func TestSampleAndRootsSession(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, Options{})
			addAskAll(f)
			c := f.connect(version, allCaps)
			resp, _ := c.callTool("all", `{}`)
			s := openStream(t, resp)
			defer s.close()
			id, _ := s.elicitation()
			c.expect(c.answer(id, `{"action":"accept","content":{"username":"ada"}}`), 202)
			ev := s.mustNext()
			params, _ := json.Marshal(ev.msg["params"])
			if ev.msg["method"] != "sampling/createMessage" || string(params) != `{"maxTokens":50,"messages":[{"content":{"text":"Greet","type":"text"},"role":"user"}]}` {
				t.Fatalf("want the sampling request, got %s", ev.data)
			}
			c.expect(c.answer(ev.msg["id"].(string), `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1","stopReason":"endTurn"}`), 202)
			ev = s.mustNext()
			if ev.msg["method"] != "roots/list" {
				t.Fatalf("want roots/list, got %s", ev.data)
			}
			c.expect(c.answer(ev.msg["id"].(string), `{"roots":[{"uri":"file:///src","name":"src"}]}`), 202)
			if o := f.waitOutcome(); o.err != nil {
				t.Fatal(o.err)
			}
			if text, isErr := s.result(); isErr || text != "ada|hi|m1|endTurn|file:///src" {
				t.Fatalf("result %q (isError %v)", text, isErr)
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		f := newFixture(t, Options{})
		addSampleTool(f)
		c := f.connect("2025-11-25", allCaps)
		resp, _ := c.callTool("sample", `{}`)
		s := openStream(t, resp)
		defer s.close()
		ev := s.mustNext()
		c.expect(c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"error":{"code":-1,"message":"User rejected sampling request"}}`, ev.msg["id"])), 202)
		o := f.waitOutcome()
		var ce *ClientError
		if !errors.As(o.err, &ce) || ce.Code != -1 || !errors.Is(o.err, ErrElicitFailed) {
			t.Fatalf("want a *ClientError, got %v", o.err)
		}
		if text, isErr := s.result(); !isErr || !strings.Contains(text, "rejected") {
			t.Errorf("result %q", text)
		}
	})
	t.Run("no capability", func(t *testing.T) {
		f := newFixture(t, Options{})
		addAskAll(f)
		c := f.connect("2025-11-25", `{"elicitation":{},"sampling":{}}`)
		resp, _ := c.callTool("all", `{}`)
		s := openStream(t, resp)
		defer s.close()
		id, _ := s.elicitation()
		c.expect(c.answer(id, `{"action":"accept","content":{"username":"ada"}}`), 202)
		ev := s.mustNext()
		c.expect(c.answer(ev.msg["id"].(string), `{"role":"assistant","content":[{"type":"text","text":"hi"}],"model":"m1"}`), 202)
		o := f.waitOutcome()
		var mc *MissingCapabilityError
		if !errors.As(o.err, &mc) || mc.Capability != "roots" || !errors.Is(o.err, ErrElicitUnsupported) {
			t.Fatalf("want the missing roots capability, got %v", o.err)
		}
	})
}

// TestSampleAndRootsInputRequired: on 2026-07-28 the three asks of one
// AskTogether go out in one round, each under its method; the retry's
// answers are decoded by the method each key was asked with.
func TestSampleAndRootsInputRequired(t *testing.T) {
	f := newFixture(t, Options{})
	addAskAll(f)
	c := f.newClient()
	r := c.inputRequiredCallTool("all", `{}`, allCaps, "")
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) {
		t.Fatalf("first run: %v", o.err)
	}
	var reqs map[string]struct {
		Method string
		Params json.RawMessage
	}
	if err := json.Unmarshal(r.Result["inputRequests"], &reqs); err != nil || len(reqs) != 3 {
		t.Fatalf("inputRequests %s", r.Result["inputRequests"])
	}
	for key, method := range map[string]string{"elicit": "elicitation/create", "greeting": "sampling/createMessage", "roots": "roots/list"} {
		if reqs[key].Method != method {
			t.Errorf("inputRequests[%q] is %q, want %q", key, reqs[key].Method, method)
		}
	}
	if string(reqs["roots"].Params) != `{}` {
		t.Errorf("roots/list params %s", reqs["roots"].Params)
	}
	state := r.Result["requestState"]
	answers := `{"elicit":{"action":"accept","content":{"username":"ada"}},` +
		`"greeting":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1","stopReason":"endTurn"},` +
		`"roots":{"roots":[{"uri":"file:///src"}]}}`
	r = c.inputRequiredCallTool("all", `{}`, allCaps, retryExtra(answers, state))
	if o := f.waitOutcome(); o.err != nil {
		t.Fatalf("retry: %v", o.err)
	}
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "ada|hi|m1|endTurn|file:///src") {
		t.Fatalf("retry: %v", r.Result)
	}

	t.Run("a response of another method's shape", func(t *testing.T) {
		// An ElicitResult under the sampling key is decoded as what was
		// asked there, a CreateMessageResult, and fails as one.
		wrong := `{"elicit":{"action":"accept","content":{"username":"ada"}},"greeting":{"action":"accept"},"roots":{"roots":[]}}`
		c.inputRequiredCallTool("all", `{}`, allCaps, retryExtra(wrong, state))
		if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitMalformed) {
			t.Fatalf("want ErrElicitMalformed, got %v", o.err)
		}
	})
	t.Run("some answered", func(t *testing.T) {
		// The answered ones count; the round asks only the rest.
		r := c.inputRequiredCallTool("all", `{}`, allCaps, retryExtra(`{"roots":{"roots":[{"uri":"file:///a"}]}}`, state))
		f.waitOutcome()
		var reqs map[string]json.RawMessage
		_ = json.Unmarshal(r.Result["inputRequests"], &reqs)
		if _, ok := reqs["roots"]; ok || len(reqs) != 2 {
			t.Fatalf("inputRequests %s", r.Result["inputRequests"])
		}
	})
	t.Run("missing capability is -32021", func(t *testing.T) {
		f.srv.AddTool(Tool{Name: "sample"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
			_, err := Sample(ctx, sampleReq("x"))
			return nil, err
		})
		c.next++
		resp := c.post(inputRequiredBody(c.next, "tools/call", `"name":"sample","arguments":{}`, `{"elicitation":{}}`), inputRequiredHeaders("tools/call", "sample")...)
		rr := decodeResponse(t, c.expect(resp, 400))
		if rr.Error == nil || rr.Error.Code != CodeMissingCapability || string(rr.Error.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
			t.Errorf("want -32021 naming sampling, got %+v", rr.Error)
		}
	})
}

// TestCheckSample: what a client on a protocol with its capabilities can
// be sent.
func TestCheckSample(t *testing.T) {
	withTools := sampleReq("x")
	withTools.Tools = []Tool{{Name: "weather"}}
	toolResult := SampleRequest{MaxTokens: 9, Messages: []SamplingMessage{{Role: "user", Content: []SamplingContent{
		{Type: "tool_result", ToolUseID: "t1"}, {Type: "text", Text: "and"}}}}}
	all := clientFeatures{sampling: true, samplingTools: true, roots: true}
	for _, tc := range []struct {
		name     string
		protocol string
		f        clientFeatures
		req      SampleRequest
		want     string
	}{
		{"ok", Version20250618, all, sampleReq("x"), ""},
		{"no sampling", Version20251125, clientFeatures{}, sampleReq("x"), "did not declare sampling"},
		{"tools on 2025-06-18", Version20250618, all, withTools, "has no tools in sampling"},
		{"no sampling.tools", Version20251125, clientFeatures{sampling: true}, withTools, "did not declare sampling.tools"},
		{"tools", Version20260728, all, withTools, ""},
		{"no maxTokens", Version20251125, all, SampleRequest{Messages: sampleReq("x").Messages}, "MaxTokens > 0"},
		{"no messages", Version20251125, all, SampleRequest{MaxTokens: 1}, "at least one message"},
		{"bad role", Version20251125, all, SampleRequest{MaxTokens: 1, Messages: []SamplingMessage{{Role: "system", Content: sampleReq("x").Messages[0].Content}}}, "role"},
		{"mixed tool_result", Version20251125, all, toolResult, "mixes tool_result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSample(tc.protocol, tc.f, &tc.req)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if tc.want == "" && len(tc.req.Tools) > 0 && string(tc.req.Tools[0].InputSchema) != `{"type":"object"}` {
				t.Errorf("tool inputSchema %s", tc.req.Tools[0].InputSchema)
			}
		})
	}
	if len(withTools.Tools[0].InputSchema) != 0 {
		t.Error("checkSample changed the caller's tools")
	}
	var mc *MissingCapabilityError
	if err := checkSample(Version20251125, clientFeatures{sampling: true}, &withTools); !errors.As(err, &mc) ||
		string(mc.RPCError().Data) != `{"requiredCapabilities":{"sampling":{"tools":{}}}}` {
		t.Errorf("err %v", err)
	}
}

// TestSamplingWire: the blocks as the spec writes them, both ways.
func TestSamplingWire(t *testing.T) {
	m := SamplingMessage{Role: "assistant", Content: []SamplingContent{
		{Type: "tool_use", ID: "t1", Name: "weather"},
		{Type: "tool_result", ToolUseID: "t1", IsError: true},
	}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"weather","input":{}},{"type":"tool_result","toolUseId":"t1","isError":true,"content":[]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back SamplingMessage
	if err := json.Unmarshal(b, &back); err != nil || len(back.Content) != 2 || back.Content[1].ToolUseID != "t1" {
		t.Fatalf("%v %+v", err, back)
	}
	res, err := decodeSampleResult(json.RawMessage(`{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"n","input":{"city":"Paris"}}],"model":"m","stopReason":"toolUse"}`))
	if err != nil || res.StopReason != "toolUse" || string(res.Content[0].Input) != `{"city":"Paris"}` {
		t.Fatalf("%v %+v", err, res)
	}
	for _, bad := range []string{`{"model":"m","role":"assistant"}`, `{"content":{"type":"text","text":"x"},"role":"assistant"}`, `[]`} {
		if _, err := decodeSampleResult(json.RawMessage(bad)); !errors.Is(err, ErrElicitMalformed) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if f := featuresOf(json.RawMessage(`{"sampling":{"tools":{}},"roots":null}`)); !f.sampling || !f.samplingTools || f.roots {
		t.Errorf("features %+v", f)
	}
}

// TestSampleTimeoutAndCancel: a sampling request nobody answers ends with
// ErrElicitTimeout (the client is told with notifications/cancelled), and
// one whose call the client cancels with the context's error.
func TestSampleTimeoutAndCancel(t *testing.T) {
	f := newFixture(t, Options{ElicitTimeout: 50 * time.Millisecond})
	addSampleTool(f)
	c := f.connect("2025-11-25", allCaps)
	resp, _ := c.callTool("sample", `{}`)
	s := openStream(t, resp)
	defer s.close()
	if ev := s.mustNext(); ev.msg["method"] != "sampling/createMessage" {
		t.Fatalf("want the sampling request, got %s", ev.data)
	}
	if o := f.waitOutcome(); !errors.Is(o.err, ErrElicitTimeout) {
		t.Fatalf("want ErrElicitTimeout, got %v", o.err)
	}
	if ev := s.mustNext(); ev.msg["method"] != "notifications/cancelled" || !strings.Contains(ev.data, "sampling/createMessage timed out") {
		t.Errorf("want notifications/cancelled, got %s", ev.data)
	}

	resp, callID := c.callTool("sample", `{}`)
	s2 := openStream(t, resp)
	defer s2.close()
	s2.mustNext()
	c.expect(c.post(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, callID)), 202)
	if o := f.waitOutcome(); !errors.Is(o.err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", o.err)
	}
}

// addSampleTool adds the tool "sample": one Sample call, whose error goes
// to f's outcomes.
func addSampleTool(f *fixture) {
	f.srv.AddTool(Tool{Name: "sample"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := Sample(ctx, sampleReq("x"))
		f.outcomes <- outcome{err: err}
		return nil, err
	})
}
