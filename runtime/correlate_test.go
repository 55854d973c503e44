package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestReplicaOf(t *testing.T) {
	for id, want := range map[string]string{
		`"elicit-r1.00ff"`:      "r1",
		`"elicit-web-2_a.1234"`: "web-2_a",
		`"elicit-00ff"`:         "",
		`"elicit-.00ff"`:        "",
		`"elicit-bad id.00ff"`:  "",
		`"other-r1.00ff"`:       "",
		`7`:                     "",
		`"elicit-r1"`:           "",
		`"elicit-a*b.00"`:       "",
		`"elicit-` + strings.Repeat("x", 65) + `.1"`: "",
	} {
		if got := replicaOf(json.RawMessage(id)); got != want {
			t.Errorf("replicaOf(%s) = %q, want %q", id, got, want)
		}
	}
}
