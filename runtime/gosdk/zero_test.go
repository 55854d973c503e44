package gosdk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestZeroValues gives every exported function and method of the package
// zero or nil inputs: each answers with a clear error or does its
// documented nothing, and none panics (registration mistakes do, on
// purpose: TestRegistrationPanics).
func TestZeroValues(t *testing.T) {
	var nilCtx context.Context
	for name, ctx := range map[string]context.Context{"nil ctx": nilCtx, "background": context.Background()} {
		_, err := runtime.Elicit[testform.NameForm](ctx, "m")
		if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "gosdk.AddTool") {
			t.Errorf("%s: Elicit %v, want ErrNoCall naming gosdk.AddTool", name, err)
		}
		if err := runtime.CanElicit[testform.NameForm](ctx); !errors.Is(err, runtime.ErrNoCall) {
			t.Errorf("%s: CanElicit %v", name, err)
		}
		if runtime.ClientSupportsElicit(ctx) {
			t.Errorf("%s: ClientSupportsElicit true", name)
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
