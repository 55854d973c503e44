// Command sdkfixture serves an MCP server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) on loopback, with tools that
// elicit, for tests of clients. It is a test fixture: an independent,
// widely used server implementation to check a client against, so a client
// bug and a server bug cannot cancel out. Tests start it through
// internal/testsupport/sdkfixture; it is a program of its own so that the
// module the tests live in does not require go-sdk.
//
// Tools (all arguments optional unless said):
//
//	echo {text}   text "echo: TEXT"
//	greet         form elicitation of {name: string, required}; accept → "hello NAME",
//	              decline / cancel → isError "elicitation declined" / "... canceled",
//	              an Elicit error (no capability, bad content) → isError with its text
//	login         URL elicitation (https://example.test/login, id "login-1"); after
//	              the answer sends notifications/elicitation/complete, then "login: ACTION"
//	confirm       2026-07-28 style: returns inputRequests {"confirm": form {ok: boolean}}
//	              with requestState "confirm-state"; on the retry "confirmed: ACTION CONTENT".
//	              On a legacy session the SDK turns this into a server-sent elicitation.
//	fail          isError "boom"
//	structured    structuredContent {"n":42} (and its JSON as text)
//	sleep {ms}    waits ms milliseconds (or until the request ends), then "slept"
//	ping          pings the client from the handler, then "pong"
//	chatty        sends a progress notification, then elicits like greet
//	resume        (needs EventStore) closes its SSE stream, waits 100ms, then "resumed"
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// main serves the fixture. Flags: -stdio serves one session on
// stdin/stdout; otherwise it serves Streamable HTTP on a loopback port,
// prints its URL as the first line of standard output, and exits when its
// standard input ends (so the test that started it cannot leak it).
// -stateless, -json and -eventstore are the HTTP handler's options.
func main() {
	fs := flag.NewFlagSet("sdkfixture", flag.ExitOnError)
	stdio := fs.Bool("stdio", false, "serve one session on stdin/stdout")
	stateless := fs.Bool("stateless", false, "serve without sessions (go-sdk v1.8.0 requires it for 2026-07-28 requests)")
	jsonResponse := fs.Bool("json", false, "answer calls with application/json instead of SSE")
	eventStore := fs.Bool("eventstore", false, "keep stream events so clients can resume (2025-11-25)")
	_ = fs.Parse(os.Args[1:])
	if *stdio {
		if err := NewServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "sdkfixture:", err)
			os.Exit(1)
		}
		return
	}
	hopts := &mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: *jsonResponse}
	if *eventStore {
		hopts.EventStore = mcp.NewMemoryEventStore(nil)
	}
	server := NewServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdkfixture:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, hopts)
	fmt.Fprintln(os.Stderr, "sdkfixture:", http.Serve(ln, handler))
	os.Exit(1)
}

// NewServer returns the go-sdk server with the fixture's tools.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkfixture", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo text"}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "asks for a name"}, greet)
	mcp.AddTool(s, &mcp.Tool{Name: "login", Description: "url elicitation"}, login)
	mcp.AddTool(s, &mcp.Tool{Name: "confirm", Description: "input_required elicitation"}, confirm)
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "always fails"}, fail)
	mcp.AddTool(s, &mcp.Tool{Name: "structured", Description: "structured result"}, structured)
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "waits"}, sleep)
	mcp.AddTool(s, &mcp.Tool{Name: "ping", Description: "pings the client"}, ping)
	mcp.AddTool(s, &mcp.Tool{Name: "chatty", Description: "notifies, then elicits"}, chatty)
	mcp.AddTool(s, &mcp.Tool{Name: "resume", Description: "closes its stream"}, resume)
	return s
}

type none struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(s string) *mcp.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in struct {
	Text string `json:"text,omitempty"`
}) (*mcp.CallToolResult, any, error) {
	return text("echo: " + in.Text), nil, nil
}

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}`)

func greet(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: nameSchema})
	if err != nil {
		return toolError("elicit: " + err.Error()), nil, nil
	}
	return outcome(res, func(content map[string]any) string {
		name, _ := content["name"].(string)
		return "hello " + name
	}), nil, nil
}

func outcome(res *mcp.ElicitResult, accept func(map[string]any) string) *mcp.CallToolResult {
	switch res.Action {
	case "accept":
		return text(accept(res.Content))
	case "decline":
		return toolError("elicitation declined")
	case "cancel":
		return toolError("elicitation canceled")
	}
	return toolError(fmt.Sprintf("unknown action %q", res.Action))
}

func login(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode: "url", Message: "Sign in", URL: "https://example.test/login", ElicitationID: "login-1",
	})
	if err != nil {
		return toolError("elicit: " + err.Error()), nil, nil
	}
	if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: "login-1"}); err != nil {
		return nil, nil, err
	}
	return text("login: " + res.Action), nil, nil
}

func confirm(_ context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	if req.Params.InputResponses == nil {
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
				Message:         "Proceed?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
			}},
			RequestState: "confirm-state",
		}, nil, nil
	}
	if req.Params.RequestState != "confirm-state" {
		return toolError(fmt.Sprintf("requestState %q not echoed", req.Params.RequestState)), nil, nil
	}
	res, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
	if !ok {
		return toolError("no elicitation response under key confirm"), nil, nil
	}
	content, _ := json.Marshal(res.Content)
	return text(fmt.Sprintf("confirmed: %s %s", res.Action, content)), nil, nil
}

func fail(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, any, error) {
	return nil, nil, errors.New("boom")
}

func structured(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, struct {
	N int `json:"n"`
}, error) {
	return nil, struct {
		N int `json:"n"`
	}{42}, nil
}

func sleep(ctx context.Context, _ *mcp.CallToolRequest, in struct {
	MS int `json:"ms,omitempty"`
}) (*mcp.CallToolResult, any, error) {
	t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return text("slept"), nil, nil
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

func ping(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	if err := req.Session.Ping(ctx, nil); err != nil {
		return toolError("ping: " + err.Error()), nil, nil
	}
	return text("pong"), nil, nil
}

func chatty(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
	if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "chatty", Progress: 1, Message: "thinking"}); err != nil {
		return nil, nil, err
	}
	return greet(ctx, req, in)
}

func resume(ctx context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	if req.Extra == nil || req.Extra.CloseSSEStream == nil {
		return toolError("no stream to close"), nil, nil
	}
	req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return text("resumed"), nil, nil
}
