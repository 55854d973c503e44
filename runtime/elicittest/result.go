package elicittest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// Result is what a [Client.Call] ended with: the tool's result, or the
// error the call got instead, and the elicitations on the way. Its Want
// methods fail the test with the whole story: the call, what it got, and
// every question asked with its answer.
type Result struct {
	// Text is the result's text content items, joined with "\n".
	Text string
	// IsError is the result's isError.
	IsError bool
	// StructuredContent is the result's structuredContent, verbatim.
	StructuredContent json.RawMessage
	// Raw is the whole result as received.
	Raw json.RawMessage
	// Rounds counts the input_required rounds before the result
	// (2026-07-28; 0 on the legacy protocols), of the task when the call
	// ran as one.
	Rounds int
	// TaskID and TaskStatus are the id of the task the call ran as
	// ([Conn] Tasks) and how it ended: completed (a result, isError
	// too), failed (Err is its JSON-RPC error) or cancelled (Err says
	// so). Both are empty when the call did not run as a task.
	TaskID     string
	TaskStatus runtime.TaskStatus
	// Err is set when the call got no result: a *runtime.RPCError for a
	// JSON-RPC error response, another error when the call failed (the
	// test has failed then too).
	Err error

	asked                     []Elicitation
	tool, protocol, transport string
}

func (r *Result) fill(res *mcpclient.CallToolResult) {
	var texts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	r.Text = strings.Join(texts, "\n")
	r.IsError = res.IsError
	r.StructuredContent = res.StructuredContent
	r.Raw = res.Raw
	r.Rounds = res.Rounds
}

// Asked returns the elicitations of the call (and its sampling and roots
// requests), in the order they were asked.
func (r *Result) Asked() []Elicitation {
	if r == nil {
		return nil
	}
	return slices.Clone(r.asked)
}

// WantText fails the test unless the call's result is a success (not
// isError) whose text is want.
func (r *Result) WantText(t testing.TB, want string) {
	t.Helper()
	if r.isNil(t) {
		return
	}
	if r.Err != nil || r.IsError || r.Text != want {
		r.fail(t, fmt.Sprintf("want text %q", want))
	}
}

// WantError fails the test unless the call's result is an isError result
// whose text contains substr.
func (r *Result) WantError(t testing.TB, substr string) {
	t.Helper()
	if r.isNil(t) {
		return
	}
	if r.Err != nil || !r.IsError || !strings.Contains(r.Text, substr) {
		r.fail(t, fmt.Sprintf("want an isError result containing %q", substr))
	}
}

// WantRPCError fails the test unless the call got a JSON-RPC error
// response with code (runtime.CodeURLElicitationRequired, say).
func (r *Result) WantRPCError(t testing.TB, code int) {
	t.Helper()
	if r.isNil(t) {
		return
	}
	var rpcErr *runtime.RPCError
	if !errors.As(r.Err, &rpcErr) || rpcErr.Code != code {
		r.fail(t, fmt.Sprintf("want JSON-RPC error %d", code))
	}
}

// WantStructured fails the test unless the result's structuredContent is
// the JSON value want marshals to (a struct, a map, or JSON text).
func (r *Result) WantStructured(t testing.TB, want any) {
	t.Helper()
	if r.isNil(t) {
		return
	}
	raw, err := rawJSON(want)
	if err != nil {
		t.Errorf("%s: WantStructured: %v", r.head(), err)
		return
	}
	if r.Err != nil || len(r.StructuredContent) == 0 || !jsonEqual(raw, r.StructuredContent) {
		r.fail(t, fmt.Sprintf("want structured content %s", raw))
	}
}

// WantAsked fails the test unless the call asked exactly these messages,
// in this order (none: it asked nothing); a sampling/createMessage or
// roots/list request counts as its method.
func (r *Result) WantAsked(t testing.TB, messages ...string) {
	t.Helper()
	if r.isNil(t) {
		return
	}
	got := make([]string, len(r.asked))
	for i, e := range r.asked {
		got[i] = e.Message
		if !e.isElicitation() {
			got[i] = e.Method
		}
	}
	if !slices.Equal(got, messages) {
		r.fail(t, fmt.Sprintf("want the questions %q", messages))
	}
}

// isNil fails the test for a nil Result, which no Call returns.
func (r *Result) isNil(t testing.TB) bool {
	t.Helper()
	if r == nil {
		t.Errorf("elicittest: a Want method on a nil *Result: use the one Client.Call returns")
	}
	return r == nil
}

// fail reports what was wanted against what the call got.
func (r *Result) fail(t testing.TB, want string) {
	t.Helper()
	t.Errorf("%s:\n\t%s\n\tgot  %s%s", r.head(), want, r.got(), r.askedLines())
}

// head names the call in messages.
func (r *Result) head() string {
	return fmt.Sprintf("elicittest: %q on %s over %s", r.tool, r.protocol, r.transport)
}

// got renders the outcome of the call.
func (r *Result) got() string {
	switch {
	case r.Err != nil:
		return "error: " + r.Err.Error()
	case r.IsError:
		return fmt.Sprintf("isError result %q", r.Text)
	}
	s := fmt.Sprintf("result %q", r.Text)
	if len(r.StructuredContent) > 0 {
		s += fmt.Sprintf(" structured %s", r.StructuredContent)
	}
	return s
}

// askedLines renders the elicitations, one a line, for a message.
func (r *Result) askedLines() string {
	if len(r.asked) == 0 {
		return "\n\tasked nothing"
	}
	var b strings.Builder
	b.WriteString("\n\tasked:")
	for i, e := range r.asked {
		fmt.Fprintf(&b, "\n\t  %d. %v", i+1, e)
	}
	return b.String()
}
