package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestTypedArgumentsEmptyMeansNotGiven: typed tool arguments that are a
// generated form share its decoder, so an optional argument sent empty is
// not given and a required one is still checked.
func TestTypedArgumentsEmptyMeansNotGiven(t *testing.T) {
	f := newFixture(t, Options{})
	AddTool(f.srv, Tool{Name: "place"}, func(ctx context.Context, req *CallToolRequest, in testform.PlaceForm) (*CallToolResult, error) {
		return TextResult(fmt.Sprintf("%s %d %q %v", in.Host, in.Replicas, in.Contact, in.Canary)), nil
	})
	c := f.connect("2025-11-25", `{}`)
	for _, tc := range []struct {
		args, want string
		isError    bool
	}{
		{`{"host":"web1","contact":"","replicas":null,"canary":null}`, `web1 0 "" false`, false},
		{`{"host":"web1","contact":"ops@example.org","replicas":2}`, `web1 2 "ops@example.org" false`, false},
		{`{"host":"","contact":""}`, `"host" is required`, true},
		{`{"host":null}`, `"host" is required`, true},
		{`{"host":"web1","contact":"nope"}`, `"contact" must be`, true},
	} {
		resp, _ := c.callTool("place", tc.args)
		text, isErr := resultText(t, c.expect(resp, 200))
		if isErr != tc.isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s: %q (isError %v), want %q (isError %v)", tc.args, text, isErr, tc.want, tc.isError)
		}
	}
}
