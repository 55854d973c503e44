package cli

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
)

// serveSampling serves this module's runtime with "greet", which asks the
// client's model and its roots together.
func serveSampling(t *testing.T) string {
	t.Helper()
	srv := runtime.NewServer(runtime.Options{Name: "sampling-test", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		var msg *runtime.SampleResult
		var roots []runtime.Root
		err := runtime.AskTogether(ctx,
			func(ctx context.Context) (err error) {
				msg, err = runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 20, Messages: []runtime.SamplingMessage{
					{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "Greet"}}}}})
				return err
			},
			func(ctx context.Context) (err error) { roots, err = runtime.ListRoots(ctx); return err },
		)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(msg.Content[0].Text + " from " + msg.Model + " in " + roots[0].URI), nil
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestSamplingAndRootsReplies: sample-reply and roots-reply answer the
// server's sampling/createMessage and roots/list on every protocol; an
// empty queue refuses, and a client without the capabilities is not asked.
func TestSamplingAndRootsReplies(t *testing.T) {
	url := serveSampling(t)
	const script = `sample-reply {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1"}
roots-reply {"roots":[{"uri":"file:///src"}]}
@greet
`
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			run(t, script, "--url", url, "--protocol", version, "--sampling", "--roots").check(t, 0, "hi from m1 in file:///src\n")
			o := run(t, "@greet\n", "--url", url, "--protocol", version, "--sampling", "--roots")
			if version == "2026-07-28" {
				// No error answers an input request: the call fails.
				o.check(t, 1, "", "sampling/createMessage arrived with no queued sample-reply; answering error -1", "mcptest: no queued sample-reply")
			} else {
				o.check(t, 1, "", "sampling/createMessage arrived with no queued sample-reply; answering error -1", "@greet: elicit: the client answered with an error: -1 mcptest: no queued sample-reply")
			}
			o = run(t, script, "--url", url, "--protocol", version)
			want := "@greet: elicit: not supported by this client: the client did not declare sampling"
			if version == "2026-07-28" {
				want = "-32021"
			}
			o.check(t, 1, "", want, "1 queued sample-reply line never used (first at stdin:1)", "1 queued roots-reply line never used (first at stdin:2)")
			if strings.Contains(o.stderr, "arrived") {
				t.Errorf("a client without the capabilities was asked:\n%s", o.stderr)
			}
		})
	}
}
