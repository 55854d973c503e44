package subset

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
)

// list views the array shapes a schema may hold without copying them:
// decoded JSON gives []any, hand-built Go schemas often use []string or
// []map[string]any.
type list struct {
	a []any
	s []string
	m []map[string]any
}

func asList(v any) (list, bool) {
	switch x := v.(type) {
	case []any:
		return list{a: x}, true
	case []string:
		return list{s: x}, true
	case []map[string]any:
		return list{m: x}, true
	}
	return list{}, false
}

func (l list) Len() int {
	switch {
	case l.a != nil:
		return len(l.a)
	case l.s != nil:
		return len(l.s)
	}
	return len(l.m)
}

func (l list) At(i int) any {
	switch {
	case l.a != nil:
		return l.a[i]
	case l.s != nil:
		return l.s[i]
	}
	return l.m[i]
}

// strings returns the string members of l, skipping others.
func (l list) strings() []string {
	if l.s != nil {
		return l.s
	}
	out := make([]string, 0, l.Len())
	for i := range l.Len() {
		if s, ok := l.At(i).(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// number reports v as a finite float64. Go integer and float types are
// accepted for hand-built schemas; bool never is.
func number(v any) (float64, bool) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case json.Number:
		var err error
		if f, err = strconv.ParseFloat(string(n), 64); err != nil {
			return 0, false
		}
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int8:
		f = float64(n)
	case int16:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint8:
		f = float64(n)
	case uint16:
		f = float64(n)
	case uint32:
		f = float64(n)
	case uint64:
		f = float64(n)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// isNumber reports whether v is a number of any accepted representation,
// finite or not, so messages can tell "not a number" from "not finite".
func isNumber(v any) bool {
	switch v.(type) {
	case float64, json.Number, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// integral reports whether f is a mathematical integer, as JSON Schema's
// "integer" means: 1.0 is one.
func integral(f float64) bool { return f == math.Trunc(f) }

// fmtNum prints a number the way a person wrote it: 5, 2.5, 1e+300.
func fmtNum(f float64) string {
	if math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// pointerToken escapes a key for use in a JSON Pointer (RFC 6901).
func pointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// quoteList renders options for a message: "a", "b", "c" (at most 10).
func quoteList(items []string) string {
	const max = 10
	var b strings.Builder
	for i, s := range items {
		if i == max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(s))
	}
	return b.String()
}

// plural gives "1 item" / "2 items".
func plural(n float64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmtNum(n) + " " + word + "s"
}

// typeName names a decoded JSON value's type for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	}
	if isNumber(v) {
		return "a number"
	}
	if _, ok := asList(v); ok {
		return "an array"
	}
	return "an unsupported value"
}
