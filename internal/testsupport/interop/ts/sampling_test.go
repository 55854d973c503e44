package ts

import "testing"

// samplingCases are interop.mjs's --sampling cases: the conformance
// fixture's sampling and roots tools (internal/cmd/conformance/fixture),
// asked of the TypeScript SDK client, whose model answers "Paris" and
// whose root is file:///ts. The pinned v1 client speaks 2025-11-25 at most;
// 2026-07-28 is the v2 client's (v2_test.go).
var samplingCases = map[string]want{
	"sample":         {protocol: "2025-11-25", text: "LLM response: Paris", requests: []string{"sampling/createMessage"}},
	"sample-refused": {protocol: "2025-11-25", isError: true, contains: []string{"the client answered with an error", "User rejected sampling request"}, requests: []string{"sampling/createMessage"}},
	"roots":          {protocol: "2025-11-25", text: "Roots: file:///ts", requests: []string{"roots/list"}},
	// Asked together: the name form, the model, the roots, in turn.
	"together": {protocol: "2025-11-25", text: "Name: Ada; greeting: Paris; roots: file:///ts", asked: []string{"What is your name?"}, requests: []string{"sampling/createMessage", "roots/list"}},
}

// TestTypeScriptSDKClientSampling: the TypeScript SDK client answers the
// runtime's Sample and ListRoots (the conformance fixture's tools) over
// HTTP and over stdio.
func TestTypeScriptSDKClientSampling(t *testing.T) {
	node := setUp(t)
	t.Run("cases match the script", func(t *testing.T) { casesMatch(t, node, "--list-sampling", samplingCases) })

	bin, url := startServer(t, "github.com/go-elicit/elicit/internal/cmd/conformance/fixture")

	for name, w := range samplingCases {
		t.Run("http/"+name, func(t *testing.T) {
			t.Parallel()
			check(t, runCase(t, node, []string{"--sampling", url}, name), w)
		})
		t.Run("stdio/"+name, func(t *testing.T) {
			t.Parallel() // each case runs its own fixture
			check(t, runCase(t, node, []string{"--sampling-stdio", bin}, name), w)
		})
	}
}
