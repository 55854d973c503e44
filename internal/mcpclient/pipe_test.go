package mcpclient_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// servePipe runs srv.ServeStdio on pipes, the way runtime/elicittest does,
// and returns the Pipe and a channel that gets ServeStdio's error.
func servePipe(srv *runtime.Server) (*mcpclient.Pipe, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	return &mcpclient.Pipe{In: inW, Out: outR}, done
}

// TestPipe: a Pipe speaks stdio to a server in this process, in both eras,
// elicitation included, and Close ends the server.
func TestPipe(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "pipe", Version: "1"})
	schema := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	srv.AddTool(runtime.Tool{Name: "ask"}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		content, err := runtime.ElicitSchema(ctx, "Who?", schema)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult("hello " + content["name"].(string)), nil
	})
	for _, version := range []string{mcpclient.Version20250618, mcpclient.Version20260728} {
		t.Run(version, func(t *testing.T) {
			pipe, done := servePipe(srv)
			var trace bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := mcpclient.Connect(ctx, mcpclient.Options{Pipe: pipe, Protocol: version, Trace: &trace,
				Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
				OnElicit: func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
					return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.CallTool(ctx, "ask", nil)
			if err != nil || strings.Join(res.Lines(), "") != "hello Ada" {
				t.Errorf("got %v, %v", res, err)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if err := <-done; err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
			if !strings.Contains(trace.String(), "connected to the in-process server") || !strings.Contains(trace.String(), `"method":"tools/call"`) {
				t.Errorf("trace:\n%s", trace.String())
			}
		})
	}
}

// TestPipeServerThatDoesNotEnd: Close closes the server's output when it
// has not ended within the wait after its input closed, and says so.
func TestPipeServerThatDoesNotEnd(t *testing.T) {
	defer mcpclient.SetStdioWaits(100*time.Millisecond, time.Second)()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan struct{})
	go func() { // answers initialize, then ignores the end of its input
		defer close(served)
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
			var m struct{ ID json.RawMessage }
			if json.Unmarshal(sc.Bytes(), &m) == nil && len(m.ID) > 0 {
				io.WriteString(outW, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"stuck","version":"1"}}}`+"\n")
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, mcpclient.Options{Pipe: &mcpclient.Pipe{In: inW, Out: outR}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "did not exit within 100ms of its stdin closing") {
		t.Errorf("Close: %v", err)
	}
	<-served
	if _, err := io.WriteString(outW, "{}\n"); err == nil {
		t.Error("the server's output is still open after Close")
	}
}

func TestPipeOptions(t *testing.T) {
	_, w := io.Pipe()
	r, _ := io.Pipe()
	pipe := &mcpclient.Pipe{In: w, Out: r}
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		want string
	}{
		{"with url", mcpclient.Options{Pipe: pipe, URL: "http://x"}, "set one of URL, Command and Pipe"},
		{"with command", mcpclient.Options{Pipe: pipe, Command: []string{"ze"}}, "set one of URL, Command and Pipe"},
		{"no out", mcpclient.Options{Pipe: &mcpclient.Pipe{In: w}}, "Pipe needs both In and Out"},
		{"header", mcpclient.Options{Pipe: pipe, Header: map[string][]string{"X": {"y"}}}, "need URL; Pipe speaks stdio"},
		{"env", mcpclient.Options{Pipe: pipe, Env: []string{"A=b"}}, "need Command; a Pipe's server runs in this process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := mcpclient.Connect(context.Background(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
