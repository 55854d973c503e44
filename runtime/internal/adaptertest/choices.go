package adaptertest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// Regions are the run-time choices RegionTool offers, titled.
var Regions = []runtime.Choice{{Value: "eu", Title: "Europe"}, {Value: "us", Title: "United States"}}

// RegionTool is the body of a "region" tool: it asks testform.RegionForm
// through elicit (runtime.Elicit or an adapter's Elicit, instantiated) with
// the Regions as run-time choices and a prefilled region, replica count
// notify flag and start, and returns what the answer holds.
func RegionTool(ctx context.Context, elicit func(context.Context, string, ...runtime.ElicitOption) (testform.RegionForm, error)) (string, error) {
	no := false
	f, err := elicit(ctx, "Where?",
		runtime.WithChoices(testform.RegionForm_Region, Regions...),
		runtime.WithDefaults(testform.RegionForm{Region: "us", Replicas: 3, Notify: &no, Start: regionStart}))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %d %v %q %s", f.Region, f.Replicas, *f.Notify, f.Note, f.Start.Format(time.DateOnly)), nil
}

// regionStart is the start RegionTool prefills.
var regionStart = time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)

// RegionSchemas are the requestedSchemas RegionTool sends: enumNames and
// only the boolean default on 2025-06-18, where the properties whose
// defaults cannot be shown stay required; oneOf and every default later.
var RegionSchemas = map[string]string{
	runtime.Version20250618: `{"type":"object","properties":{` +
		`"region":{"description":"Where to deploy.","enum":["eu","us"],"enumNames":["Europe","United States"],"type":"string"},` +
		`"replicas":{"description":"How many replicas to run.","maximum":10,"minimum":1,"type":"integer"},` +
		`"notify":{"default":false,"description":"Whether to tell the team.","type":"boolean"},` +
		`"note":{"type":"string","description":"A note for the log."},` +
		`"start":{"description":"When to start.","format":"date-time","type":"string"}},"required":["region","replicas","start"]}`,
	runtime.Version20251125: newerRegionSchema,
	runtime.Version20260728: newerRegionSchema,
}

const newerRegionSchema = `{"type":"object","properties":{` +
	`"region":{"default":"us","description":"Where to deploy.","oneOf":[{"const":"eu","title":"Europe"},{"const":"us","title":"United States"}],"type":"string"},` +
	`"replicas":{"default":3,"description":"How many replicas to run.","maximum":10,"minimum":1,"type":"integer"},` +
	`"notify":{"default":false,"description":"Whether to tell the team.","type":"boolean"},` +
	`"note":{"type":"string","description":"A note for the log."},` +
	`"start":{"default":"2026-08-01T09:00:00Z","description":"When to start.","format":"date-time","type":"string"}}}`

// RegionCalls drives the "region" tool of h (RegionTool; an error is an
// isError result) on every protocol the kit runs: the schema each version
// gets, the defaults it shows filling what the answer leaves out, the
// defaults it cannot show (a number and a time on 2025-06-18) not used, so
// that leaving their properties out is "is required", and an answer
// outside the choices refused.
func RegionCalls(t *testing.T, h http.Handler) {
	elicittest.NewServer(t, h).Each(t, func(t *testing.T, c *elicittest.Client) {
		res := c.Call(t, "region", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
			if want := RegionSchemas[c.Protocol()]; string(e.Schema) != want {
				t.Errorf("schema\n%s\nwant\n%s", e.Schema, want)
			}
			return elicittest.AcceptRaw(`{"region":"eu"}`)
		}))
		if c.Protocol() == runtime.Version20250618 {
			res.WantError(t, `elicit: invalid content: "replicas" is required; "start" is required`)
			c.Call(t, "region", nil, elicittest.AcceptRaw(`{"region":"eu","replicas":2,"start":"2026-09-01T00:00:00Z"}`)).WantText(t, `eu 2 false "" 2026-09-01`)
		} else {
			res.WantText(t, `eu 3 false "" 2026-08-01`)
		}
		c.Call(t, "region", nil, elicittest.AcceptRaw(`{"region":"us","replicas":5,"notify":true,"note":"x","start":"2026-09-01T00:00:00Z"}`)).WantText(t, `us 5 true "x" 2026-09-01`)
		c.Call(t, "region", nil, elicittest.AcceptRaw(`{"region":"mars","replicas":11,"start":"2026-09-01T00:00:00Z"}`)).
			WantError(t, `elicit: invalid content: "region" must be one of "eu", "us"; "replicas" must be at most 10`)
	})
}
