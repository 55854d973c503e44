//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// The answer every person gives, and what ze then prints.
const (
	answerCommand = "show version"
	wantText      = "ze 1.0.0"
)

// protocols are the eras the run drives: 2025-11-25 on the official go-sdk
// client (sessions; the elicitation arrives on the call's SSE stream and is
// answered by a POST that may land on any replica), 2026-07-28 on
// internal/mcpclient, cmd/mcptest's client (sessionless: input_required
// and a retry that may land on any replica).
var protocols = []string{runtime.Version20251125, runtime.Version20260728}

// client is one connection (a session in 2025-11-25) of one worker.
type client interface {
	// call runs ze_execute without a command: ze asks for it, the person
	// thinks, answers "show version", and the call completes.
	call(ctx context.Context) error
	close()
}

// person answers elicitations after think.
type person struct{ think time.Duration }

func (p person) wait(ctx context.Context) error {
	select {
	case <-time.After(p.think):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// upstreamRecorder is the HTTP transport of one worker's client: it
// remembers the replica (nginx's X-Deploytest-Upstream) that answered the
// worker's last tools/call POST, where the call's handler ran.
type upstreamRecorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	last string
}

func (u *upstreamRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	toolCall := false
	if req.Method == http.MethodPost && req.Body != nil && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, 4096))
			body.Close()
			toolCall = bytes.Contains(b, []byte(`"tools/call"`))
		}
	}
	resp, err := u.base.RoundTrip(req)
	if toolCall && err == nil {
		up := resp.Header.Get("X-Deploytest-Upstream")
		if i := strings.LastIndex(up, ", "); i >= 0 { // nginx tried several: the last served
			up = up[i+2:]
		}
		u.mu.Lock()
		u.last = up
		u.mu.Unlock()
	}
	return resp, err
}

// take returns the replica of the last tools/call and forgets it.
func (u *upstreamRecorder) take() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	up := u.last
	u.last = ""
	return up
}

func newRecorder() (*upstreamRecorder, *http.Client) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	u := &upstreamRecorder{base: tr}
	return u, &http.Client{Transport: u}
}

// dial connects one client of protocol to endpoint.
func dial(ctx context.Context, protocol, endpoint string, p person, hc *http.Client) (client, error) {
	if protocol == runtime.Version20260728 {
		c, err := mcpclient.Connect(ctx, mcpclient.Options{
			URL: endpoint, Protocol: protocol, HTTPClient: hc,
			ClientInfo:   mcpclient.Implementation{Name: "deploytest", Version: "1"},
			Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true}},
			OnElicit: func(ctx context.Context, _ mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				if err := p.wait(ctx); err != nil {
					return mcpclient.ElicitResult{}, err
				}
				return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"command":"` + answerCommand + `"}`)}, nil
			},
		})
		if err != nil {
			return nil, err
		}
		return modernClient{c}, nil
	}
	sdk := mcp.NewClient(&mcp.Implementation{Name: "deploytest", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if err := p.wait(ctx); err != nil {
				return nil, err
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"command": answerCommand}}, nil
		},
	})
	cs, err := sdk.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		return nil, err
	}
	return sdkClient{cs}, nil
}

type sdkClient struct{ cs *mcp.ClientSession }

func (c sdkClient) call(ctx context.Context) error {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ze_execute", Arguments: map[string]any{}})
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, content := range res.Content {
		if t, ok := content.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	return checkResult(text.String(), res.IsError)
}

func (c sdkClient) close() { _ = c.cs.Close() }

type modernClient struct{ c *mcpclient.Client }

func (c modernClient) call(ctx context.Context) error {
	res, err := c.c.CallTool(ctx, "ze_execute", json.RawMessage(`{}`))
	if err != nil {
		return err
	}
	var text strings.Builder
	for _, content := range res.Content {
		text.WriteString(content.Text)
	}
	return checkResult(text.String(), res.IsError)
}

func (c modernClient) close() { _ = c.c.Close() }

var errWrongResult = errors.New("wrong result")

func checkResult(text string, isError bool) error {
	if isError || !strings.Contains(text, wantText) {
		return fmt.Errorf("%w: %q (isError %v)", errWrongResult, text, isError)
	}
	return nil
}
