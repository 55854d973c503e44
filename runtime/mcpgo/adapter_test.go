package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is an mcp-go server with tools that report what Elicit returned.
type fixture struct {
	*elicittest.Server
	bare *elicittest.Server // a server without the adapter, serving "unwrapped"
	errs chan error         // the error of every Elicit the "ask" tool made
}

// newAdapted is an mcp-go server named name with the adapter installed.
func newAdapted(t *testing.T, name string) (*server.MCPServer, *mcpgo.Adapter) {
	t.Helper()
	s := server.NewMCPServer(name, "1")
	return s, mcpgo.New(s, mcpgo.Options{})
}

// outcome is a tool's result for what it made of an Elicit: out as text,
// err as an isError result, and runtime.ErrInputRequired returned for the
// adapter to answer input_required.
func outcome(out string, err error) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, err
	case err != nil:
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(out), nil
}

func start(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{errs: make(chan error, 16)}
	s, _ := newAdapted(t, "adapter-test")
	ask := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if errors.Is(err, runtime.ErrInputRequired) {
			return nil, err
		}
		f.errs <- err
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText("hello " + form.Name), nil
	}
	s.AddTool(mcp.NewTool("ask"), ask)
	s.AddTool(mcp.NewTool("can"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(adaptertest.CanTool(runtime.ClientSupportsElicit(ctx),
			runtime.CanElicit[testform.NameForm](ctx), runtime.CanElicit[testform.FamiliesForm](ctx))), nil
	})
	s.AddTool(mcp.NewTool("twice"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		first, err := runtime.Elicit[testform.NameForm](ctx, "First?", runtime.WithKey("first"))
		if err != nil {
			return nil, err
		}
		second, err := runtime.Elicit[testform.NameForm](ctx, "Second?", runtime.WithKey("second"))
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(first.Name + "+" + second.Name), nil
	})
	bare := server.NewMCPServer("bare", "1")
	bare.AddTool(mcp.NewTool("unwrapped"), ask)

	f.Server, f.bare = elicittest.NewServer(t, server.NewStreamableHTTPServer(s)), elicittest.NewServer(t, server.NewStreamableHTTPServer(bare))
	return f
}

func connect(t *testing.T, url, version string, onElicit mcpclient.ElicitHandler) *mcpclient.Client {
	t.Helper()
	return adaptertest.Connect(t, url, version, onElicit)
}

func call(t *testing.T, c *mcpclient.Client, tool string) (*mcpclient.CallToolResult, error) {
	t.Helper()
	return adaptertest.Call(t, c, tool)
}

func (f *fixture) lastErr(t *testing.T) error {
	t.Helper()
	return adaptertest.Next(t, f.errs)
}

var versions = adaptertest.Versions

func TestAccept(t *testing.T) {
	f := start(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			var mode string
			c := connect(t, f.URL, v, func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				mode = p.Mode
				return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}, nil
			})
			res, err := call(t, c, "ask")
			if err != nil || strings.Join(res.Lines(), "") != "hello Ada" {
				t.Fatalf("got %v, %v", res, err)
			}
			if err := f.lastErr(t); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "", false: "form"}[v == "2025-06-18"]; mode != want {
				t.Errorf("mode %q, want %q", mode, want)
			}
		})
	}
}

func TestUnwrapped(t *testing.T) {
	f := start(t)
	f.bare.Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "unwrapped", nil).WantAsked(t) // a question would fail the Call: it has no answer
		if err := f.lastErr(t); !errors.Is(err, runtime.ErrNoCall) {
			t.Fatalf("got %v, want ErrNoCall", err)
		}
	})
}

func TestBadContent(t *testing.T) {
	f := start(t)
	f.Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "ask", nil, elicittest.AcceptRaw(`{"name":3}`)).WantError(t, `elicit: invalid content: "name" must be a string`)
		err := f.lastErr(t)
		var ce *runtime.ContentError
		if !errors.Is(err, runtime.ErrElicitInvalidContent) || !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Property != "name" {
			t.Fatalf("got %#v", err)
		}
	})
}

func TestTwoKeys(t *testing.T) {
	start(t).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "twice", nil, elicittest.Accept(testform.NameForm{Name: "Ada"}), elicittest.Accept(testform.NameForm{Name: "Bob"}))
		res.WantText(t, "Ada+Bob")
		res.WantAsked(t, "First?", "Second?")
		if want := map[bool]int{true: 2, false: 0}[c.Protocol() == "2026-07-28"]; res.Rounds != want {
			t.Errorf("%d rounds, want %d", res.Rounds, want)
		}
	})
}

// CanElicit[T] and ClientSupportsElicit agree with the runtime's on every
// version, with and without the capability.
func TestCapabilityChecks(t *testing.T) {
	adaptertest.CapabilityChecks(t, start(t).Server)
}

func TestCallerGivesUp(t *testing.T) {
	f := start(t)
	adaptertest.CallerGivesUp(t, f.URL, f.errs)
}

// A client that declared only URL-mode elicitation is never sent a form.
func TestURLOnlyCapability(t *testing.T) {
	f := start(t)
	adaptertest.URLOnlyClientGetsNoForm(t, f.URL, f.errs)
}

// A tool registered with mcp-go's own AddTool on a server with the
// adapter may call runtime.Elicit too: New's middleware serves every tool.
func TestPlainAddTool(t *testing.T) {
	s := server.NewMCPServer("plain", "1")
	mcpgo.New(s, mcpgo.Options{})
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("hello " + form.Name), nil
	})
	elicittest.NewServer(t, server.NewStreamableHTTPServer(s)).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "ask", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantText(t, "hello Ada")
	})
}

// On 2026-07-28 answers count only for the questions asked (issue 15).
func TestUnsolicitedAnswersIgnored(t *testing.T) {
	adaptertest.UnsolicitedAnswersIgnored(t, start(t).URL)
}
