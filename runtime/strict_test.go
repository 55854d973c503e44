package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

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
		content, err := req.Session.Elicit(ctx, "Add peer "+p+"?", userSchema)
		f.outcomes <- outcome{content, err}
		if err != nil {
			return nil, err
		}
		return TextResult("added " + p + " for " + content["username"].(string)), nil
	})
	c := f.newClient()
	r := c.modernCallTool("add-peer", `{}`, modernCapsElicit, "")
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) || !strings.Contains(string(r.Result["inputRequests"]), "Add peer 192.0.2.1?") {
		t.Fatalf("first run: %v, %v", o.err, r.Result)
	}
	answer := `{"elicit":{"action":"accept","content":{"username":"ada"}}}`

	peer.Store("198.51.100.7") // the question changes before the answer comes back
	r = c.modernCallTool("add-peer", `{}`, modernCapsElicit, retryExtra(answer, r.Result["requestState"]))
	if o := f.waitOutcome(); !errors.Is(o.err, ErrInputRequired) {
		t.Fatalf("an answer to %q counted for %q: %v, %v", "Add peer 192.0.2.1?", "Add peer 198.51.100.7?", o.content, r.Result)
	}
	if str(r.Result["resultType"]) != "input_required" || !strings.Contains(string(r.Result["inputRequests"]), "Add peer 198.51.100.7?") {
		t.Fatalf("second run: %v", r.Result)
	}

	// Answering the question asked completes the call.
	r = c.modernCallTool("add-peer", `{}`, modernCapsElicit, retryExtra(answer, r.Result["requestState"]))
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
		form, err := Elicit[testform.FamiliesForm](ctx, req.Session, "Families?")
		return report(form, err)
	})
	f.srv.AddTool(Tool{Name: "hand-built"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		content, err := req.Session.Elicit(ctx, "Families?", map[string]any{"type": "object", "properties": map[string]any{
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
