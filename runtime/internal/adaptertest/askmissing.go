package adaptertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// AskMissingMessage is the message the tool "greet" of AskMissing asks
// with: runtime.AskMissing(AskMissingMessage).
const AskMissingMessage = "Who, how often?"

// GreetTool is the text the tool "greet" answers for its arguments in.
func GreetTool(in testform.AskForm) string { return fmt.Sprintf("%s x%d", in.Name, in.Count) }

// AskMissing drives the tool "greet" of the server h (runtime's or an
// adapted one) on every
// protocol: its arguments are testform.AskForm (name and count, both
// required), registered with runtime.AskMissing(AskMissingMessage); its
// handler answers GreetTool and adds one to runs. Only the missing
// arguments are asked, the given ones are kept, the handler runs once; a
// decline is an isError result without running it; a client without
// elicitation gets "missing required argument: count"; tools/list shows
// them optional, their descriptions saying they are asked for.
func AskMissing(t *testing.T, h http.Handler, runs *atomic.Int32) {
	t.Helper()
	elicittest.NewServer(t, h).Each(t, func(t *testing.T, c *elicittest.Client) {
		for _, tc := range []struct {
			name   string
			args   any
			answer string
			asked  []string
			want   string
		}{
			{"one missing", map[string]any{"name": "Ada"}, `{"count":3}`, []string{"count"}, "Ada x3"},
			{"all missing", nil, `{"name":"Bo","count":2}`, []string{"count", "name"}, "Bo x2"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				runs.Store(0)
				res := c.Call(t, "greet", tc.args, elicittest.AcceptRaw(tc.answer))
				res.WantText(t, tc.want)
				res.WantAsked(t, AskMissingMessage)
				if asked := res.Asked(); len(asked) == 1 {
					var s struct {
						Properties map[string]json.RawMessage
						Required   []string
					}
					if err := json.Unmarshal(asked[0].Schema, &s); err != nil {
						t.Fatal(err)
					}
					var props []string
					for p := range s.Properties {
						props = append(props, p)
					}
					slices.Sort(props)
					slices.Sort(s.Required)
					if !slices.Equal(props, tc.asked) || !slices.Equal(s.Required, tc.asked) {
						t.Errorf("asked %s, want only %q, required", asked[0].Schema, tc.asked)
					}
				}
				if n := runs.Load(); n != 1 {
					t.Errorf("the handler ran %d times, want once", n)
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
			res := c.Call(t, "greet", map[string]any{"name": "Ada", "count": 1})
			res.WantText(t, "Ada x1")
			res.WantAsked(t)
		})
		t.Run("other problems are not asked about", func(t *testing.T) {
			c.Call(t, "greet", map[string]any{"name": 5}).WantError(t, `invalid arguments for tool "greet": "count" is required; "name" must be a string`)
		})
	})
	srv := elicittest.NewServer(t, h)
	for _, v := range Versions {
		t.Run("no elicitation/"+v, func(t *testing.T) {
			runs.Store(0)
			c := srv.Connect(t, elicittest.Conn{Protocol: v, Elicitation: elicittest.NoElicitation})
			c.Call(t, "greet", map[string]any{"name": "Ada"}).WantError(t, "missing required argument: count")
			c.Call(t, "greet", nil).WantError(t, "missing required arguments: name, count")
			if runs.Load() != 0 {
				t.Error("the handler ran")
			}
		})
	}
	t.Run("tools/list", func(t *testing.T) {
		// What AskMissing asks for is optional, so that a UI client lets
		// the user call without it.
		schema := listedSchema(t, srv, "greet")
		if req := asStrings(schema["required"]); len(req) != 0 {
			t.Errorf("greet lists required %q: %v", req, schema)
		}
		props, _ := schema["properties"].(map[string]any)
		for _, name := range []string{"count", "name"} {
			p, _ := props[name].(map[string]any)
			if d, _ := p["description"].(string); !strings.HasSuffix(d, "Asked for when missing.") {
				t.Errorf("greet's %s says %q, not that it is asked for: %v", name, d, schema)
			}
		}
	})
}
