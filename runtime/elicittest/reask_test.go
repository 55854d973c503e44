package elicittest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestScriptedReask: a re-ask (runtime.WithReask) is scripted as two
// answers for one Elicit, the invalid one and then the valid one; Accept
// of the form answers the re-ask although its schema carries defaults.
func TestScriptedReask(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "kit", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "place"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		p, err := runtime.Elicit[testform.PlaceForm](ctx, "Where should the service go?", runtime.WithReask(1))
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult("placed on " + p.Host), nil
	})
	elicittest.NewServer(t, srv).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "place", nil,
			elicittest.AcceptRaw(`{"host":"web 1","replicas":3}`),
			elicittest.Accept(testform.PlaceForm{Host: "web1", Replicas: 3}))
		res.WantText(t, "placed on web1")
		res.WantAsked(t, "Where should the service go?",
			`Where should the service go? — "host" must be a host name; please correct it`)
		// Asks tells the re-ask is the same form.
		if asked := res.Asked(); len(asked) != 2 || !asked[1].Asks(testform.PlaceForm{}) {
			t.Errorf("asked %v: the re-ask is not PlaceForm", asked)
		}
		// Both answers invalid: the handler gets the content error.
		c.Call(t, "place", nil,
			elicittest.AcceptRaw(`{"host":"web 1"}`),
			elicittest.AcceptRaw(`{"host":"web 2"}`)).
			WantError(t, `elicit: invalid content: "host" must be a host name`)
	})
}
