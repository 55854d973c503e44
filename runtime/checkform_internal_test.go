package runtime

import (
	"errors"
	"testing"
)

func TestCheckForm(t *testing.T) {
	cases := []struct {
		version               string
		declared, form, url   bool
		ok, missingCapability bool
	}{
		{"2025-06-18", true, false, false, true, false},
		{"2025-11-25", true, false, false, true, false}, // {} means form
		{"2025-11-25", true, true, true, true, false},
		{"2025-11-25", true, false, true, false, true}, // url only
		{"2026-07-28", false, false, false, false, true},
		{"2026-07-28", false, true, false, false, true}, // modes without the capability count for nothing
		{"2025-03-26", true, true, false, false, false}, // no elicitation in the version
		{"", true, true, false, false, false},
	}
	for _, tc := range cases {
		err := checkForm(tc.version, elicitCapsOf(tc.declared, tc.form, tc.url).form)
		var mc *MissingCapabilityError
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrElicitUnsupported)) ||
			errors.As(err, &mc) != tc.missingCapability || (mc != nil && mc.Mode != "form") {
			t.Errorf("checkForm(%q, %v, %v, %v) = %v", tc.version, tc.declared, tc.form, tc.url, err)
		}
	}
}

func TestElicitKey(t *testing.T) {
	if k := elicitOptionsOf("peer_form", nil).key; k != "peer_form" {
		t.Errorf("default: %q", k)
	}
	if k := elicitOptionsOf("peer_form", []ElicitOption{WithKey("a"), WithKey("b")}).key; k != "b" {
		t.Errorf("last WithKey wins: %q", k)
	}
}
