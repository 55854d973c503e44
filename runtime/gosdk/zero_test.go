package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestZeroValues gives every exported function and method of the package
// zero or nil inputs: each answers with a clear error or does its
// documented nothing, and none panics.
func TestZeroValues(t *testing.T) {
	var nilCtx context.Context
	for name, ctx := range map[string]context.Context{"nil ctx": nilCtx, "background": context.Background()} {
		_, err := gosdk.Elicit[testform.NameForm](ctx, "m")
		if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "gosdk.AddTool") {
			t.Errorf("%s: Elicit %v, want ErrNoCall naming gosdk.AddTool", name, err)
		}
		if err := gosdk.CanElicit[testform.NameForm](ctx); !errors.Is(err, runtime.ErrNoCall) {
			t.Errorf("%s: CanElicit %v", name, err)
		}
		if gosdk.ClientSupportsElicit(ctx) {
			t.Errorf("%s: ClientSupportsElicit true", name)
		}
	}

	if _, err := gosdk.New(nil, gosdk.Options{}); err == nil || !strings.Contains(err.Error(), "needs a server") {
		t.Errorf("New(nil): %v", err)
	}
	if _, err := gosdk.New(mcp.NewServer(&mcp.Implementation{Name: "x"}, nil), gosdk.Options{RequestStateKeys: [][]byte{nil}}); err == nil {
		t.Error("New with a nil key: no error")
	}

	ok := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for name, a := range map[string]*gosdk.Adapter{"nil": nil, "zero": {}} {
		if a.Server() != nil {
			t.Errorf("%s Adapter: Server() not nil", name)
		}
		a.AddTool(&mcp.Tool{Name: "x"}, ok)
		gosdk.AddTool(a, &mcp.Tool{Name: "y"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, nil
		})
		_, err := a.Handler(ok)(context.Background(), &mcp.CallToolRequest{})
		if err == nil || !strings.Contains(err.Error(), "gosdk.New") {
			t.Errorf("%s Adapter: Handler's handler %v, want an error saying to call gosdk.New", name, err)
		}
	}

	s := mcp.NewServer(&mcp.Implementation{Name: "zero", Version: "1"}, nil)
	a, err := gosdk.New(s, gosdk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a.AddTool(nil, ok)
	gosdk.AddTool[struct{}, any](a, nil, nil)
	a.AddTool(&mcp.Tool{Name: "raw"}, nil) // no InputSchema: it gets {"type":"object"}
	gosdk.AddTool[struct{}, any](a, &mcp.Tool{Name: "typed"}, nil)
	for what, req := range map[string]*mcp.CallToolRequest{"nil": nil, "zero": {}} {
		if _, err := a.Handler(nil)(context.Background(), req); err == nil || !strings.Contains(err.Error(), "nil handler") {
			t.Errorf("Handler(nil) on a %s request: %v", what, err)
		}
	}
	if _, err := a.Handler(ok)(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no request") {
		t.Errorf("a nil request: %v", err)
	}
	if _, err := a.Handler(ok)(nilCtx, &mcp.CallToolRequest{}); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("a nil ctx: %v", err)
	}
	// A zero request reaches the handler, which can ask nothing.
	var got error
	_, _ = a.Handler(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, got = gosdk.Elicit[testform.NameForm](ctx, "m")
		return nil, nil
	})(context.Background(), &mcp.CallToolRequest{})
	if !errors.Is(got, runtime.ErrElicitUnsupported) {
		t.Errorf("Elicit on a zero request: %v, want ErrElicitUnsupported", got)
	}

	// The tools registered with a nil handler fail their calls, saying so.
	live := httptest.NewServer(gosdk.NewStreamableHTTPHandler(s, nil))
	t.Cleanup(func() {
		live.CloseClientConnections()
		live.Close()
	})
	c := adaptertest.Connect(t, live.URL, runtime.Version20251125, nil)
	for _, tool := range []string{"raw", "typed"} {
		res, err := adaptertest.Call(t, c, tool)
		if text := fmt.Sprint(err); err == nil {
			text = strings.Join(res.Lines(), "")
			if !res.IsError {
				t.Errorf("%s: not an error: %q", tool, text)
			}
		} else if !strings.Contains(text, "nil handler") {
			t.Errorf("%s: %v", tool, err)
		}
	}

	hs := httptest.NewServer(gosdk.NewStreamableHTTPHandler(nil, nil))
	defer hs.Close()
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "nil server") {
		t.Errorf("NewStreamableHTTPHandler(nil): %d %s", resp.StatusCode, body)
	}
}
