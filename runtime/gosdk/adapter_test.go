package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is a go-sdk server with tools that report what Elicit returned.
type fixture struct {
	*elicittest.Server
	errs chan error // the error of every Elicit the "ask" tools made
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// newAdapter is a go-sdk server named name with the adapter installed.
func newAdapter(t *testing.T, name string) (*mcp.Server, *gosdk.Adapter) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	a := gosdk.New(s, gosdk.Options{})
	return s, a
}

// outcome is a tool's result for what it made of an Elicit: out as text,
// err as an isError result, and runtime.ErrInputRequired returned for the
// adapter to answer input_required.
func outcome(out string, err error) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, err
	case err != nil:
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	return text(out), nil
}

func start(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{errs: make(chan error, 16)}
	s, a := newAdapter(t, "adapter-test")
	ask := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if errors.Is(err, runtime.ErrInputRequired) {
			return nil, err
		}
		f.errs <- err
		if err != nil {
			return text("error: " + err.Error()), nil
		}
		return text("hello " + form.Name), nil
	}
	a.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, ask)
	s.AddTool(&mcp.Tool{Name: "unwrapped", InputSchema: map[string]any{"type": "object"}}, ask)
	// strict returns Elicit's error as the handler's error.
	a.AddTool(&mcp.Tool{Name: "strict", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			return nil, err
		}
		return text("hello " + form.Name), nil
	})
	a.AddTool(&mcp.Tool{Name: "can"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(adaptertest.CanTool(runtime.ClientSupportsElicit(ctx),
			runtime.CanElicit[testform.NameForm](ctx), runtime.CanElicit[testform.FamiliesForm](ctx))), nil
	})
	type none struct{}
	gosdk.AddTool(a, &mcp.Tool{Name: "twice"}, func(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		first, err := runtime.Elicit[testform.NameForm](ctx, "First?", runtime.WithKey("first"))
		if err != nil {
			return nil, nil, err
		}
		second, err := runtime.Elicit[testform.NameForm](ctx, "Second?", runtime.WithKey("second"))
		if err != nil {
			return nil, nil, err
		}
		return text(first.Name + "+" + second.Name), nil, nil
	})
	f.Server = elicittest.NewServer(t, gosdk.NewStreamableHTTPHandler(s, nil))
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

var names = adaptertest.Names

func (f *fixture) lastErr(t *testing.T) error {
	t.Helper()
	return adaptertest.Next(t, f.errs)
}

func TestAccept(t *testing.T) {
	f := start(t)
	f.Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "ask", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantText(t, "hello Ada")
		if err := f.lastErr(t); err != nil {
			t.Fatal(err)
		}
	})
}

// The tool was not registered through the adapter: no question is sent.
func TestUnwrapped(t *testing.T) {
	f := start(t)
	f.Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "unwrapped", nil).WantAsked(t) // a question would fail the Call: it has no answer
		if err := f.lastErr(t); !errors.Is(err, runtime.ErrNoCall) {
			t.Fatalf("got %v, want ErrNoCall", err)
		}
	})
}

// A client that answers the elicitation with a JSON-RPC error gives
// ErrElicitFailed with the client's code.
func TestClientError(t *testing.T) {
	f := start(t)
	c := connect(t, f.URL, "2025-11-25", func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
		return mcpclient.ElicitResult{}, &mcpclient.RPCError{Code: -32001, Message: "no user at the keyboard"}
	})
	if _, err := call(t, c, "ask"); err != nil {
		t.Fatal(err)
	}
	err := f.lastErr(t)
	var ce *runtime.ClientError
	if !errors.Is(err, runtime.ErrElicitFailed) || !errors.As(err, &ce) || ce.Code != -32001 || ce.Message != "no user at the keyboard" {
		t.Fatalf("got %v, want a *runtime.ClientError with the client's code", err)
	}
}

// Content that breaks the form is a *runtime.ContentError naming the field,
// on every protocol version.
func TestBadContent(t *testing.T) {
	f := start(t)
	f.Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "ask", nil, elicittest.AcceptRaw(`{"name":""}`)).WantText(t, `error: elicit: invalid content: "name" must be at least 1 character`)
		err := f.lastErr(t)
		var ce *runtime.ContentError
		if !errors.Is(err, runtime.ErrElicitInvalidContent) || !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Property != "name" {
			t.Fatalf("got %#v", err)
		}
	})
}

// On 2026-07-28 a handler that returns the missing-capability error fails
// the call with -32021 naming the capability; in a session it is a
// plain error.
func TestMissingCapability(t *testing.T) {
	f := start(t)
	res := f.Connect(t, elicittest.Conn{Protocol: "2026-07-28", Elicitation: elicittest.NoElicitation}).Call(t, "strict", nil)
	res.WantRPCError(t, runtime.CodeMissingCapability)
	if rpcErr := (*runtime.RPCError)(nil); !errors.As(res.Err, &rpcErr) || !strings.Contains(string(rpcErr.Data), `"elicitation":{"form":{}}`) {
		t.Fatalf("got %v, want -32021 naming the form capability", res.Err)
	}
	f.Connect(t, elicittest.Conn{Protocol: "2025-11-25", Elicitation: elicittest.NoElicitation}).Call(t, "ask", nil)
	if err := f.lastErr(t); !errors.Is(err, runtime.ErrElicitUnsupported) {
		t.Fatalf("sessionful: %v", err)
	}
}

// Two forms in sequence under explicit keys: two input_required rounds on
// 2026-07-28, each asking the next key; two requests in a session.
func TestTwoKeys(t *testing.T) {
	f := start(t)
	f.Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "twice", nil, elicittest.Accept(testform.NameForm{Name: "Ada"}), elicittest.Accept(testform.NameForm{Name: "Bob"}))
		res.WantText(t, "Ada+Bob")
		res.WantAsked(t, "First?", "Second?")
		if want := map[bool]int{true: 2, false: 0}[c.Protocol() == "2026-07-28"]; res.Rounds != want {
			t.Errorf("%d rounds, want %d", res.Rounds, want)
		}
	})
	c := connect(t, f.URL, "2026-07-28", names("Ada"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, "tools/call", map[string]any{"name": "twice", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var ir struct {
		InputRequests map[string]struct {
			Method string `json:"method"`
			Params struct {
				Mode    string          `json:"mode"`
				Message string          `json:"message"`
				Schema  json.RawMessage `json:"requestedSchema"`
			} `json:"params"`
		} `json:"inputRequests"`
	}
	if err := json.Unmarshal(raw, &ir); err != nil {
		t.Fatal(err)
	}
	first, ok := ir.InputRequests["first"]
	if len(ir.InputRequests) != 1 || !ok || first.Method != "elicitation/create" || first.Params.Mode != "form" || first.Params.Message != "First?" ||
		!strings.Contains(string(first.Params.Schema), `"name":{"type":"string"`) {
		t.Fatalf("first round: %s", raw)
	}
}

// CanElicit[T] and ClientSupportsElicit agree with the runtime's on every
// version, with and without the capability.
func TestCapabilityChecks(t *testing.T) {
	adaptertest.CapabilityChecks(t, start(t).Server)
}

// The caller giving up while the user thinks ends the handler's Elicit with
// the context's error.
func TestCallerGivesUp(t *testing.T) {
	f := start(t)
	adaptertest.CallerGivesUp(t, f.URL, f.errs)
}

// A client that declared only URL-mode elicitation is never sent a form.
func TestURLOnlyCapability(t *testing.T) {
	f := start(t)
	adaptertest.URLOnlyClientGetsNoForm(t, f.URL, f.errs)
}

// On 2026-07-28 answers count only for the questions asked (issue 15).
func TestUnsolicitedAnswersIgnored(t *testing.T) {
	adaptertest.UnsolicitedAnswersIgnored(t, start(t).URL)
}

// TestContinueAsTaskThroughAdapter: tasks are the runtime Server's, so a
// go-sdk tool's ContinueAsTask gets an error saying so, on every protocol.
func TestContinueAsTaskThroughAdapter(t *testing.T) {
	s, a := newAdapter(t, "tasks")
	gosdk.AddTool(a, &mcp.Tool{Name: "later"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if err := runtime.ContinueAsTask(ctx); err != nil {
			return nil, nil, err
		}
		return text("went on"), nil, nil
	})
	elicittest.NewServer(t, gosdk.NewStreamableHTTPHandler(s, nil)).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "later", nil).WantError(t, "tasks run on this package's Server, not through an adapter")
	})
}
