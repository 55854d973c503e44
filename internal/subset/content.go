package subset

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

func ceil(f float64) float64  { return math.Ceil(f) }
func floor(f float64) float64 { return math.Floor(f) }

// ValidateContent checks the content of an accepted answer against a schema
// that passed Check: unknown keys rejected, required present, JSON types
// (integer must be integral), enum / oneOf const membership,
// minLength/maxLength in Unicode code points, minimum/maximum, formats, array
// items membership (no repeats), minItems/maxItems. A null value is a type
// error: ElicitResult content holds only strings, numbers, booleans and
// string arrays. One Violation per failing property (Property set, Path
// "/<name>"), sorted by Property. content nil with required properties gives
// one violation per required property.
//
// Valid content allocates nothing, so the runtime can call this on every
// answer.
func ValidateContent(schema map[string]any, content map[string]any) []Violation {
	props, _ := schema["properties"].(map[string]any)
	var out []Violation
	add := func(name, msg string) {
		out = append(out, Violation{Path: "/" + pointerToken(name), Property: name, Message: msg})
	}
	if req, ok := asList(schema["required"]); ok {
		for i := range req.Len() {
			name, ok := req.At(i).(string)
			if !ok {
				continue
			}
			if _, present := content[name]; !present {
				add(name, "is required")
			}
		}
	}
	for name, v := range content {
		p, ok := props[name].(map[string]any)
		if !ok {
			add(name, "is not a field of the form")
			continue
		}
		if msg := valueProblem(p, v); msg != "" {
			add(name, msg)
		}
	}
	if len(out) > 1 {
		// Each property fails once: no two have the same Property, and an
		// unstable sort (n log n) gives the one order.
		slices.SortFunc(out, func(a, b Violation) int { return strings.Compare(a.Property, b.Property) })
	}
	return out
}

// valueProblem returns what is wrong with v as a value of property p, or "".
func valueProblem(p map[string]any, v any) string {
	k := kindOf(p)
	switch k {
	case kindString, kindEnum, kindTitled:
		s, ok := v.(string)
		if !ok {
			return "must be a string, not " + typeName(v)
		}
		if k == kindString {
			return stringProblem(p, s)
		}
		var options list
		if k == kindEnum {
			options, _ = asList(p["enum"])
		} else {
			options, _ = asList(p["oneOf"])
		}
		if !hasOption(options, k == kindTitled, s) {
			return "must be one of " + quoteList(optionValues(k, p))
		}
	case kindNumber, kindInteger:
		if !isNumber(v) {
			if k == kindInteger {
				return "must be an integer, not " + typeName(v)
			}
			return "must be a number, not " + typeName(v)
		}
		f, ok := number(v)
		if !ok {
			return "must be a finite number"
		}
		return numberProblem(p, k == kindInteger, f)
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			return "must be true or false, not " + typeName(v)
		}
	case kindMulti:
		l, ok := asList(v)
		if !ok {
			return "must be an array of strings, not " + typeName(v)
		}
		return multiProblem(p, l, nil)
	default:
		return "has no valid schema"
	}
	return ""
}

// hasOption reports whether s is one of options: strings (enum) or
// {const, title} objects (oneOf / anyOf), without allocating.
func hasOption(options list, titled bool, s string) bool {
	for i := range options.Len() {
		o := options.At(i)
		if titled {
			m, _ := o.(map[string]any)
			o = m["const"]
		}
		if c, ok := o.(string); ok && c == s {
			return true
		}
	}
	return false
}

// stringProblem checks a string value against a plain string property's
// length bounds (in code points) and format.
func stringProblem(p map[string]any, s string) string {
	n := -1
	if lo, ok := countBound(p, "minLength"); ok {
		n = utf8.RuneCountInString(s)
		if float64(n) < lo {
			return "must be at least " + plural(lo, "character")
		}
	}
	if hi, ok := countBound(p, "maxLength"); ok {
		if n < 0 {
			n = utf8.RuneCountInString(s)
		}
		if float64(n) > hi {
			return "must be at most " + plural(hi, "character")
		}
	}
	if f, ok := p["format"].(string); ok && isKnownFormat(f) {
		if err := CheckFormat(f, s); err != nil {
			return err.Error()
		}
	}
	return ""
}

// numberProblem checks a number against integrality and bounds.
func numberProblem(p map[string]any, integer bool, f float64) string {
	if integer && !integral(f) {
		return "must be an integer"
	}
	if lo, ok := bound(p, "minimum"); ok && f < lo {
		return "must be at least " + fmtNum(lo)
	}
	if hi, ok := bound(p, "maximum"); ok && f > hi {
		return "must be at most " + fmtNum(hi)
	}
	return ""
}

// multiProblem checks a multi-select answer (or default): strings, each an
// option, none repeated, count within minItems/maxItems. options may be nil;
// they are then read from the schema without allocating.
func multiProblem(p map[string]any, l list, options []string) string {
	items, _ := p["items"].(map[string]any)
	var opts list
	titled := false
	if a, ok := items["anyOf"]; ok {
		opts, _ = asList(a)
		titled = true
	} else {
		opts, _ = asList(items["enum"])
	}
	for i := range l.Len() {
		s, ok := l.At(i).(string)
		if !ok {
			return fmt.Sprintf("item %d must be a string, not %s", i, typeName(l.At(i)))
		}
		if options != nil {
			if !member(options, s) {
				return fmt.Sprintf("item %d (%q) must be one of %s", i, Clip(s), quoteList(options))
			}
		} else if !hasOption(opts, titled, s) {
			return fmt.Sprintf("item %d (%q) must be one of %s", i, Clip(s), quoteList(optionValues(kindMulti, p)))
		}
		// Quadratic, but selections are short and this keeps the check
		// allocation-free.
		for j := range i {
			if t, _ := l.At(j).(string); t == s {
				return RepeatedItem(i, s)
			}
		}
	}
	n := float64(l.Len())
	if lo, ok := countBound(p, "minItems"); ok && n < lo {
		return "must have at least " + plural(lo, "item")
	}
	if hi, ok := countBound(p, "maxItems"); ok && n > hi {
		return "must have at most " + plural(hi, "item")
	}
	return ""
}

// RepeatedItem is the problem of a multi-select answer whose item i names
// option s again: the one wording of the rule, for the content check here
// and for the generated decoders (runtime/formimpl). A long s is clipped.
func RepeatedItem(i int, s string) string { return fmt.Sprintf("item %d repeats %q", i, Clip(s)) }

// MaxEcho is how many bytes of a name or value from the client an error
// message repeats (see Clip): a reply must not grow with the request.
const MaxEcho = 64

// Clip is ClipTo(s, MaxEcho).
func Clip(s string) string { return ClipTo(s, MaxEcho) }

// ClipTo returns s when it is short, and otherwise a prefix of it, cut at
// a character boundary and followed by "…" to mark the cut. Short means at
// most n bytes as s may end up written, quoted (strconv.Quote) inside a
// JSON string that escapes HTML: a character that either escapes counts 6
// bytes, so that the reply that carries the message, too, does not grow
// with what the client sent. Invalid UTF-8 in the kept part stays as it
// is: the JSON encoder replaces it.
func ClipTo(s string, n int) string {
	size := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		cost := w
		switch {
		case r == '<' || r == '>' || r == '&' || r == '"' || r == '\\':
			cost = 6
		case r == utf8.RuneError && w == 1, !unicode.IsPrint(r):
			cost = 12
		}
		if size+cost > n {
			return s[:i] + "…"
		}
		size += cost
		i += w
	}
	return s
}
