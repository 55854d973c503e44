// Package misuse is what TestMisuseDoesNotCompile builds: each option
// where it applies. The test builds it as it is (it compiles), then with
// this file replaced by misuse that must not.
package misuse

import (
	"context"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

func uses(ctx context.Context) {
	_, _ = runtime.Elicit[testform.RegionForm](ctx, "Where?",
		runtime.WithKey("where"),
		runtime.WithReask(1),
		runtime.WithChoices(testform.RegionForm_Region, runtime.Choice{Value: "eu"}),
		runtime.WithDefaults(testform.RegionForm{Region: "eu"}))
	_, _ = runtime.ElicitSchema(ctx, "Name?", map[string]any{"type": "object"},
		runtime.WithKey("name"), runtime.WithReask(1))
	_, _ = runtime.ElicitURL(ctx, "Sign in", "https://example.com/login", runtime.WithKey("login"))

	// A form other than the call's compiles: an option cannot name the T
	// of the call it is given to. The call fails before anything is sent
	// (TestPrepareElicitErrors).
	_, _ = runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithDefaults(testform.NameForm{}))
}
