package runtime_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestZeroValues gives every exported function and method of the package
// zero or nil inputs: each answers with a clear error or does its
// documented nothing, and none panics.
func TestZeroValues(t *testing.T) {
	var nilCtx context.Context
	for name, ctx := range map[string]context.Context{"nil ctx": nilCtx, "background": context.Background()} {
		t.Run(name, func(t *testing.T) {
			noCall := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, runtime.ErrNoCall) || !strings.Contains(err.Error(), "pass the ctx the handler was given") {
					t.Errorf("%s: %v, want ErrNoCall with its fix", what, err)
				}
			}
			_, err := runtime.Elicit[testform.NameForm](ctx, "m")
			noCall("Elicit", err)
			noCall("CanElicit", runtime.CanElicit[testform.NameForm](ctx))
			_, err = runtime.ElicitSchema(ctx, "m", nil)
			noCall("ElicitSchema", err)
			_, err = runtime.ElicitURL(ctx, "m", "")
			noCall("ElicitURL", err)
			noCall("ContinueAsTask", runtime.ContinueAsTask(ctx))
			if runtime.ClientSupportsElicit(ctx) || runtime.ClientSupportsElicitURL(ctx) {
				t.Error("ClientSupportsElicit* true for a ctx of no call")
			}
			noCall("nil Session.CompleteURLElicitation", (*runtime.Session)(nil).CompleteURLElicitation(ctx, ""))
			noCall("zero Session.CompleteURLElicitation", (&runtime.Session{}).CompleteURLElicitation(ctx, ""))
		})
	}

	for name, s := range map[string]*runtime.Session{"nil": nil, "zero": {}} {
		if s.ID() != "" || s.ProtocolVersion() != "" || s.ClientInfo() != nil || s.ClientCapabilities() != nil || s.Subject() != "" {
			t.Errorf("%s Session: accessors not empty", name)
		}
		select {
		case <-s.Done():
		default:
			t.Errorf("%s Session: Done is not closed", name)
		}
	}

	for name, r := range map[string]*runtime.CallToolRequest{"nil": nil, "zero": {}} {
		if r.IsRetry() || r.Progress(1, 2, "m") != nil || r.Log("info", "", "x") != nil {
			t.Errorf("%s CallToolRequest: not the documented no-op", name)
		}
	}

	t.Run("Server not made by NewServer", func(t *testing.T) {
		for name, s := range map[string]*runtime.Server{"nil": nil, "zero": {}} {
			if n := s.SessionCount(); n != 0 {
				t.Errorf("%s: SessionCount %d", name, n)
			}
			hs := httptest.NewServer(s)
			resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			hs.Close()
			if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "runtime.NewServer") {
				t.Errorf("%s: ServeHTTP %d %s, want 500 saying to call NewServer", name, resp.StatusCode, body)
			}
			var out bytes.Buffer
			if err := s.ServeStdio(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), &out); err == nil || !strings.Contains(err.Error(), "runtime.NewServer") || out.Len() > 0 {
				t.Errorf("%s: ServeStdio %v, wrote %q", name, err, out.String())
			}
			if err := s.ServeStdioProcess(context.Background()); err == nil || !strings.Contains(err.Error(), "runtime.NewServer") {
				t.Errorf("%s: ServeStdioProcess %v", name, err)
			}
			if err := s.Shutdown(context.Background()); err == nil || !strings.Contains(err.Error(), "runtime.NewServer") {
				t.Errorf("%s: Shutdown %v", name, err)
			}
		}
	})

	t.Run("Server with nil inputs", func(t *testing.T) {
		s := runtime.NewServer(runtime.Options{})
		var out bytes.Buffer
		for what, err := range map[string]error{
			"ServeStdio(nil ctx)":         s.ServeStdio(nilCtx, strings.NewReader(""), &out),
			"ServeStdio(nil in, nil out)": s.ServeStdio(context.Background(), nil, nil),
			"ServeStdioProcess(nil ctx)":  s.ServeStdioProcess(nilCtx),
			"Shutdown(nil ctx)":           s.Shutdown(nilCtx),
		} {
			if err == nil || !strings.HasPrefix(err.Error(), "elicit: ") {
				t.Errorf("%s: %v, want an error", what, err)
			}
		}
	})

	t.Run("helpers", func(t *testing.T) {
		if _, err := runtime.DecodeAnswer[testform.NameForm](nil); !errors.Is(err, runtime.ErrElicitMalformed) {
			t.Errorf("DecodeAnswer(nil): %v", err)
		}
		if _, err := runtime.ElicitOutcome(nil); !errors.Is(err, runtime.ErrElicitMalformed) {
			t.Errorf("ElicitOutcome(nil): %v", err)
		}
		if _, err := runtime.FormSchema(nil, ""); !errors.Is(err, runtime.ErrElicitUnsupported) {
			t.Errorf("FormSchema(nil): %v", err)
		}
		if runtime.NewHTTPServer("", nil) == nil || runtime.ErrorResult("") == nil || runtime.TextResult("") == nil {
			t.Error("a constructor returned nil")
		}
		if e := runtime.URLElicitationRequired(""); e.Code != runtime.CodeURLElicitationRequired {
			t.Errorf("URLElicitationRequired: %v", e)
		}
		for _, e := range []error{&runtime.RPCError{}, &runtime.ClientError{}, &runtime.MissingCapabilityError{}, &runtime.SchemaError{}} {
			if !strings.HasPrefix(e.Error(), "elicit") && !strings.HasPrefix(e.Error(), "json-rpc") {
				t.Errorf("%T: %q", e, e.Error())
			}
			_ = errors.Is(e, runtime.ErrElicitFailed)
		}
		if (&runtime.MissingCapabilityError{}).RPCError().Code != runtime.CodeMissingCapability {
			t.Error("MissingCapabilityError.RPCError")
		}
	})
}
