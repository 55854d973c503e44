package formcore

import (
	"errors"
	"testing"
)

func TestCheckDropped(t *testing.T) {
	v := Variant{Version: "2025-06-18", Dropped: []string{"notify", "tags"}}
	for _, tc := range []struct {
		content string
		want    string // "" for no error
	}{
		{`{"name":"x"}`, ""},
		{`declined`, ""},
		{`{}`, ""},
		{`[1]`, ""}, // ElicitDecode's to report
		{`{"notify":["a"],"name":"x"}`, `elicit: invalid content: "notify" was not asked: protocol 2025-06-18 cannot carry it, so the form leaves it out`},
		{`{"tags":[],"notify":"z"}`, `elicit: invalid content: "notify" was not asked: protocol 2025-06-18 cannot carry it, so the form leaves it out; "tags" was not asked: protocol 2025-06-18 cannot carry it, so the form leaves it out`},
	} {
		result := `{"action":"accept","content":` + tc.content + `}`
		if tc.content == "declined" {
			result = `{"action":"decline"}`
		}
		err := v.CheckDropped([]byte(result))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want nil", tc.content, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrInvalidContent)):
			t.Errorf("%s: got %v\nwant %s", tc.content, err, tc.want)
		}
	}
	if err := (Variant{}).CheckDropped([]byte(`{"action":"accept","content":{"notify":1}}`)); err != nil {
		t.Errorf("a variant that dropped nothing refused: %v", err)
	}
}
