package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestChoicesOptionalMultiSelectDropped: an optional run-time multi-select
// is left out of a 2025-06-18 client's form like any optional multi-select,
// its choices given or not, and Dropped names it; later versions get the
// call's choices.
func TestChoicesOptionalMultiSelectDropped(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "tags", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "tag"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[testform.TagForm](ctx, "Tag whom?", runtime.WithChoices(testform.TagForm_Tags, runtime.Choice{Value: "red"}, runtime.Choice{Value: "blue"}))
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("%s %q dropped %q", f.Name, f.Tags, runtime.Dropped[testform.TagForm](ctx))), nil
	})
	elicittest.NewServer(t, srv).Each(t, func(t *testing.T, c *elicittest.Client) {
		if c.Protocol() == runtime.Version20250618 {
			res := c.Call(t, "tag", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
				const want = `{"type":"object","properties":{"name":{"type":"string","description":"Who it is for."}},"required":["name"]}`
				if string(e.Schema) != want {
					t.Errorf("schema\n%s\nwant\n%s", e.Schema, want)
				}
				return elicittest.AcceptRaw(`{"name":"ada"}`)
			}))
			res.WantText(t, `ada [] dropped ["tags"]`)
			return
		}
		c.Call(t, "tag", nil, elicittest.Accept(testform.TagForm{Name: "ada", Tags: []string{"blue"}})).WantText(t, `ada ["blue"] dropped []`)
	})
}

// TestDroppedIgnoresCallDefault: a 2025-06-18 client is not asked TagForm's
// tags, so it is never shown their WithDefaults value either: the answer
// does not get it, on that version only.
func TestDroppedIgnoresCallDefault(t *testing.T) {
	for _, v := range elicittest.Protocols() {
		fc, err := runtime.PrepareElicit[testform.TagForm](v,
			runtime.WithChoices(testform.TagForm_Tags, runtime.Choice{Value: "red"}),
			runtime.WithDefaults(testform.TagForm{Tags: []string{"red"}}))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		f, err := fc.Decode([]byte(`{"action":"accept","content":{"name":"ada"}}`))
		want := []string{"red"}
		if v == runtime.Version20250618 {
			want = nil
		}
		if err != nil || !slices.Equal(f.Tags, want) {
			t.Errorf("%s: %+v, %v; want tags %q", v, f, err, want)
		}
	}
}
