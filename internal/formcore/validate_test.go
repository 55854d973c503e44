package formcore

import (
	"strings"
	"testing"
)

// TestValidateVarUnits checks that size tags the validator enforces are
// worded in the unit of the value, like the decoder's own bounds.
func TestValidateVarUnits(t *testing.T) {
	cases := []struct {
		value any
		tag   string
		want  string
	}{
		{"ab", "min=3", `"p" must be at least 3 characters`},
		{"abcd", "max=3", `"p" must be at most 3 characters`},
		{"ab", "min=1,len=1", `"p" must be exactly 1 character`},
		{"ab", "gt=2", `"p" must be more than 2 characters`},
		{"ab", "lt=2", `"p" must be fewer than 2 characters`},
		{"😀", "min=2", `"p" must be at least 2 characters`}, // runes, as the schema counts
		{[]string{"a"}, "min=2", `"p" must have at least 2 items`},
		{[]string{"a", "b"}, "max=1", `"p" must have at most 1 item`},
		{map[string]int{}, "gt=0", `"p" must have more than 0 items`},
		{2, "min=3", `"p" must be at least 3`},
		{2.5, "max=1.5", `"p" must be at most 1.5`},
		{int64(0), "gt=0", `"p" must be greater than 0`},
		{5, "len=3", `"p" must have length 3`},
	}
	for _, c := range cases {
		var d Decoder
		d.Reset([]byte(`{}`))
		d.ValidateVar("p", c.value, c.tag)
		err := d.Err()
		if err == nil {
			t.Errorf("%v with %q: no problem", c.value, c.tag)
			continue
		}
		if got := err.Error(); !strings.HasSuffix(got, c.want) {
			t.Errorf("%v with %q: %s; want it to end in %s", c.value, c.tag, got, c.want)
		}
	}
}

func TestValidationProblemsUnits(t *testing.T) {
	type form struct {
		Reason string   `json:"reason" validate:"min=3"`
		Tags   []string `json:"tags" validate:"max=1"`
	}
	err := ValidationProblems(Validator().Struct(&form{Reason: "no", Tags: []string{"a", "b"}}))
	want := `"reason" must be at least 3 characters; "tags" must have at most 1 item`
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("ValidationProblems = %v; want it to end in %s", err, want)
	}
}
