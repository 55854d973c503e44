package gen

import (
	"strings"
	"testing"
)

// The "did you mean" list for validate tags must name only rules the
// validator has, or a hint would send the user to another error.
func TestValidateRulesKnown(t *testing.T) {
	for _, r := range validateRules {
		tag := r
		switch r {
		case "len", "min", "max", "eq", "eq_ignore_case", "ne", "ne_ignore_case", "lt", "lte", "gt", "gte",
			"contains", "containsany", "containsrune", "excludes", "excludesall", "excludesrune",
			"startswith", "endswith", "startsnotwith", "endsnotwith", "oneof", "oneofci", "noneof", "datetime":
			tag = r + "=1"
		case "dive":
			if err := tryValidator([]string{}, "dive,required"); err != nil {
				t.Errorf("dive: %v", err)
			}
			continue
		}
		if err := tryValidator("", tag); err != nil && strings.Contains(err.Error(), "Undefined") {
			t.Errorf("validate rule %q is not known to the validator: %v", r, err)
		}
	}
}
