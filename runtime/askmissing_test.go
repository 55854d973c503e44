package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// askMissingServer serves "greet", whose arguments are AskForm (name and
// count, both required) with AskMissing, and "plain", the same without it
// (AskMissing on arguments that are no generated form panics:
// TestRegistrationPanics). runs counts the handler's runs.
func askMissingServer(runs *atomic.Int32) *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "askmissing"})
	greet := func(_ context.Context, _ *runtime.CallToolRequest, in testform.AskForm) (*runtime.CallToolResult, error) {
		runs.Add(1)
		return runtime.TextResult(fmt.Sprintf("%s x%d", in.Name, in.Count)), nil
	}
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, greet, runtime.AskMissing("Who, how often?"))
	runtime.AddTool(srv, runtime.Tool{Name: "plain"}, greet)
	return srv
}

// schemaShape is the property names and required list of a requestedSchema.
func schemaShape(t *testing.T, raw json.RawMessage) (props, required []string) {
	t.Helper()
	var s struct {
		Properties map[string]json.RawMessage
		Required   []string
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema %s: %v", raw, err)
	}
	for p := range s.Properties {
		props = append(props, p)
	}
	slices.Sort(props)
	slices.Sort(s.Required)
	return props, s.Required
}

// TestAskMissing: on every protocol and transport, a call that leaves out
// required arguments of a generated form is asked only for those, with the
// given ones kept, before the handler runs (once, also on 2026-07-28,
// where the question is an input_required round).
func TestAskMissing(t *testing.T) {
	var runs atomic.Int32
	elicittest.NewServer(t, askMissingServer(&runs)).Each(t, func(t *testing.T, c *elicittest.Client) {
		for _, tc := range []struct {
			name    string
			args    any
			answer  string
			asked   []string
			want    string
			isError bool
			runs    int32
		}{
			{"one missing", map[string]any{"name": "Ada"}, `{"count":3}`, []string{"count"}, "Ada x3", false, 1},
			{"all missing", nil, `{"name":"Bo","count":2}`, []string{"count", "name"}, "Bo x2", false, 1},
			{"null is missing", map[string]any{"name": nil, "count": 1}, `{"name":"Cy"}`, []string{"name"}, "Cy x1", false, 1},
			{"answer breaks the form", map[string]any{"name": "Ada"}, `{"count":"many"}`, []string{"count"}, `invalid arguments for tool "greet": "count" must be an integer, not a string`, true, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				runs.Store(0)
				res := c.Call(t, "greet", tc.args, elicittest.AcceptRaw(tc.answer))
				if res.IsError != tc.isError || res.Text != tc.want {
					t.Errorf("got %q (isError %v), want %q (isError %v)", res.Text, res.IsError, tc.want, tc.isError)
				}
				asked := res.Asked()
				if len(asked) != 1 {
					t.Fatalf("asked %d times, want once", len(asked))
				}
				if asked[0].Message != "Who, how often?" {
					t.Errorf("message %q", asked[0].Message)
				}
				props, required := schemaShape(t, asked[0].Schema)
				if !slices.Equal(props, tc.asked) || !slices.Equal(required, tc.asked) {
					t.Errorf("asked properties %q, required %q; want %q for both: %s", props, required, tc.asked, asked[0].Schema)
				}
				if got := runs.Load(); got != tc.runs {
					t.Errorf("the handler ran %d times, want %d", got, tc.runs)
				}
			})
		}
		t.Run("decline", func(t *testing.T) {
			runs.Store(0)
			c.Call(t, "greet", map[string]any{"name": "Ada"}, elicittest.Decline()).WantError(t, "the user declined to answer")
			c.Call(t, "greet", map[string]any{"name": "Ada"}, elicittest.Cancel()).WantError(t, "the user canceled the request")
			if runs.Load() != 0 {
				t.Error("the handler ran")
			}
		})
		t.Run("nothing missing, nothing asked", func(t *testing.T) {
			c.Call(t, "greet", map[string]any{"name": "Ada", "count": 1}).WantText(t, "Ada x1")
		})
		t.Run("other problems are not asked about", func(t *testing.T) {
			c.Call(t, "greet", map[string]any{"name": 5}).WantError(t, `invalid arguments for tool "greet": "count" is required; "name" must be a string`)
			c.Call(t, "greet", map[string]any{"name": "Ada", "extra": 1}).WantError(t, `"extra" is not a property of the form`)
		})
		t.Run("without AskMissing", func(t *testing.T) {
			c.Call(t, "plain", map[string]any{"name": "Ada"}).WantError(t, `invalid arguments for tool "plain": "count" is required`)
		})
	})
}

// TestAskMissingCannotAsk: a client without form elicitation gets the
// missing arguments named, on every protocol; nothing is asked.
func TestAskMissingCannotAsk(t *testing.T) {
	var runs atomic.Int32
	s := elicittest.NewServer(t, askMissingServer(&runs))
	for _, version := range elicittest.Protocols() {
		t.Run(version, func(t *testing.T) {
			c := s.Connect(t, elicittest.Conn{Protocol: version, Elicitation: elicittest.NoElicitation})
			res := c.Call(t, "greet", map[string]any{"name": "Ada"})
			res.WantError(t, "missing required argument: count")
			if res.Text != "missing required argument: count" || len(res.Asked()) != 0 {
				t.Errorf("got %q after %d questions", res.Text, len(res.Asked()))
			}
			c.Call(t, "greet", nil).WantError(t, "missing required arguments: name, count")
		})
	}
	if runs.Load() != 0 {
		t.Error("the handler ran")
	}
}

// TestToolArgs: the adapters' kit. A nil ToolArgs refuses to decode with
// the fix; AskMissing on arguments that are no form is refused (AddTool
// panics with the error); a form's decoder lists the form's schema and asks.
func TestToolArgs(t *testing.T) {
	var zero *runtime.ToolArgs[testform.AskForm]
	if zero.Asks() || zero.InputSchema() != nil {
		t.Error("a nil ToolArgs asks or has a schema")
	}
	if _, res, err := zero.Decode(context.Background(), nil); res != nil || err == nil || !strings.Contains(err.Error(), "runtime.NewToolArgs") {
		t.Errorf("nil ToolArgs: %v, %v", res, err)
	}
	type untyped struct {
		Name string `json:"name"`
	}
	plain, err := runtime.NewToolArgs[untyped]("plain", nil, runtime.AskMissing(""))
	if err == nil || !strings.Contains(err.Error(), "generated form type") || plain != nil {
		t.Errorf("AskMissing on no form: %v, %v", err, plain)
	}
	form, err := runtime.NewToolArgs[testform.AskForm]("greet", nil, runtime.AskMissing(""))
	if err != nil || !form.Asks() {
		t.Fatalf("form: %v, asks %v", err, form.Asks())
	}
	if _, required := schemaShape(t, form.InputSchema()); len(required) != 0 {
		t.Errorf("schema %s", form.InputSchema())
	}
	_, res, err := form.Decode(context.Background(), json.RawMessage(`{"name":"Ada"}`))
	if err != nil || res == nil || !res.IsError || res.Content[0].Text != "missing required argument: count" {
		t.Errorf("a client that cannot be asked: %+v, %v", res, err)
	}
}
