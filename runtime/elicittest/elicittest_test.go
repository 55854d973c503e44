package elicittest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"go.uber.org/goleak"
)

// TestMain fails the package when any test leaves a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newServer is a runtime server with one tool per kind of elicitation.
func newServer() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "kit", Version: "1"})
	answer := func(err error) (*runtime.CallToolResult, error) {
		if errors.Is(err, runtime.ErrInputRequired) {
			return nil, err
		}
		return runtime.ErrorResult("%v", err), nil
	}
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			return answer(err)
		}
		return runtime.TextResult("hello " + f.Name), nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "login"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		if _, err := runtime.ElicitURL(ctx, "Sign in", "https://auth.example/start"); err != nil {
			return answer(err)
		}
		return runtime.TextResult("signed in"), nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "needs-login"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return nil, runtime.URLElicitationRequired("sign in first", runtime.URLElicitation{ElicitationID: "e1", URL: "https://auth.example/e1", Message: "Sign in"})
	})
	runtime.AddTool(srv, runtime.Tool{Name: "count"}, func(ctx context.Context, req *runtime.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*runtime.CallToolResult, error) {
		return &runtime.CallToolResult{Content: []runtime.Content{{Type: "text", Text: fmt.Sprint(in.N)}}, StructuredContent: map[string]int{"n": in.N}}, nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "hang"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	})
	return srv
}

func TestEachRunsEveryProtocolAndTransport(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	elicittest.NewServer(t, newServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		mu.Lock()
		ran = append(ran, c.Protocol()+"/"+c.Transport())
		mu.Unlock()
		if want := "TestEachRunsEveryProtocolAndTransport/" + c.Protocol() + "/" + c.Transport(); t.Name() != want {
			t.Errorf("subtest %q, want %q", t.Name(), want)
		}
		c.Call(t, "greet", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantText(t, "hello Ada")
	})
	want := "2025-06-18/http 2025-06-18/stdio 2025-11-25/http 2025-11-25/stdio 2026-07-28/http 2026-07-28/stdio"
	if got := strings.Join(ran, " "); got != want {
		t.Errorf("ran %s, want %s", got, want)
	}
}

func TestOutcomes(t *testing.T) {
	elicittest.NewServer(t, newServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "greet", nil, elicittest.Decline()).WantError(t, "elicit: declined by the user")
		c.Call(t, "greet", nil, elicittest.Cancel()).WantError(t, "elicit: canceled by the user")
		c.Call(t, "greet", nil, elicittest.Reply("maybe", nil)).WantError(t, "elicit: malformed answer")
		c.Call(t, "greet", nil, elicittest.AcceptRaw(`[]`)).WantError(t, "elicit: malformed answer")
		c.Call(t, "greet", nil, elicittest.AcceptRaw(map[string]any{"name": ""})).WantError(t, `"name" must be at least 1 character`)
		c.Call(t, "greet", nil, elicittest.AcceptRaw(`{"name":7,"age":1}`)).
			WantError(t, `elicit: invalid content: "age" is not a property of the form; "name" must be a string`)
		res := c.Call(t, "count", map[string]int{"n": 2})
		res.WantText(t, "2")
		res.WantStructured(t, `{"n":2}`)
		res.WantAsked(t)
	})
}

// TestRespondSeesTheSchemaOfEachVersion: the callback sees each question
// as this client's version received it: a titled enum is enum+enumNames on
// 2025-06-18 and oneOf from 2025-11-25 on.
func TestRespondSeesTheSchemaOfEachVersion(t *testing.T) {
	elicittest.NewServer(t, deploy.NewServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "deploy", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
			legacy := c.Protocol() == runtime.Version20250618
			if e.Asks(deploy.ConfirmForm{}) == e.Asks(&deploy.DeployForm{}) {
				t.Errorf("%q asks for both forms or neither", e.Message)
			}
			if e.Asks(deploy.ConfirmForm{}) {
				return elicittest.Accept(deploy.ConfirmForm{Confirm: false})
			}
			if strings.Contains(string(e.Schema), `"enumNames"`) != legacy || strings.Contains(string(e.Schema), `"oneOf"`) == legacy {
				t.Errorf("%s: %s %q %s", c.Protocol(), e.Mode, e.Message, e.Schema)
			}
			return elicittest.Accept(deploy.DeployForm{Host: "db1", Env: deploy.Production, Replicas: 1})
		}))
		res.WantError(t, "not deployed: the user did not confirm")
		if got := res.Asked(); len(got) != 2 || got[1].Message != "Deploy 1 replicas to production on db1?" {
			t.Errorf("asked %v", got)
		}
	})
}

func TestURLMode(t *testing.T) {
	srv := elicittest.NewServer(t, newServer())
	for _, v := range []string{runtime.Version20251125, runtime.Version20260728} {
		for _, transport := range srv.Transports() {
			c := srv.Connect(t, elicittest.Conn{Protocol: v, Transport: transport})
			res := c.Call(t, "login", nil, elicittest.AcceptURL())
			res.WantText(t, "signed in")
			if e := res.Asked(); len(e) != 1 || e[0].Mode != "url" || e[0].URL != "https://auth.example/start" || (v == runtime.Version20251125) == (e[0].ElicitationID == "") {
				t.Errorf("%s: asked %+v", v, e)
			}
			c.Call(t, "login", nil, elicittest.Decline()).WantError(t, "declined")
			formOnly := srv.Connect(t, elicittest.Conn{Protocol: v, Transport: transport, Elicitation: elicittest.FormOnly})
			formOnly.Call(t, "login", nil).WantError(t, "did not declare url elicitation")
			if v == runtime.Version20251125 {
				c.Call(t, "needs-login", nil).WantRPCError(t, runtime.CodeURLElicitationRequired)
			} else {
				formOnly.Call(t, "needs-login", nil).WantRPCError(t, runtime.CodeMissingCapability)
			}
		}
	}
}

func TestNoElicitation(t *testing.T) {
	srv := elicittest.NewServer(t, deploy.NewServer())
	for _, v := range elicittest.Protocols() {
		c := srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.NoElicitation})
		c.Call(t, "deploy", nil).WantError(t, "not deployed: elicit: not supported by this client")
	}
}

// TestCallsOfOneClientFromSeveralGoroutines: a Client's Calls take turns,
// each answered from its own script.
func TestCallsOfOneClientFromSeveralGoroutines(t *testing.T) {
	srv := elicittest.NewServer(t, newServer())
	for _, conn := range []elicittest.Conn{{Protocol: runtime.Version20251125, Transport: elicittest.Stdio}, {Protocol: runtime.Version20260728}} {
		c := srv.Connect(t, conn)
		var wg sync.WaitGroup
		for _, name := range []string{"Ada", "Grace", "Edsger", "Barbara"} {
			wg.Go(func() {
				c.Call(t, "greet", nil, elicittest.Accept(testform.NameForm{Name: name})).WantText(t, "hello "+name)
			})
		}
		wg.Wait()
	}
}
