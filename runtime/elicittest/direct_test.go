package elicittest_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

func TestHandleCallsTheHandlerOnEveryProtocol(t *testing.T) {
	web1 := deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}
	res := elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.Accept(web1), elicittest.Accept(deploy.ConfirmForm{Confirm: true}))
	res.WantText(t, "deployed 3 replicas to staging on web1.example.com")
	res.WantAsked(t, "Where should the service go?", "Deploy 3 replicas to staging on web1.example.com?")
	if len(res) != 3 {
		t.Fatalf("%d results, want one per protocol", len(res))
	}
	for i, r := range res {
		if got := r.Asked(); len(got) != 2 || !got[0].Asks(deploy.DeployForm{}) || !got[1].Asks(deploy.ConfirmForm{}) {
			t.Errorf("result %d asked %v", i, got)
		}
		if want := map[bool]int{true: 2}[i == 2]; r.Rounds != want {
			t.Errorf("result %d: %d input_required rounds, want %d", i, r.Rounds, want)
		}
	}
	elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.Decline()).WantError(t, "not deployed: elicit: declined by the user")
	elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.AcceptRaw(`{"host":"web 1","env":"staging","replicas":30}`)).
		WantError(t, `"host" must be a host name; "replicas" must be at most 10`)
}

// TestHandleGivesTheHandlerARealCall: the request is a real call's (its
// session, its name, the arguments as JSON) and the typed arguments reach
// the handler as given, unchecked.
func TestHandleGivesTheHandlerARealCall(t *testing.T) {
	type args struct {
		Greeting string `json:"greeting"`
		Times    int    `json:"times"`
	}
	greet := func(ctx context.Context, req *runtime.CallToolRequest, in args) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			if errors.Is(err, runtime.ErrInputRequired) {
				return nil, err
			}
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(strings.Join([]string{req.Name, req.Session.ProtocolVersion(), string(req.Arguments), strings.Repeat(in.Greeting+" "+f.Name+"!", in.Times)}, " ")), nil
	}
	res := elicittest.Handle(t, greet, args{Greeting: "hi", Times: -1 + 3}, elicittest.Accept(testform.NameForm{Name: "Ada"}))
	for i, v := range elicittest.Protocols() {
		if want := `elicittest_test.TestHandleGivesTheHandlerARealCall.func1 ` + v + ` {"greeting":"hi","times":2} hi Ada!hi Ada!`; res[i].Text != want {
			t.Errorf("%s: %q, want %q", v, res[i].Text, want)
		}
	}

	count := func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		var in struct{ N int }
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		return &runtime.CallToolResult{StructuredContent: in}, nil
	}
	var tools toolSet
	elicittest.HandleTool(t, tools.name, nil).WantText(t, "elicittest_test.toolSet.name")
	res = elicittest.HandleTool(t, count, `{"N":4}`)
	res.WantStructured(t, `{"N":4}`)
	res.WantAsked(t)
	elicittest.HandleTool(t, count, nil).WantStructured(t, map[string]int{"N": 0})
}

// TestHandlerCalledByHand: a handler called without the kit, with
// context.Background() (or nil) and a zero request, gets ErrNoCall with
// the fix in its text from every elicitation function, and nothing
// panics.
func TestHandlerCalledByHand(t *testing.T) {
	var nilCtx context.Context
	for _, ctx := range []context.Context{context.Background(), nilCtx} {
		for _, req := range []*runtime.CallToolRequest{{}, nil} {
			res, err := deploy.Deploy(ctx, req, struct{}{})
			if err != nil || !res.IsError || len(res.Content) != 1 ||
				res.Content[0].Text != "not deployed: "+runtime.ErrNoCall.Error() || !strings.Contains(res.Content[0].Text, "pass the ctx the handler was given") {
				t.Errorf("Deploy by hand: %+v, %v", res, err)
			}
			if req.IsRetry() || req.Progress(1, 2, "half") != nil || req.Log("info", "", "x") != nil || runtime.ClientSupportsElicit(ctx) || runtime.ClientSupportsElicitURL(ctx) {
				t.Error("a request built by hand is not the documented no-op")
			}
			_, errs := runtime.Elicit[testform.NameForm](ctx, "Who?")
			_, errURL := runtime.ElicitURL(ctx, "Sign in", "https://auth.example/start")
			_, errSchema := runtime.ElicitSchema(ctx, "Who?", map[string]any{"type": "object"})
			for _, err := range []error{errs, errURL, errSchema, runtime.CanElicit[testform.NameForm](ctx)} {
				if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "pass the ctx the handler was given") {
					t.Errorf("got %v, want ErrNoCall with its fix", err)
				}
			}
		}
	}
}

func TestHandleFailuresAreReported(t *testing.T) {
	r := &recorder{TB: t}
	if elicittest.Handle[struct{}](r, nil, struct{}{}) != nil || elicittest.HandleTool(r, nil, nil) != nil {
		t.Error("a nil handler gave results")
	}
	var none elicittest.Results
	none.WantText(r, "x")
	r.want(t, `^elicittest: Handle: nil handler: pass the tool's handler function$`, `^elicittest: HandleTool: nil handler`, `^elicittest: a Want method on no Results`)

	boom := func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) { panic("boom") }
	elicittest.HandleTool(r, boom, nil).WantText(r, "x")
	head := `elicittest: "elicittest_test.TestHandleFailuresAreReported.func1" on `
	r.want(t, `^`+head+`2025-06-18 panicked: boom\n.*goroutine`, `^`+head+`2025-11-25 panicked: boom\n`, `^`+head+`2026-07-28 panicked: boom\n`,
		`^`+head+`2025-06-18 over stdio:\n\twant text "x"\n\tgot  error: .*internal error`, `^`+head+`2025-11-25 over stdio:`, `^`+head+`2026-07-28 over stdio:`)

	elicittest.Handle(r, deploy.Deploy, struct{}{}, elicittest.Accept(deploy.ConfirmForm{Confirm: true})).WantError(r, "canceled")
	r.want(t, `"deploy\.Deploy" on 2025-06-18 over stdio: elicitation 1 \(form "Where should the service go\?"\) did not ask for the ConfirmForm`,
		`"deploy\.Deploy" on 2025-11-25 over stdio: elicitation 1 .* did not ask for the ConfirmForm`,
		`"deploy\.Deploy" on 2026-07-28 over stdio: elicitation 1 .* did not ask for the ConfirmForm`)
	elicittest.Handle(r, deploy.Deploy, struct{}{}, elicittest.Decline(), elicittest.Cancel()).WantError(r, "declined")
	r.want(t, `2025-06-18 over stdio: 1 scripted answer\(s\) never asked for: Cancel\(\)`, `2025-11-25 over stdio: 1 scripted`, `2026-07-28 over stdio: 1 scripted`)
	elicittest.Handle(r, func(context.Context, *runtime.CallToolRequest, string) (*runtime.CallToolResult, error) {
		return nil, nil
	}, "x")
	r.want(t, `^elicittest: "elicittest_test.TestHandleFailuresAreReported.func2": arguments "x" are not a JSON object: pass a struct, a map or nil; nothing was called$`)
	elicittest.Handle(r, func(context.Context, *runtime.CallToolRequest, chan int) (*runtime.CallToolResult, error) {
		return nil, nil
	}, nil)
	elicittest.HandleTool(r, boom, `{"a":`)
	r.want(t, `^elicittest: Handle: arguments chan int: json: unsupported type: chan int; nothing was called$`, `arguments: content .* is not JSON`)
}

type toolSet struct{}

// name answers with the name of its tool.
func (*toolSet) name(_ context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	return runtime.TextResult(req.Name), nil
}
