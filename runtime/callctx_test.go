package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestElicitNeedsTheHandlersContext: an Elicit given a context that is not
// the call's fails with ErrNoCall on every protocol, so a handler tested on
// one mechanism does not break on the other.
func TestElicitNeedsTheHandlersContext(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.AddTool(Tool{Name: "bg"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		_, err := Elicit[testform.NameForm](context.Background(), "name?")
		if !errors.Is(err, ErrNoCall) {
			return ErrorResult("want ErrNoCall, got %v", err), nil
		}
		return nil, err
	})
	// A session: an isError result carrying ErrNoCall's advice.
	c := f.connect("2025-11-25", `{"elicitation":{}}`)
	resp, _ := c.callTool("bg", `{}`)
	if text, isErr := resultText(t, c.expect(resp, 200)); !isErr || !strings.Contains(text, "pass the ctx the handler was given") {
		t.Errorf("2025-11-25: %q", text)
	}
	// 2026-07-28: the same, not an input_required.
	r := f.newClient().inputRequiredCallTool("bg", `{}`, inputRequiredCapsElicit, "")
	if str(r.Result["resultType"]) != "complete" || string(r.Result["isError"]) != "true" || !strings.Contains(string(r.Result["content"]), "pass the ctx the handler was given") {
		t.Errorf("2026-07-28: %v", r.Result)
	}
}

// TestCanElicit: nil where the form can be asked, ErrElicitUnsupported
// (with the reason) where it cannot.
func TestCanElicit(t *testing.T) {
	f := newFixture(t, Options{})
	got := make(chan error, 1)
	f.srv.AddTool(Tool{Name: "can"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		got <- CanElicit[testform.NameForm](ctx)
		return TextResult("ok"), nil
	})
	for _, tc := range []struct {
		version, caps string
		want          error
		mentions      string
	}{
		{"2025-06-18", `{"elicitation":{}}`, nil, ""},
		{"2025-11-25", `{"elicitation":{"form":{}}}`, nil, ""},
		{"2025-11-25", `{"elicitation":{"url":{}}}`, ErrElicitUnsupported, "form"},
		{"2025-06-18", `{}`, ErrElicitUnsupported, "form"},
		{"2025-03-26", `{"elicitation":{}}`, ErrElicitUnsupported, "2025-03-26"},
	} {
		c := f.connect(tc.version, tc.caps)
		resp, _ := c.callTool("can", `{}`)
		c.expect(resp, 200)
		err := <-got
		if (tc.want == nil) != (err == nil) || (tc.want != nil && (!errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mentions))) {
			t.Errorf("%s %s: CanElicit = %v, want %v mentioning %q", tc.version, tc.caps, err, tc.want, tc.mentions)
		}
	}
}

// callContext is a context of a call of sess that sends nothing, for tests
// of what an elicitation checks before it asks.
func callContext(sess *Session) context.Context {
	return context.WithValue(context.Background(), callKey{}, &call{session: sess})
}
