package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
	"github.com/go-elicit/elicit/runtime"
)

// serveRuntime serves this module's runtime on loopback with one tool,
// "ask", that elicits {name: string, required} and answers "hello NAME",
// or the elicitation's error as a tool error.
func serveRuntime(t *testing.T) string {
	t.Helper()
	srv := runtime.NewServer(runtime.Options{Name: "reply-test", Version: "1"})
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}},
		"required":   []string{"name"},
	}
	runtime.AddTool(srv, runtime.Tool{Name: "ask"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		v, err := runtime.ElicitSchema(ctx, "What is your name?", schema)
		if err != nil {
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult("hello " + v["name"].(string)), nil
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestReplyVerbatim: elicit-reply sends its content as written, whatever
// JSON value it is, and the server's verdict on it reaches the script. The
// trace shows the bytes on the wire: the JSON-RPC result (2025-06-18) or the
// input response of the retry (2026-07-28).
func TestReplyVerbatim(t *testing.T) {
	url := serveRuntime(t)
	for _, protocol := range []string{"2025-06-18", "2026-07-28"} {
		wire := `"result":`
		if protocol == "2026-07-28" {
			wire = `"inputResponses":{"elicit":`
		}
		for _, tc := range []struct {
			reply, sent, stdout, stderr string
		}{
			{reply: `accept []`, sent: `{"action":"accept","content":[]}`, stderr: "@ask: elicit: malformed answer: content must be an object"},
			{reply: `accept "x"`, sent: `{"action":"accept","content":"x"}`, stderr: "@ask: elicit: malformed answer: content must be an object"},
			{reply: `accept 1`, sent: `{"action":"accept","content":1}`, stderr: "@ask: elicit: malformed answer: content must be an object"},
			{reply: `accept null`, sent: `{"action":"accept","content":null}`, stderr: `@ask: elicit: invalid content: "name" is required`},
			{reply: `accept`, sent: `{"action":"accept"}`, stderr: `@ask: elicit: invalid content: "name" is required`},
			{reply: `maybe {"name":"Ada"}`, sent: `{"action":"maybe","content":{"name":"Ada"}}`, stderr: `@ask: elicit: malformed answer: unknown action "maybe"`},
			{reply: `accept {"name":"Ada"}`, sent: `{"action":"accept","content":{"name":"Ada"}}`, stdout: "hello Ada\n"},
		} {
			t.Run(protocol+"/"+tc.reply, func(t *testing.T) {
				o := run(t, "elicit-reply "+tc.reply+"\n@ask\n", "--url", url, "--elicit", "--protocol", protocol, "--trace")
				code := 0
				if tc.stderr != "" {
					code = 1
				}
				if o.code != code || o.stdout != tc.stdout || !strings.Contains(o.stderr, wire+tc.sent) ||
					(tc.stderr != "" && !strings.Contains(o.stderr, "mcptest: stdin:2: "+tc.stderr+"\n")) {
					t.Errorf("exit %d, stdout %q; want exit %d, stdout %q, %s sent and %q\nstderr:\n%s",
						o.code, o.stdout, code, tc.stdout, wire+tc.sent, tc.stderr, o.stderr)
				}
			})
		}
	}
}

// TestReplyVerbatimSDK: the official Go SDK's server refuses content that
// is not an object while decoding the result, before its handler sees it.
func TestReplyVerbatimSDK(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	run(t, "elicit-reply accept []\n@greet\n", "--url", url, "--elicit").check(t, 1, "",
		`mcptest: stdin:2: @greet: elicit: calling "elicitation/create": json: cannot unmarshal "[]}" into Go struct field mcp.ElicitResult.content`)
}
