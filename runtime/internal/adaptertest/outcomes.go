package adaptertest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// OutcomeTimeout is the elicitation timeout of the servers Outcomes tests.
const OutcomeTimeout = 300 * time.Millisecond

// OutcomeTool is the body of the tool "outcome" every server of Outcomes
// serves: it asks testform.NameForm with runtime.Elicit and answers the
// verdict (Verdict) as text, or returns runtime.ErrInputRequired.
func OutcomeTool(ctx context.Context) (string, error) {
	f, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
	if errors.Is(err, runtime.ErrInputRequired) {
		return "", err
	}
	if err == nil {
		return "accepted " + f.Name, nil
	}
	return Verdict(err), nil
}

// StrictTool is the body of the tool "strict": runtime.Elicit's error is
// the handler's error.
func StrictTool(ctx context.Context) (string, error) {
	f, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
	return "accepted " + f.Name, err
}

// URLTool is the body of the tool "url": it asks with runtime.ElicitURL
// and answers "opened" or the verdict, or returns runtime.ErrInputRequired.
func URLTool(ctx context.Context) (string, error) {
	_, err := runtime.ElicitURL(ctx, "Sign in", "https://example.com/sign-in")
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return "", err
	case err == nil:
		return "opened", nil
	}
	return Verdict(err), nil
}

// Verdict names the outcome err is, the same on every server.
func Verdict(err error) string {
	var ce *runtime.ClientError
	var mc *runtime.MissingCapabilityError
	switch {
	case errors.Is(err, runtime.ErrElicitDeclined):
		return "declined"
	case errors.Is(err, runtime.ErrElicitCanceled):
		return "canceled"
	case errors.Is(err, runtime.ErrElicitMalformed):
		return "malformed"
	case errors.Is(err, runtime.ErrElicitInvalidContent):
		return "invalid"
	case errors.As(err, &ce) && errors.Is(err, runtime.ErrElicitFailed):
		return "failed: " + ce.Message
	case errors.Is(err, runtime.ErrElicitTimeout) && errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &mc):
		return "missing capability " + mc.Mode
	case errors.Is(err, runtime.ErrElicitUnsupported):
		return "unsupported"
	case errors.Is(err, runtime.ErrNoCall):
		return "nocall"
	}
	return "other: " + err.Error()
}

// Outcomes checks that runtime.Elicit has the same outcomes on srv as on
// every other server: srv serves the tools "outcome" (OutcomeTool),
// "strict" (StrictTool) and "url" (URLTool) with an elicitation timeout of OutcomeTimeout.
// missingCapability is the JSON-RPC code a 2026-07-28 call of "strict"
// from a client without the capability gets: -32021 where the library
// lets a tool fail with it.
func Outcomes(t *testing.T, srv *elicittest.Server, missingCapability int) {
	t.Helper()
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			c := srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.FormOnly})
			c.Call(t, "outcome", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantText(t, "accepted Ada")
			c.Call(t, "outcome", nil, elicittest.Decline()).WantText(t, "declined")
			c.Call(t, "outcome", nil, elicittest.Cancel()).WantText(t, "canceled")
			c.Call(t, "outcome", nil, elicittest.Reply("maybe", nil)).WantText(t, "malformed")
			c.Call(t, "outcome", nil, elicittest.AcceptRaw(`{"name":7}`)).WantText(t, "invalid")
			if v == runtime.Version20250618 {
				c.Call(t, "url", nil).WantText(t, "unsupported")
			} else {
				c.Call(t, "url", nil).WantText(t, "missing capability url")
				srv.Connect(t, elicittest.Conn{Protocol: v}).Call(t, "url", nil, elicittest.AcceptURL()).WantText(t, "opened")
			}
			none := srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.NoElicitation})
			none.Call(t, "outcome", nil).WantText(t, "missing capability form")
			if v == runtime.Version20260728 {
				none.Call(t, "strict", nil).WantRPCError(t, missingCapability)
				return
			}
			// In a session: the client answers with a JSON-RPC error, or
			// nobody answers in time.
			failing := Connect(t, srv.URL, v, func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				return mcpclient.ElicitResult{}, errors.New("no human here")
			})
			wantText(t, failing, "outcome", "failed: ", "no human here")
			silent := Connect(t, srv.URL, v, func(ctx context.Context, _ mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				select {
				case <-ctx.Done():
				case <-time.After(10 * OutcomeTimeout):
				}
				return mcpclient.ElicitResult{Action: "cancel"}, nil
			})
			wantText(t, silent, "outcome", "timeout")
		})
	}
}

// wantText calls tool and checks that its text has each of want.
func wantText(t *testing.T, c *mcpclient.Client, tool string, want ...string) {
	t.Helper()
	res, err := Call(t, c, tool)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	got := strings.Join(res.Lines(), "")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q, want %q", tool, got, w)
		}
	}
}
