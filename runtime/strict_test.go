package runtime

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
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
