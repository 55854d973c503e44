package runtime

import (
	"encoding/json"
	"slices"

	"github.com/go-elicit/elicit/internal/roundtrip"

	"github.com/go-elicit/elicit/internal/subset"
)

// Protocol versions this runtime speaks.
const (
	Version20250326 = subset.V2025_03_26
	Version20250618 = subset.V2025_06_18
	Version20251125 = subset.V2025_11_25
	Version20260728 = subset.V2026_07_28
)

// sessionVersions are negotiated by initialize, newest first.
var sessionVersions = []string{Version20251125, Version20250618, Version20250326}

// latestSessionVersion is what initialize answers when the client asks for a
// version this server does not speak.
const latestSessionVersion = Version20251125

func isSessionVersion(v string) bool { return slices.Contains(sessionVersions, v) }

// negotiate picks the version to answer an initialize with.
func negotiate(requested string) string {
	if isSessionVersion(requested) {
		return requested
	}
	return latestSessionVersion
}

// hasFormElicitation reports whether version v defines form elicitation.
func hasFormElicitation(v string) bool { return slices.Contains(subset.FormVersions, v) }

// hasElicitMode reports whether version v has the elicitation "mode" field
// (and URL mode): 2025-11-25 and later.
func hasElicitMode(v string) bool { return v >= Version20251125 }

// elicitCaps is what a client declared it can do for elicitation.
type elicitCaps struct {
	form bool
	url  bool
}

// parseElicitCaps reads capabilities.elicitation as the spec defines it: the
// key present means form; 2025-11-25 adds {form?:{}, url?:{}} where {} still
// means form only.
func parseElicitCaps(capabilities json.RawMessage) elicitCaps {
	if c, ok := parseElicitCapsFast(capabilities); ok {
		return c
	}
	var c struct {
		Elicitation *struct {
			Form json.RawMessage `json:"form"`
			URL  json.RawMessage `json:"url"`
		} `json:"elicitation"`
	}
	if len(capabilities) == 0 || roundtrip.StrictUnmarshal(capabilities, &c) != nil || c.Elicitation == nil {
		return elicitCaps{}
	}
	e := c.Elicitation
	declared := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	return elicitCapsOf(true, declared(e.Form), declared(e.URL))
}

// elicitCapsOf applies the spec's reading to what a client declared:
// declared is capabilities.elicitation present, form and url its keys.
func elicitCapsOf(declared, form, url bool) elicitCaps {
	if !declared {
		return elicitCaps{}
	}
	if !form && !url {
		form = true
	}
	return elicitCaps{form: form, url: url}
}

// parseElicitCapsFast is parseElicitCaps in one pass over the bytes for
// the capabilities clients send; ok is false for what it leaves to
// encoding/json (invalid JSON, duplicates, keys that differ only in case,
// an elicitation that is neither an object nor null).
func parseElicitCapsFast(capabilities json.RawMessage) (elicitCaps, bool) {
	i := roundtrip.SkipSpace(capabilities, 0)
	var elicitation json.RawMessage
	end, ok := roundtrip.EachMember(capabilities, i, func(key, value []byte) bool {
		switch {
		case string(key) == "elicitation":
			if elicitation != nil {
				return false
			}
			elicitation = value
			return true
		default:
			return !foldsToAny(key, []string{"elicitation"})
		}
	})
	if !ok || roundtrip.SkipSpace(capabilities, end) != len(capabilities) {
		return elicitCaps{}, false
	}
	switch {
	case elicitation == nil || string(elicitation) == "null":
		return elicitCaps{}, true
	case elicitation[0] != '{':
		return elicitCaps{}, false // a type error: encoding/json says so
	}
	var form, url json.RawMessage
	if _, ok := roundtrip.EachMember(elicitation, 0, func(key, value []byte) bool {
		switch string(key) {
		case "form":
			if form != nil {
				return false
			}
			form = value
		case "url":
			if url != nil {
				return false
			}
			url = value
		default:
			return !foldsToAny(key, []string{"form", "url"})
		}
		return true
	}); !ok {
		return elicitCaps{}, false
	}
	declared := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	return elicitCapsOf(true, declared(form), declared(url)), true
}
