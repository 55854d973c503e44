package adaptertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// NotifyTool is the text the tool "notify" answers: it asked
// testform.NotifyForm and got f, after the adapter's Dropped and CanElicit
// said dropped and can.
func NotifyTool(f testform.NotifyForm, dropped []string, can error) string {
	return fmt.Sprintf("service=%s notify=%q dropped=%q canElicit=%v", f.Service, f.Notify, dropped, can)
}

// Downgrade drives the tool "notify" (see NotifyTool) of the adapted
// server h on every protocol: a 2025-06-18 client gets NotifyForm's schema
// without its optional multi-select, the handler's Dropped names it, and an
// answer that has it anyway is refused by name; newer clients are asked
// the whole form.
func Downgrade(t *testing.T, h http.Handler) {
	t.Helper()
	elicittest.NewServer(t, h).Each(t, func(t *testing.T, c *elicittest.Client) {
		old := c.Protocol() == runtime.Version20250618
		answer := `{"service":"web","notify":["ipv6-unicast"]}`
		if old {
			answer = `{"service":"web"}`
		}
		res := c.Call(t, "notify", nil, elicittest.AcceptRaw(answer))
		asked := res.Asked()
		if len(asked) != 1 {
			t.Fatalf("asked %d times, want once", len(asked))
		}
		var schema struct{ Properties map[string]json.RawMessage }
		if err := json.Unmarshal(asked[0].Schema, &schema); err != nil {
			t.Fatal(err)
		}
		_, hasNotify := schema.Properties["notify"]
		if _, ok := schema.Properties["service"]; !ok || hasNotify == old {
			t.Errorf("%s got the schema %s", c.Protocol(), asked[0].Schema)
		}
		if !old {
			res.WantText(t, `service=web notify=["ipv6-unicast"] dropped=[] canElicit=<nil>`)
			return
		}
		res.WantText(t, `service=web notify=[] dropped=["notify"] canElicit=<nil>`)
		bad := c.Call(t, "notify", nil, elicittest.AcceptRaw(`{"service":"web","notify":["ipv4-unicast"]}`))
		if !bad.IsError || !strings.Contains(bad.Text, `"notify" was not asked: protocol 2025-06-18 cannot carry it`) {
			t.Errorf("an answer with the dropped property: got %q (isError %v)", bad.Text, bad.IsError)
		}
	})
}
