package ts

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// scriptV2 drives the conformance fixture with the TypeScript SDK's v2
// client, @modelcontextprotocol/client.
const scriptV2 = "interop-v2.mjs"

// v2Want is what an interop-v2.mjs case must end with: a tool result (want),
// or, when failure is set, a call that failed in the client with that
// message (and, when errorCode is set, the server's JSON-RPC error code).
type v2Want struct {
	want
	failure   string
	errorCode int
}

const (
	askName    = "What is your name?"
	askOK      = "Please confirm"
	noSampling = "the client did not declare sampling"
)

// v2Cases are interop-v2.mjs's cases on each protocol it speaks: the
// fixture's input_required tools (internal/cmd/conformance/fixture), whose
// runtime.Sample, runtime.ListRoots and runtime.AskTogether reach the
// client's handlers, whose model answers "Paris" (or refuses) and whose root
// is file:///ts. On 2025-11-25 the server asks with requests, one after the
// other; on 2026-07-28 in input_required results, which the client's
// auto-fulfilment answers (AskTogether's three in one round) and retries.
var v2Cases = map[string]map[string]v2Want{
	"2026-07-28": {
		"sample": {want: want{text: "Sampling response: Paris", requests: []string{"sampling/createMessage"}}},
		// 2026-07-28's inputResponses carry results only: a handler that
		// throws ends the call in the client, and the server is not told.
		"sample-refused":    {want: want{requests: []string{"sampling/createMessage"}}, failure: "User rejected sampling request"},
		"roots":             {want: want{text: "Roots: file:///ts", requests: []string{"roots/list"}}},
		"together":          {want: want{text: "Name: Ada; greeting: Paris; roots: file:///ts", asked: []string{askName}, requests: []string{"sampling/createMessage", "roots/list"}}},
		"together-declined": {want: want{text: "User response: action=decline", asked: []string{askName}, requests: []string{"sampling/createMessage", "roots/list"}}},
		"elicitation-only":  {want: want{text: "Asked: confirmation", asked: []string{askOK}, requests: []string{}}},
		// -32021 (missing required client capability) names sampling.
		"no-capability":        {failure: "missing required client capability: sampling", errorCode: -32021},
		"sample-no-capability": {failure: "missing required client capability: sampling", errorCode: -32021},
	},
	"2025-11-25": {
		"sample":               {want: want{text: "Sampling response: Paris", requests: []string{"sampling/createMessage"}}},
		"sample-refused":       {want: want{isError: true, contains: []string{"the client answered with an error", "User rejected sampling request"}, requests: []string{"sampling/createMessage"}}},
		"roots":                {want: want{text: "Roots: file:///ts", requests: []string{"roots/list"}}},
		"together":             {want: want{text: "Name: Ada; greeting: Paris; roots: file:///ts", asked: []string{askName}, requests: []string{"sampling/createMessage", "roots/list"}}},
		"together-declined":    {want: want{text: "User response: action=decline", asked: []string{askName}, requests: []string{}}},
		"elicitation-only":     {want: want{text: "Asked: confirmation", asked: []string{askOK}, requests: []string{}}},
		"no-capability":        {want: want{isError: true, contains: []string{noSampling}, requests: []string{}}},
		"sample-no-capability": {want: want{isError: true, contains: []string{noSampling}, requests: []string{}}},
	},
}

// TestTypeScriptSDKV2Client: the TypeScript SDK's v2 client answers the
// runtime's elicitations, Sample and ListRoots on 2026-07-28 (through
// input_required and its auto-fulfilment) and on 2025-11-25, over HTTP and
// over stdio.
func TestTypeScriptSDKV2Client(t *testing.T) {
	node := setUp(t)
	bin, url := startServer(t, "github.com/go-elicit/elicit/internal/cmd/conformance/fixture")

	for protocol, cases := range v2Cases {
		t.Run(protocol, func(t *testing.T) {
			t.Run("cases match the script", func(t *testing.T) {
				listMatches(t, node, scriptV2, "--list", slices.Sorted(maps.Keys(cases)))
			})
			for name, w := range cases {
				w.protocol = protocol
				t.Run("http/"+name, func(t *testing.T) {
					t.Parallel()
					checkV2(t, node, []string{"--protocol", protocol, url}, name, w)
				})
				t.Run("stdio/"+name, func(t *testing.T) {
					t.Parallel() // each case runs its own fixture
					checkV2(t, node, []string{"--protocol", protocol, "--stdio", bin}, name, w)
				})
			}
		})
	}
}

// checkV2 runs one interop-v2.mjs case against target and checks its report.
func checkV2(t *testing.T, node string, target []string, name string, w v2Want) {
	t.Helper()
	r, err := runScript(t, node, scriptV2, target, name)
	defer func() {
		if t.Failed() && r.Stderr != nil {
			t.Logf("the fixture's stderr:\n%s", *r.Stderr)
		}
	}()
	if w.failure == "" {
		if r.Failure != nil {
			t.Fatalf("%s %s: the client failed: %s", scriptV2, name, *r.Failure)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", scriptV2, name, err)
		}
		check(t, r, w.want)
		return
	}
	if r.ProtocolVersion == nil || *r.ProtocolVersion != w.protocol {
		t.Errorf("negotiated protocol %v, want %q", str(r.ProtocolVersion), w.protocol)
	}
	switch {
	case r.Failure == nil:
		t.Errorf("the call ended with a result (text %v), want the client to fail with %q", str(r.Text), w.failure)
	case !strings.Contains(*r.Failure, w.failure):
		t.Errorf("the client failed with %q, want %q", *r.Failure, w.failure)
	}
	switch {
	case w.errorCode == 0 && r.ErrorCode != nil:
		t.Errorf("error code %d, want none (the client failed on its own)", *r.ErrorCode)
	case w.errorCode != 0 && r.ErrorCode == nil:
		t.Errorf("no error code, want %d", w.errorCode)
	case w.errorCode != 0 && *r.ErrorCode != w.errorCode:
		t.Errorf("error code %d, want %d", *r.ErrorCode, w.errorCode)
	}
	var asked []string
	for _, e := range r.Elicitations {
		asked = append(asked, e.Message)
	}
	if !slices.Equal(asked, w.asked) {
		t.Errorf("elicitations asked %q, want %q", asked, w.asked)
	}
	if !slices.Equal(r.Requests, w.requests) {
		t.Errorf("requests %q, want %q", r.Requests, w.requests)
	}
}
