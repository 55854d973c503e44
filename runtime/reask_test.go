package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestReaskInputRequiredRounds: on 2026-07-28 a re-ask is one more
// input_required round under a new key ("place_form_2"), whose message
// says what was wrong and whose schema carries the valid properties as
// defaults; its answer completes the call. Raw HTTP.
func TestReaskInputRequiredRounds(t *testing.T) {
	f := newFixture(t, Options{Name: "srv", Version: "1"})
	AddTool(f.srv, Tool{Name: "place"}, func(ctx context.Context, req *CallToolRequest, _ struct{}) (*CallToolResult, error) {
		p, err := Elicit[testform.PlaceForm](ctx, "Where?", WithReask(1))
		if err != nil {
			return nil, err
		}
		return TextResult("host=" + p.Host), nil
	})
	c := f.newClient()
	call := func(id int, extra string) rpcResponse {
		params := `"name":"place","arguments":{}`
		if extra != "" {
			params += "," + extra
		}
		return decodeResponse(t, c.expect(c.post(inputRequiredBody(id, "tools/call", params, inputRequiredCapsElicit), inputRequiredHeaders("tools/call", "place")...), 200))
	}
	type request struct {
		Params struct {
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	round := func(r rpcResponse) (map[string]request, string) {
		t.Helper()
		if str(r.Result["resultType"]) != "input_required" {
			t.Fatalf("result %v, want input_required", r.Result)
		}
		var reqs map[string]request
		if err := json.Unmarshal(r.Result["inputRequests"], &reqs); err != nil {
			t.Fatal(err)
		}
		return reqs, str(r.Result["requestState"])
	}
	reqs, state := round(call(1, ""))
	if _, ok := reqs["place_form"]; !ok || len(reqs) != 1 {
		t.Fatalf("first round asks %v, want place_form", reqs)
	}
	reqs, state = round(call(2, `"inputResponses":{"place_form":{"action":"accept","content":{"host":"web 1","replicas":3,"canary":true}}},"requestState":"`+state+`"`))
	again, ok := reqs["place_form_2"]
	if !ok || len(reqs) != 1 {
		t.Fatalf("second round asks %v, want place_form_2", reqs)
	}
	if want := `Where? — "host" must be a host name; please correct it`; again.Params.Message != want {
		t.Errorf("re-ask message %q, want %q", again.Params.Message, want)
	}
	for _, want := range []string{`"maximum":10,"default":3}`, `"default":true}`} {
		if !strings.Contains(string(again.Params.RequestedSchema), want) {
			t.Errorf("re-ask schema lacks %s: %s", want, again.Params.RequestedSchema)
		}
	}
	r := call(3, `"inputResponses":{"place_form_2":{"action":"accept","content":{"host":"web1","replicas":3}}},"requestState":"`+state+`"`)
	if str(r.Result["resultType"]) != "complete" || !strings.Contains(string(r.Result["content"]), "host=web1") {
		t.Errorf("third request: %v", r.Result)
	}
}

func TestSchemaWithDefaults(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"b":{"type":"string","default":"x"},"a":{"type":"integer","minimum":1},"c":{"type":"boolean"}},"required":["a"]}`)
	d := func(p, v string) propertyDefault { return propertyDefault{Property: p, Value: json.RawMessage(v)} }
	for _, tc := range []struct {
		version  string
		defaults []propertyDefault
		want     string
	}{
		// Order kept, a default replaced, one added.
		{Version20251125, []propertyDefault{d("a", "3"), d("b", `"y"`), d("c", "true")},
			`{"type":"object","properties":{"b":{"type":"string","default":"y"},"a":{"type":"integer","minimum":1,"default":3},"c":{"type":"boolean","default":true}},"required":["a"]}`},
		// A property the schema lacks is left out; nothing to set: unchanged.
		{Version20260728, []propertyDefault{d("zz", "1")}, string(schema)},
		// A default the checker refuses leaves the schema as it was.
		{Version20260728, []propertyDefault{d("a", `"three"`)}, string(schema)},
		{Version20260728, nil, string(schema)},
	} {
		if got := schemaWithDefaults(schema, tc.version, tc.defaults); string(got) != tc.want {
			t.Errorf("%s %v:\n got %s\nwant %s", tc.version, tc.defaults, got, tc.want)
		}
	}
}

func TestReaskMessageAndValidProperties(t *testing.T) {
	ce := &ContentError{Problems: []Problem{{Property: "host", Message: "must be a host name"}}}
	if got, want := reaskMessage("Where?", ce), `Where? — "host" must be a host name; please correct it`; got != want {
		t.Errorf("reaskMessage = %q, want %q", got, want)
	}
	got := validProperties(json.RawMessage(`{"host":"web 1","n": 3 ,"e":"","z":null,"l":["a", "b"]}`), ce)
	var parts []string
	for _, p := range got {
		parts = append(parts, p.Property+"="+string(p.Value))
	}
	if s := strings.Join(parts, " "); s != `n=3 l=["a","b"]` {
		t.Errorf("validProperties = %s", s)
	}
	if got := validProperties(json.RawMessage(`{"n":3}`), &ContentError{Problems: []Problem{{Message: "malformed"}}}); got != nil {
		t.Errorf("validProperties with a whole-content problem = %v", got)
	}
	// Problems beyond those named may name any property: none is a default.
	if got := validProperties(json.RawMessage(`{"n":3}`), &ContentError{Problems: ce.Problems, more: 2}); got != nil {
		t.Errorf("validProperties with problems beyond those named = %v", got)
	}
}

// TestSchemaWithDefaults2025_06_18: that version carries only boolean
// defaults; the others are left out.
func TestSchemaWithDefaults2025_06_18(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"a":{"type":"integer"},"s":{"type":"string"},"c":{"type":"boolean"}}}`)
	got := schemaWithDefaults(schema, Version20250618, []propertyDefault{
		{Property: "a", Value: json.RawMessage("3")}, {Property: "s", Value: json.RawMessage(`"x"`)}, {Property: "c", Value: json.RawMessage("true")}})
	if want := `{"type":"object","properties":{"a":{"type":"integer"},"s":{"type":"string"},"c":{"type":"boolean","default":true}}}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestFormCallAskZero: the adapters' kit method refuses a nil ask and a
// formCall not made by prepareElicit, and passes an ask's error through,
// re-asking nothing.
func TestFormCallAskZero(t *testing.T) {
	if _, err := (formCall[testform.NameForm, *testform.NameForm]{}).Ask("", nil); err == nil {
		t.Error("Ask with a nil ask: no error")
	}
	if _, err := (formCall[testform.NameForm, *testform.NameForm]{}).Ask("", func(string, json.RawMessage) (json.RawMessage, error) { return nil, nil }); err == nil {
		t.Error("Ask on a zero formCall: no error")
	}
	fc, err := prepareElicit[testform.NameForm](Version20251125, WithReask(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	asks := 0
	_, err = fc.Ask("Who?", func(string, json.RawMessage) (json.RawMessage, error) {
		asks++
		return json.RawMessage(`{"action":"decline"}`), nil
	})
	if !errors.Is(err, ErrElicitDeclined) || asks != 1 {
		t.Errorf("decline with WithReask(3): %v after %d asks, want ErrElicitDeclined after 1", err, asks)
	}
	fc, err = prepareElicit[testform.NameForm](Version20251125, WithReask(2))
	if err != nil {
		t.Fatal(err)
	}
	asks = 0
	_, err = fc.Ask("Who?", func(string, json.RawMessage) (json.RawMessage, error) {
		asks++
		return json.RawMessage(`{"action":"accept","content":{"name":""}}`), nil
	})
	if !errors.Is(err, ErrElicitInvalidContent) || asks != 3 {
		t.Errorf("invalid with WithReask(2): %v after %d asks, want ErrElicitInvalidContent after 3", err, asks)
	}
}
