package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// addGreet registers "greet" (AskForm arguments, AskMissing) on f and
// returns the count of its handler's runs.
func addGreet(f *fixture) *atomic.Int32 {
	var runs atomic.Int32
	AddTool(f.srv, Tool{Name: "greet"}, func(_ context.Context, _ *CallToolRequest, in testform.AskForm) (*CallToolResult, error) {
		runs.Add(1)
		return TextResult(fmt.Sprintf("%s x%d", in.Name, in.Count)), nil
	}, AskMissing("How often?"))
	return &runs
}

// onlyCount is the requestedSchema AskMissing sends for AskForm without
// its count, decoded.
var onlyCount = map[string]any{"type": "object", "properties": map[string]any{"count": map[string]any{"type": "integer"}}, "required": []any{"count"}}

// TestAskMissingWireInputRequired: on 2026-07-28 the question is an
// input_required result under the key "missing_arguments", with the
// missing property only, before the handler runs; the retry runs it once
// with the given and the answered arguments.
func TestAskMissingWireInputRequired(t *testing.T) {
	f := newFixture(t, Options{})
	runs := addGreet(f)
	c := f.newClient()
	r := c.inputRequiredCallTool("greet", `{"name":"Ada"}`, inputRequiredCapsElicit, "")
	if str(r.Result["resultType"]) != "input_required" {
		t.Fatalf("first request: %v", r.Result)
	}
	var reqs map[string]struct {
		Method string
		Params struct {
			Message         string
			RequestedSchema map[string]any
		}
	}
	if err := json.Unmarshal(r.Result["inputRequests"], &reqs); err != nil {
		t.Fatal(err)
	}
	ask, ok := reqs["missing_arguments"]
	if len(reqs) != 1 || !ok || ask.Method != "elicitation/create" || ask.Params.Message != "How often?" || !reflect.DeepEqual(ask.Params.RequestedSchema, onlyCount) {
		t.Fatalf("inputRequests %s", r.Result["inputRequests"])
	}
	if runs.Load() != 0 {
		t.Fatal("the handler ran before the question was answered")
	}
	r = c.inputRequiredCallTool("greet", `{"name":"Ada"}`, inputRequiredCapsElicit,
		retryExtra(`{"missing_arguments":{"action":"accept","content":{"count":3}}}`, r.Result["requestState"]))
	if str(r.Result["resultType"]) != "complete" || string(r.Result["isError"]) == "true" || !json.Valid(r.Result["content"]) {
		t.Fatalf("retry: %v", r.Result)
	}
	var content []Content
	if err := json.Unmarshal(r.Result["content"], &content); err != nil || len(content) != 1 || content[0].Text != "Ada x3" {
		t.Fatalf("retry content %s", r.Result["content"])
	}
	if runs.Load() != 1 {
		t.Errorf("the handler ran %d times, want once", runs.Load())
	}
}

// TestAskMissingWireLegacy: in a 2025-06-18 and a 2025-11-25 session the
// question rides the call's SSE stream with the missing property only.
func TestAskMissingWireLegacy(t *testing.T) {
	for _, version := range []string{Version20250618, Version20251125} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, Options{})
			runs := addGreet(f)
			c := f.connect(version, `{"elicitation":{}}`)
			resp, _ := c.callTool("greet", `{"name":"Ada"}`)
			s := openStream(t, resp)
			defer s.close()
			id, params := s.elicitation()
			if !reflect.DeepEqual(params["requestedSchema"], onlyCount) || params["message"] != "How often?" {
				t.Fatalf("params %v", params)
			}
			if runs.Load() != 0 {
				t.Fatal("the handler ran before the question was answered")
			}
			c.expect(c.answer(id, `{"action":"accept","content":{"count":2}}`), 202)
			if text, isErr := s.result(); text != "Ada x2" || isErr {
				t.Fatalf("result %q isError=%v", text, isErr)
			}
		})
	}
}
