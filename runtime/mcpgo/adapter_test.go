package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
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
	url     string
	bareURL string     // a server without the adapter, serving "unwrapped"
	errs    chan error // the error of every Elicit the "ask" tool made
}

func start(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{errs: make(chan error, 16)}
	s := server.NewMCPServer("adapter-test", "1")
	if _, err := mcpgo.New(s, mcpgo.Options{}); err != nil {
		t.Fatal(err)
	}
	ask := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := mcpgo.Elicit[testform.NameForm](ctx, "Who?")
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
		return mcp.NewToolResultText(adaptertest.CanTool(mcpgo.ClientSupportsElicit(ctx),
			mcpgo.CanElicit[testform.NameForm](ctx), mcpgo.CanElicit[testform.FamiliesForm](ctx))), nil
	})
	s.AddTool(mcp.NewTool("twice"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		first, err := mcpgo.Elicit[testform.NameForm](ctx, "First?", runtime.WithKey("first"))
		if err != nil {
			return nil, err
		}
		second, err := mcpgo.Elicit[testform.NameForm](ctx, "Second?", runtime.WithKey("second"))
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(first.Name + "+" + second.Name), nil
	})
	bare := server.NewMCPServer("bare", "1")
	bare.AddTool(mcp.NewTool("unwrapped"), ask)

	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	hsBare := httptest.NewServer(server.NewStreamableHTTPServer(bare))
	t.Cleanup(func() {
		for _, h := range []*httptest.Server{hs, hsBare} {
			h.CloseClientConnections()
			h.Close()
		}
	})
	f.url, f.bareURL = hs.URL, hsBare.URL
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

var versions = adaptertest.Versions

func TestAccept(t *testing.T) {
	f := start(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			var mode string
			c := connect(t, f.url, v, func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
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
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, f.bareURL, v, func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				t.Error("asked without the adapter")
				return mcpclient.ElicitResult{Action: "cancel"}, nil
			})
			if _, err := call(t, c, "unwrapped"); err != nil {
				t.Fatal(err)
			}
			if err := f.lastErr(t); !errors.Is(err, runtime.ErrNoCall) {
				t.Fatalf("got %v, want ErrNoCall", err)
			}
		})
	}
}

func TestBadContent(t *testing.T) {
	f := start(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, f.url, v, func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":3}`)}, nil
			})
			if _, err := call(t, c, "ask"); err != nil {
				t.Fatal(err)
			}
			err := f.lastErr(t)
			var ce *runtime.ContentError
			if !errors.Is(err, runtime.ErrElicitInvalidContent) || !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Property != "name" {
				t.Fatalf("got %#v", err)
			}
		})
	}
}

func TestOutcomes(t *testing.T) {
	f := start(t)
	for _, v := range versions {
		for action, want := range map[string]error{"decline": runtime.ErrElicitDeclined, "cancel": runtime.ErrElicitCanceled, "later": runtime.ErrElicitMalformed} {
			t.Run(v+"/"+action, func(t *testing.T) {
				c := connect(t, f.url, v, func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
					return mcpclient.ElicitResult{Action: action}, nil
				})
				if _, err := call(t, c, "ask"); err != nil {
					t.Fatal(err)
				}
				if err := f.lastErr(t); !errors.Is(err, want) {
					t.Fatalf("got %v, want %v", err, want)
				}
			})
		}
		t.Run(v+"/no capability", func(t *testing.T) {
			c := connect(t, f.url, v, nil)
			if _, err := call(t, c, "ask"); err != nil {
				t.Fatal(err)
			}
			if err := f.lastErr(t); !errors.Is(err, runtime.ErrElicitUnsupported) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestTwoKeys(t *testing.T) {
	f := start(t)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, f.url, v, names("Ada", "Bob"))
			res, err := call(t, c, "twice")
			if err != nil || strings.Join(res.Lines(), "") != "Ada+Bob" {
				t.Fatalf("got %v, %v", res, err)
			}
			if want := map[bool]int{true: 2, false: 0}[v == "2026-07-28"]; res.Rounds != want {
				t.Errorf("%d rounds, want %d", res.Rounds, want)
			}
		})
	}
}

// CanElicit[T] and ClientSupportsElicit agree with the runtime's on every
// version, with and without the capability.
func TestCapabilityChecks(t *testing.T) {
	adaptertest.CapabilityChecks(t, start(t).url)
}

func TestCallerGivesUp(t *testing.T) {
	f := start(t)
	adaptertest.CallerGivesUp(t, f.url, f.errs)
}

// A client that declared only URL-mode elicitation is never sent a form.
func TestURLOnlyCapability(t *testing.T) {
	f := start(t)
	adaptertest.URLOnlyClientGetsNoForm(t, f.url, f.errs)
}

// An adapter made with NewMiddleware and installed as a server option works
// like one New installed.
func TestNewMiddleware(t *testing.T) {
	a, err := mcpgo.NewMiddleware(mcpgo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("option", "1", server.WithToolHandlerMiddleware(a.Middleware))
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		form, err := mcpgo.Elicit[testform.NameForm](ctx, "Who?")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("hello " + form.Name), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer func() {
		hs.CloseClientConnections()
		hs.Close()
	}()
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, hs.URL, v, names("Ada"))
			res, err := call(t, c, "ask")
			if err != nil || strings.Join(res.Lines(), "") != "hello Ada" {
				t.Fatalf("got %v, %v", res, err)
			}
		})
	}
	if _, err := mcpgo.NewMiddleware(mcpgo.Options{RequestStateKeys: [][]byte{[]byte("short")}}); err == nil {
		t.Error("a 5-byte key was accepted")
	}
}

// On 2026-07-28 answers count only for the questions asked (issue 15).
func TestUnsolicitedAnswersIgnored(t *testing.T) {
	adaptertest.UnsolicitedAnswersIgnored(t, start(t).url)
}
