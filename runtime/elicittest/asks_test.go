package elicittest_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// tripForm is a form with a hand-made descriptor, as elicitgen would
// generate it: a required string and titled enum, an optional integer and
// an optional multi-select, which 2025-06-18 cannot carry.
type tripForm struct {
	City   string   `json:"city"`
	Class  string   `json:"class"`
	Seats  int      `json:"seats,omitempty"`
	Extras []string `json:"extras,omitempty"`
}

const tripSchema = `{"type":"object","properties":{` +
	`"city":{"type":"string","title":"City","minLength":1},` +
	`"class":{"type":"string","title":"Class","oneOf":[{"const":"economy","title":"Economy"},{"const":"business","title":"Business"}]},` +
	`"seats":{"type":"integer","title":"Seats","minimum":1,"maximum":9},` +
	`"extras":{"type":"array","title":"Extras","items":{"anyOf":[{"const":"meal","title":"Meal"},{"const":"bag","title":"Bag"}]}}},` +
	`"required":["city","class"]}`

func (*tripForm) ElicitForm() *formimpl.Descriptor {
	return &formimpl.Descriptor{Name: "TripForm", Key: "trip_form", Variants: []formimpl.Variant{
		{Version: runtime.Version20250618, Unsupported: `multi-select (property "extras") needs protocol 2025-11-25`},
		{Version: runtime.Version20251125, Schema: []byte(tripSchema)},
		{Version: runtime.Version20260728, Schema: []byte(tripSchema)},
	}}
}

// tripAsker asks the schema it is given with ElicitSchema and answers with
// the properties of the content it got.
func tripAsker() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{})
	runtime.AddTool(srv, runtime.Tool{Name: "ask"}, func(ctx context.Context, req *runtime.CallToolRequest, in struct {
		Schema map[string]any `json:"schema"`
	}) (*runtime.CallToolResult, error) {
		content, err := runtime.ElicitSchema(ctx, "Trip?", in.Schema)
		if errors.Is(err, runtime.ErrInputRequired) {
			return nil, err
		}
		if err != nil {
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(strings.Join(slices.Sorted(maps.Keys(content)), " ")), nil
	})
	return srv
}

// TestAsksToleratesWhatACallChanges: a question of a generated form may
// carry defaults and other enum members than the generated schema, and
// leave out the optional properties its version cannot carry (issue 18's
// prefill and re-ask, run-time choices and graceful downgrade), and still
// ask that form; any other difference fails the Call with what differs.
func TestAsksToleratesWhatACallChanges(t *testing.T) {
	edit := func(from string, pairs ...string) string { return strings.NewReplacer(pairs...).Replace(from) }
	city := `"city":{"type":"string","title":"City","minLength":1},`
	class := `"class":{"type":"string","title":"Class","oneOf":[{"const":"economy","title":"Economy"},{"const":"business","title":"Business"}]},`
	seats := `"seats":{"type":"integer","title":"Seats","minimum":1,"maximum":9},`
	extras := `"extras":{"type":"array","title":"Extras","items":{"anyOf":[{"const":"meal","title":"Meal"},{"const":"bag","title":"Bag"}]}}`
	// without drops the optional properties that end the schema.
	without := func(optionals string) string {
		return strings.Replace(tripSchema, ","+optionals+extras, "", 1)
	}
	legacyClass := `"class":{"type":"string","title":"Class","enum":["economy","business"],"enumNames":["Economy","Business"]},`
	trip := tripForm{City: "Oslo", Class: "economy", Seats: 2, Extras: []string{"meal"}}
	for _, tc := range []struct {
		name, protocol, schema string
		sent                   string // the properties the answer carried
		fails                  string // the Call's failure; "" when the question asks the TripForm
	}{
		{"as generated", "", tripSchema, "city class extras seats", ""},
		{"defaults", "", edit(tripSchema, `"minLength":1}`, `"minLength":1,"default":"Bergen"}`, `"maximum":9}`, `"maximum":9,"default":1}`,
			`"title":"Extras",`, `"title":"Extras","default":["bag"],`), "city class extras seats", ""},
		{"choices of the call", "", edit(tripSchema, `{"const":"business","title":"Business"}`, `{"const":"first","title":"First"}`,
			`{"const":"meal","title":"Meal"},{"const":"bag","title":"Bag"}`, `{"const":"wifi","title":"Wi-Fi"}`), "", ""},
		{"untitled choices", "", edit(tripSchema, class, `"class":{"type":"string","title":"Class","enum":["economy","first"]},`,
			`"items":{"anyOf":[{"const":"meal","title":"Meal"},{"const":"bag","title":"Bag"}]}`, `"items":{"type":"string","enum":["meal","wifi"]}`), "city class extras seats", ""},
		{"downgraded for 2025-06-18", runtime.Version20250618, edit(without(""), class, legacyClass), "city class seats", ""},

		{"another type", "", edit(tripSchema, `"type":"integer"`, `"type":"number"`), "", `its "seats" is \{"maximum":9,"minimum":1,"title":"Seats","type":"number"\}, the TripForm's is \{.*"type":"integer"\} \(enum members and defaults aside\)`},
		{"another title", "", edit(tripSchema, `"title":"City"`, `"title":"Town"`), "", `its "city" is .*"Town".*, the TripForm's is .*"City"`},
		{"another bound", "", edit(tripSchema, `"maximum":9`, `"maximum":8`), "", `its "seats" is .*"maximum":8`},
		{"a required one left out", "", edit(tripSchema, city, ``, `"required":["city","class"]`, `"required":["class"]`), "", `it leaves out "city", which the TripForm requires`},
		{"required differs", "", edit(tripSchema, `"required":["city","class"]`, `"required":["city","class","seats"]`), "", `it requires "seats", which the TripForm does not`},
		{"not required", "", edit(tripSchema, `"required":["city","class"]`, `"required":["city"]`), "", `it does not require "class", which the TripForm does \(and gives no default\)`},
		{"one more property", "", edit(tripSchema, city, city+`"note":{"type":"string"},`), "", `it asks for "note", which the TripForm does not have`},
		{"an optional one the version carries left out", "", without(seats), "", `it leaves out "extras", which the TripForm has and 20[0-9-]+ can carry`},
		{"an optional one 2025-06-18 carries left out", runtime.Version20250618, edit(without(seats), class, legacyClass), "", `it leaves out "seats", which the TripForm has and 2025-06-18 can carry`},
		{"a required one left out on 2025-06-18", runtime.Version20250618, edit(without(""), class, ``, `"required":["city","class"]`, `"required":["city"]`), "", `it leaves out "class", which the TripForm requires`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			srv := elicittest.NewServer(t, tripAsker())
			protocols := []string{tc.protocol}
			if tc.protocol == "" {
				protocols = []string{runtime.Version20251125, runtime.Version20260728}
			}
			for _, v := range protocols {
				c := srv.Connect(t, elicittest.Conn{Protocol: v, Transport: elicittest.Stdio})
				res := c.Call(r, "ask", `{"schema":`+tc.schema+`}`, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
					if e.Asks(tripForm{}) != (tc.fails == "") {
						t.Errorf("%s: Asks(TripForm) = %v for %s", v, !(tc.fails == ""), e.Schema)
					}
					return elicittest.Accept(trip)
				}))
				if tc.fails != "" {
					r.want(t, `elicitation 1 \(form "Trip\?"\) did not ask for the TripForm of Accept\(elicittest_test\.tripForm\{.*\}\): `+tc.fails+`.*\n\tasked:   \{.*\}\n\tTripForm is: \{.*\}\n\tit was canceled`)
					continue
				}
				r.want(t)
				if tc.sent != "" && (res.IsError || res.Text != tc.sent) {
					t.Errorf("%s: the answer carried %q (isError %v), want %q", v, res.Text, res.IsError, tc.sent)
				}
			}
		})
	}
}
