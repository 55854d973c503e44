package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// downgradeServer has two tools: "notify" asks NotifyForm, whose optional
// multi-select a 2025-06-18 client cannot carry, and reports what Dropped
// and CanElicit said; "families" asks FamiliesForm, whose multi-select is
// required.
func downgradeServer() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "downgrade"})
	srv.AddTool(runtime.Tool{Name: "notify"}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		can := runtime.CanElicit[testform.NotifyForm](ctx)
		dropped := runtime.Dropped[testform.NotifyForm](ctx)
		f, err := runtime.Elicit[testform.NotifyForm](ctx, "Deploy what?")
		if err != nil {
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(fmt.Sprintf("service=%s notify=%q dropped=%q canElicit=%v", f.Service, f.Notify, dropped, can)), nil
	})
	srv.AddTool(runtime.Tool{Name: "families"}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		if err := runtime.CanElicit[testform.FamiliesForm](ctx); err != nil {
			return runtime.ErrorResult("cannot ask: %v (unsupported=%v, dropped=%q)", err, errors.Is(err, runtime.ErrElicitUnsupported), runtime.Dropped[testform.FamiliesForm](ctx)), nil
		}
		f, err := runtime.Elicit[testform.FamiliesForm](ctx, "Which families?")
		if err != nil {
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(fmt.Sprintf("families=%q", f.Families)), nil
	})
	return srv
}

// TestDowngradeDropsOptionalMultiSelect: on every protocol and transport, a
// 2025-06-18 client is asked NotifyForm without its optional multi-select
// (really absent from the schema it receives), the field stays empty, and
// Dropped names it while CanElicit is nil; newer clients are asked all of
// it. An answer with the dropped property anyway is refused by name.
func TestDowngradeDropsOptionalMultiSelect(t *testing.T) {
	elicittest.NewServer(t, downgradeServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		old := c.Protocol() == runtime.Version20250618
		answer := map[string]any{"service": "web"}
		if !old {
			answer["notify"] = []string{"ipv6-unicast"}
		}
		res := c.Call(t, "notify", nil, elicittest.AcceptRaw(answer))
		asked := res.Asked()
		if len(asked) != 1 {
			t.Fatalf("asked %d times, want once", len(asked))
		}
		got, _ := schemaShape(t, asked[0].Schema)
		if old {
			if want := []string{"service"}; !slices.Equal(got, want) {
				t.Errorf("2025-06-18 schema has %q, want %q: %s", got, want, asked[0].Schema)
			}
			if strings.Contains(string(asked[0].Schema), "notify") {
				t.Errorf("the dropped property is in the schema: %s", asked[0].Schema)
			}
			res.WantText(t, `service=web notify=[] dropped=["notify"] canElicit=<nil>`)

			bad := c.Call(t, "notify", nil, elicittest.AcceptRaw(`{"service":"web","notify":["ipv4-unicast"]}`))
			bad.WantError(t, `"notify" was not asked: protocol 2025-06-18 cannot carry it, so the form leaves it out`)
			return
		}
		if want := []string{"notify", "service"}; !slices.Equal(got, want) {
			t.Errorf("%s schema has %q, want %q", c.Protocol(), got, want)
		}
		res.WantText(t, `service=web notify=["ipv6-unicast"] dropped=[] canElicit=<nil>`)
	})
}

// TestDowngradeRequiredMultiSelectUnsupported: a required multi-select is
// not dropped: a 2025-06-18 client cannot be asked the form at all
// (ErrElicitUnsupported, nothing sent, Dropped nil).
func TestDowngradeRequiredMultiSelectUnsupported(t *testing.T) {
	elicittest.NewServer(t, downgradeServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		if c.Protocol() != runtime.Version20250618 {
			c.Call(t, "families", nil, elicittest.Accept(testform.FamiliesForm{Families: []testform.Family{testform.IPv4Unicast}})).
				WantText(t, `families=["ipv4-unicast"]`)
			return
		}
		res := c.Call(t, "families", nil)
		res.WantError(t, `cannot ask: elicit: not supported by this client: form testform.FamiliesForm: multi-select (property "families") needs protocol 2025-11-25 (unsupported=true, dropped=[])`)
		if n := len(res.Asked()); n != 0 {
			t.Errorf("asked %d times, want none", n)
		}
	})
}

// TestElicitSchemaDropsOptionalMultiSelect: a hand-built schema gets the
// same downgrade through ElicitSchema.
func TestElicitSchemaDropsOptionalMultiSelect(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "schema"})
	schema := map[string]any{"type": "object", "required": []any{"service"}, "properties": map[string]any{
		"service": map[string]any{"type": "string"},
		"notify":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
	}}
	srv.AddTool(runtime.Tool{Name: "ask"}, func(ctx context.Context, _ *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		v, err := runtime.ElicitSchema(ctx, "Deploy what?", schema)
		if err != nil {
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(fmt.Sprint(v)), nil
	})
	s := elicittest.NewServer(t, srv)
	c := s.Connect(t, elicittest.Conn{Protocol: runtime.Version20250618})
	res := c.Call(t, "ask", nil, elicittest.AcceptRaw(`{"service":"web"}`))
	res.WantText(t, "map[service:web]")
	if got, _ := schemaShape(t, res.Asked()[0].Schema); !slices.Equal(got, []string{"service"}) {
		t.Errorf("schema has %q, want only service", got)
	}
	c.Call(t, "ask", nil, elicittest.AcceptRaw(`{"service":"web","notify":["a"]}`)).WantError(t, `"notify"`)
	c = s.Connect(t, elicittest.Conn{Protocol: runtime.Version20251125})
	c.Call(t, "ask", nil, elicittest.AcceptRaw(`{"service":"web","notify":["a"]}`)).WantText(t, "map[notify:[a] service:web]")
}

// TestDroppedOutsideACall: a ctx of no call (or nil) drops nothing.
func TestDroppedOutsideACall(t *testing.T) {
	//nolint:staticcheck // a nil ctx is what the test is about
	for _, ctx := range []context.Context{nil, context.Background()} {
		if d := runtime.Dropped[testform.NotifyForm](ctx); d != nil {
			t.Errorf("runtime.Dropped = %q", d)
		}
	}
}
