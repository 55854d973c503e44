// Package adaptertest holds the client side shared by the adapters' tests
// (runtime/gosdk, runtime/mcpgo): a real mcpclient connection, a bounded
// call, scripted answers and a bounded wait for what a handler's Elicit
// returned.
package adaptertest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
)

// Versions are the protocol versions both adapters serve.
var Versions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// Connect opens a client on url speaking version; a non-nil onElicit also
// declares the elicitation capability. The client closes with the test.
func Connect(t *testing.T, url, version string, onElicit mcpclient.ElicitHandler) *mcpclient.Client {
	t.Helper()
	opts := mcpclient.Options{URL: url, Protocol: version, OnElicit: onElicit}
	if onElicit != nil {
		opts.Capabilities.Elicitation = &mcpclient.ElicitationCapability{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Call calls tool without arguments, bounded in time.
func Call(t *testing.T, c *mcpclient.Client, tool string) (*mcpclient.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.CallTool(ctx, tool, nil)
}

// Names answers successive elicitations by accepting {"name": names[i]}.
func Names(names ...string) mcpclient.ElicitHandler {
	return func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
		n := names[0]
		names = names[1:]
		return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"` + n + `"}`)}, nil
	}
}

// Next returns what a handler reported on errs, failing the test if none
// arrives within 10 s.
func Next(t *testing.T, errs <-chan error) error {
	t.Helper()
	select {
	case err := <-errs:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never finished its Elicit")
		return nil
	}
}
