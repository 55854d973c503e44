package adaptertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// The answers scenario (issue 18: what real form UIs send, and re-asking)
// runs on a server with two tools that ask testform.PlaceForm with
// PlaceMessage: "place" without re-asks, "place-reask" with
// runtime.WithReask(1). Each tool answers PlaceOutcome of what Elicit
// returned.

// PlaceMessage is the question both tools ask.
const PlaceMessage = "Where should the service go?"

// PlaceOutcome is a place tool's result text for what Elicit returned, and
// whether it is an error; ok is false for runtime.ErrInputRequired, which
// the handler returns as is.
func PlaceOutcome(f testform.PlaceForm, err error) (text string, isError, ok bool) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return "", false, false
	case errors.Is(err, runtime.ErrElicitInvalidContent):
		return "invalid content: " + err.Error(), true, true
	case err != nil:
		return err.Error(), true, true
	}
	return fmt.Sprintf("host=%s replicas=%d contact=%q canary=%v", f.Host, f.Replicas, f.Contact, f.Canary), false, true
}

// Answers runs the scenario on every protocol and transport srv serves.
func Answers(t *testing.T, srv *elicittest.Server) {
	srv.Each(t, func(t *testing.T, c *elicittest.Client) {
		// A cleared optional email ("") and number (null) are not given.
		c.Call(t, "place", nil, elicittest.AcceptRaw(`{"host":"web1","contact":"","replicas":null,"canary":false}`)).
			WantText(t, `host=web1 replicas=0 contact="" canary=false`)
		// A checkbox left untouched is false (it has default false).
		c.Call(t, "place", nil, elicittest.AcceptRaw(`{"host":"web1"}`)).
			WantText(t, `host=web1 replicas=0 contact="" canary=false`)
		// A required property is still checked.
		c.Call(t, "place", nil, elicittest.AcceptRaw(`{"host":"","contact":""}`)).
			WantError(t, `invalid content: elicit: invalid content: "host" is required`)
		// Without WithReask a bad answer fails at once.
		c.Call(t, "place", nil, elicittest.AcceptRaw(`{"host":"web 1"}`)).
			WantError(t, `"host" must be a host name`)

		// With it, the user is asked again: what was wrong in the
		// message, what was right as defaults.
		var second elicittest.Elicitation
		res := c.Call(t, "place-reask", nil,
			elicittest.AcceptRaw(`{"host":"web 1","replicas":3,"contact":"ops@example.org","canary":true}`),
			elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
				second = e
				return elicittest.Accept(testform.PlaceForm{Host: "web1", Replicas: 3, Contact: "ops@example.org", Canary: true})
			}))
		res.WantText(t, `host=web1 replicas=3 contact="ops@example.org" canary=true`)
		wantMessage := PlaceMessage + ` — "host" must be a host name; please correct it`
		if second.Message != wantMessage {
			t.Errorf("re-ask message %q, want %q", second.Message, wantMessage)
		}
		want := map[string]any{"canary": true}
		if c.Protocol() >= runtime.Version20251125 {
			want = map[string]any{"replicas": 3.0, "contact": "ops@example.org", "canary": true}
		}
		if got := Defaults(t, second.Schema); !equalMaps(got, want) {
			t.Errorf("re-ask defaults on %s: %v, want %v\n\tschema: %s", c.Protocol(), got, want, second.Schema)
		}

		// After the last attempt: ErrElicitInvalidContent, as without it.
		c.Call(t, "place-reask", nil,
			elicittest.AcceptRaw(`{"host":"web 1","replicas":30}`),
			elicittest.AcceptRaw(`{"host":"web 2","replicas":3}`)).
			WantError(t, `invalid content: elicit: invalid content: "host" must be a host name`)
		// Two problems, and a decline of the re-ask ends the call.
		var msg string
		c.Call(t, "place-reask", nil,
			elicittest.AcceptRaw(`{"host":"web 1","replicas":30}`),
			elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
				msg = e.Message
				return elicittest.Decline()
			})).WantError(t, "declined")
		if want := PlaceMessage + ` — "host" must be a host name; "replicas" must be at most 10; please correct them`; msg != want {
			t.Errorf("re-ask message %q, want %q", msg, want)
		}
	})
}

// Defaults returns the "default" of each property of schema that has one.
func Defaults(t testing.TB, schema json.RawMessage) map[string]any {
	t.Helper()
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Errorf("schema %s: %v", schema, err)
	}
	out := map[string]any{}
	for name, p := range s.Properties {
		if d, ok := p["default"]; ok {
			out[name] = d
		}
	}
	return out
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || fmt.Sprint(v) != fmt.Sprint(w) {
			return false
		}
	}
	return true
}
