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

// TestStringID: a response's id reads as json.Unmarshal reads it into a
// string, escapes and invalid UTF-8 included; ids that are not strings do
// not read.
func TestStringID(t *testing.T) {
	for _, id := range []string{`"elicit-0a1b"`, `""`, `"elicit-\u0061b"`, `"a\"b\\c"`, "\"\xff\xfe\"", `"é😀"`, `1`, `-2.5e3`, `null`, `true`, `{}`, `"open`, `"a" `} {
		got, ok := stringID(json.RawMessage(id))
		var want string
		wantOK := json.Unmarshal([]byte(id), &want) == nil && strings.HasPrefix(id, `"`) && strings.HasSuffix(id, `"`) && len(id) > 1
		if ok != wantOK || ok && string(got) != want {
			t.Errorf("stringID(%s) = %q, %v; want %q, %v", id, got, ok, want, wantOK)
		}
	}
}
