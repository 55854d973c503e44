package elicittest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/elicittest/internal/dateform"
)

// TestAcceptEncodesAsTheFormDecodes: Accept of a form with a date, a
// date-time and the other kinds of field writes each as the form's
// decoder reads it, so the handler gets the very value, on every version.
func TestAcceptEncodesAsTheFormDecodes(t *testing.T) {
	want := dateform.LeaveForm{
		Until:  time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC),
		Start:  time.Date(2026, 7, 1, 9, 30, 15, 123456789, time.FixedZone("CEST", 2*3600)),
		Return: time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC),
		Reason: "rest", Days: 5, Ratio: 0.5, Paid: true, Kind: "annual",
	}
	leave := func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		got, err := runtime.Elicit[dateform.LeaveForm](ctx, "When?")
		if err != nil {
			return nil, err
		}
		if !got.Until.Equal(want.Until) || !got.Start.Equal(want.Start) || !got.Return.Equal(want.Return) ||
			got.Reason != want.Reason || got.Days != want.Days || got.Ratio != want.Ratio || got.Paid != want.Paid || got.Kind != want.Kind {
			return runtime.ErrorResult("got %+v, want %+v", got, want), nil
		}
		return runtime.TextResult("same"), nil
	}
	elicittest.Handle(t, leave, struct{}{}, elicittest.Accept(want)).WantText(t, "same")
	elicittest.Handle(t, leave, struct{}{}, elicittest.Accept(&want)).WantText(t, "same")

	// A date in another location is sent as the date it shows there, and
	// decodes as that date at midnight UTC.
	local := want
	local.Until = time.Date(2026, 7, 28, 23, 0, 0, 0, time.FixedZone("X", -5*3600))
	if a := elicittest.Accept(local).String(); !strings.Contains(a, `"until":"2026-07-28"`) || !strings.Contains(a, `"start":"2026-07-01T09:30:15.123456789+02:00"`) {
		t.Errorf("Accept wrote %s", a)
	}
}

// TestReplyError: a client that answers elicitation/create with a
// JSON-RPC error makes the handler's Elicit return ErrElicitFailed on the
// legacy protocols; on 2026-07-28, which has no error answer to an input
// request, the client gives up the call: the Result's Err says so, the
// test does not fail, the handler does not run again.
func TestReplyError(t *testing.T) {
	var runs int
	ask := func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		runs++
		_, err := runtime.Elicit[dateform.LeaveForm](ctx, "When?")
		if errors.Is(err, runtime.ErrElicitFailed) {
			return runtime.ErrorResult("failed: %v", err), nil
		}
		return nil, err
	}
	rs := elicittest.Handle(t, ask, struct{}{}, elicittest.ReplyError(runtime.CodeInternalError, "no screen"))
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	rs[:2].WantError(t, "no screen")
	rs[:2].WantError(t, fmt.Sprint(runtime.CodeInternalError))
	if last := rs[2]; last.Err == nil || !strings.Contains(last.Err.Error(), "gave up the call") || !strings.Contains(last.Err.Error(), "no screen") {
		t.Errorf("2026-07-28: %+v", last)
	}
	if runs != 3 {
		t.Errorf("the handler ran %d times, want once per version", runs)
	}
	if asked := rs[2].Asked(); len(asked) != 1 || asked[0].Message != "When?" {
		t.Errorf("2026-07-28 asked %v", asked)
	}
	// Code 0 is no JSON-RPC error: refused before the call.
	r := &recorder{TB: t}
	elicittest.Handle(r, ask, struct{}{}, elicittest.ReplyError(0, "x"))
	r.want(t, "ReplyError: code 0", "ReplyError: code 0", "ReplyError: code 0")
}

// TestHandleServed: HandleServed calls the one tool of the server serve
// returns (here a runtime one) over HTTP on every version, named after the
// handler; misuse fails the test before anything is called.
func TestHandleServed(t *testing.T) {
	ask := func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[dateform.LeaveForm](ctx, "When?")
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(req.Name + " " + f.Reason), nil
	}
	serve := func(tool string) http.Handler {
		srv := runtime.NewServer(runtime.Options{Name: "served"})
		runtime.AddTool(srv, runtime.Tool{Name: tool}, ask)
		return srv
	}
	answer := elicittest.Accept(dateform.LeaveForm{Until: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Reason: "rest", Days: 1, Kind: "sick"})
	rs := elicittest.HandleServed(t, ask, serve, nil, answer)
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	rs.WantText(t, "elicittest_test.TestHandleServed.func1 rest")

	r := &recorder{TB: t}
	elicittest.HandleServed(r, nil, serve, nil)
	elicittest.HandleServed(r, ask, nil, nil)
	elicittest.HandleServed(r, ask, func(string) http.Handler { return nil }, nil)
	r.want(t, "give it the handler function", "give it the handler function", "returned no http.Handler")
}
