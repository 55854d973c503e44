package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime/elicittest"
)

// RichArgs is an arguments struct that is not a form, with a constraint of
// each kind invopop/jsonschema reflects into its inputSchema.
type RichArgs struct {
	Name  string    `json:"name" jsonschema:"minLength=3,maxLength=8"`
	Code  string    `json:"code" jsonschema:"pattern=^[a-z]+[0-9]$"`
	Level string    `json:"level,omitempty" jsonschema:"enum=low,enum=high"`
	Count int       `json:"count,omitempty" jsonschema:"minimum=1,maximum=5"`
	Ratio float64   `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
	Step  int       `json:"step,omitempty" jsonschema:"multipleOf=5"`
	Mail  string    `json:"mail,omitempty" jsonschema:"format=email"`
	Site  string    `json:"site,omitempty" jsonschema:"format=uri"`
	Day   string    `json:"day,omitempty" jsonschema:"format=date"`
	At    time.Time `json:"at,omitzero"`
	On    bool      `json:"on,omitempty"`
	Tags  []string  `json:"tags,omitempty" jsonschema:"minItems=1,maxItems=2,uniqueItems=true"`
	Sizes []int     `json:"sizes,omitempty" jsonschema:"maxItems=3"`
	Owner RichOwner `json:"owner,omitzero"`
}

// RichOwner is RichArgs' nested object.
type RichOwner struct {
	Login string `json:"login" jsonschema:"minLength=2"`
	Mail  string `json:"mail,omitempty" jsonschema:"format=email"`
}

// RichTool is the text of a RichArgs call that reached the handler.
func RichTool(in RichArgs) string { return "ran " + in.Name }

// SchemaCase is one call derived from an inputSchema: Args break the
// keyword Keyword of Property (Refused), or satisfy the whole schema.
type SchemaCase struct {
	Property, Keyword string
	Args              map[string]any
	Refused           bool
}

// EnforcesAdvertised reads the inputSchema tools/list advertises for tool
// (served by h, with RichTool as its handler), derives from it, for each
// keyword of each property, a call that breaks only that keyword and one
// that satisfies it at its bound, and checks that the server refuses the
// first naming the property and runs the handler for the second; a call
// breaking every property at once names each. It returns the schema.
func EnforcesAdvertised(t *testing.T, h http.Handler, tool string) map[string]any {
	t.Helper()
	srv := elicittest.NewServer(t, h)
	schema := listedSchema(t, srv, tool)
	cases := SchemaCases(t, schema)
	if len(cases) < 20 {
		t.Fatalf("only %d cases from %v", len(cases), schema)
	}
	c := srv.Connect(t, elicittest.Conn{Protocol: "2025-11-25"})
	all := map[string]any{}
	var broken []string
	for _, tc := range cases {
		res := c.Call(t, tool, tc.Args)
		if tc.Refused {
			res.WantError(t, fmt.Sprintf("%q", tc.Property))
			if tc.Property != "" && !slices.Contains(broken, tc.Property) && !strings.Contains(tc.Keyword, "required") {
				broken = append(broken, tc.Property)
				all[tc.Property] = tc.Args[tc.Property]
			}
		} else {
			res.WantText(t, "ran "+fmt.Sprint(tc.Args["name"]))
		}
		if t.Failed() {
			t.Fatalf("%s of %q: %v (refused %v)", tc.Keyword, tc.Property, tc.Args, tc.Refused)
		}
	}
	res := c.Call(t, tool, all)
	for _, p := range broken {
		res.WantError(t, fmt.Sprintf("%q", p))
	}
	return schema
}

// listedSchema is the inputSchema tools/list shows for tool.
func listedSchema(t *testing.T, srv *elicittest.Server, tool string) map[string]any {
	t.Helper()
	c := Connect(t, srv.URL, "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, "tools/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string
			InputSchema map[string]any
		}
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == tool {
			return tl.InputSchema
		}
	}
	t.Fatalf("no %s in %s", tool, raw)
	return nil
}

// SchemaCases derives the calls of EnforcesAdvertised from an object
// schema: a valid base holding a satisfying value of every property; for
// each keyword of each property the base with a violating value (Refused)
// and, for a bound, the base with the value at its bound; a required
// property left out; an unknown property when additionalProperties is
// false.
func SchemaCases(t *testing.T, schema map[string]any) []SchemaCase {
	t.Helper()
	props, _ := schema["properties"].(map[string]any)
	base := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		v, ok := satisfying(props[name].(map[string]any))
		if !ok {
			t.Fatalf("no value satisfies %q: %v", name, props[name])
		}
		base[name] = v
	}
	with := func(name string, v any) map[string]any {
		m := maps.Clone(base)
		if v == nil {
			delete(m, name)
		} else {
			m[name] = v
		}
		return m
	}
	cases := []SchemaCase{{Args: base}}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		for _, k := range keywordCases(props[name].(map[string]any)) {
			cases = append(cases, SchemaCase{Property: name, Keyword: k.keyword, Args: with(name, k.value), Refused: k.refused})
		}
	}
	for _, r := range asStrings(schema["required"]) {
		cases = append(cases, SchemaCase{Property: r, Keyword: "required", Args: with(r, nil), Refused: true})
	}
	if schema["additionalProperties"] == false {
		cases = append(cases, SchemaCase{Property: "zz_unknown", Keyword: "additionalProperties", Args: with("zz_unknown", 1), Refused: true})
	}
	return cases
}

type keywordCase struct {
	keyword string
	value   any
	refused bool
}

// keywordCases are, for each keyword of the property schema s, a value
// that breaks it (and only it) and, for bounds, one at the bound.
func keywordCases(s map[string]any) []keywordCase {
	good, _ := satisfying(s)
	var cs []keywordCase
	add := func(k string, v any, refused bool) {
		cs = append(cs, keywordCase{keyword: k, value: v, refused: refused})
	}
	num := func(k string) (float64, bool) { f, ok := s[k].(float64); return f, ok }
	switch s["type"] {
	case "string":
		add("type", 7, true)
		str := good.(string)
		if n, ok := num("minLength"); ok {
			add("minLength", str[:int(n)-1], true)
			add("minLength", str[:int(n)], false)
		}
		if n, ok := num("maxLength"); ok {
			add("maxLength", strings.Repeat(str[:1], int(n)+1), true)
		}
		if p, ok := s["pattern"].(string); ok {
			bad := "ZZZ"
			if regexp.MustCompile(p).MatchString(bad) {
				bad = "!!!"
			}
			add("pattern", bad, true)
		}
		if _, ok := s["format"]; ok {
			add("format", "not a "+fmt.Sprint(s["format"]), true)
		}
		if _, ok := s["enum"]; ok {
			add("enum", "zz-not-listed", true)
		}
	case "integer", "number":
		add("type", "seven", true)
		if s["type"] == "integer" {
			add("type", 1.5, true)
		}
		if n, ok := num("minimum"); ok {
			add("minimum", n-1, true)
			add("minimum", n, false)
		}
		if n, ok := num("maximum"); ok {
			add("maximum", n+1, true)
			add("maximum", n, false)
		}
		if n, ok := num("exclusiveMinimum"); ok {
			add("exclusiveMinimum", n, true)
		}
		if n, ok := num("exclusiveMaximum"); ok {
			add("exclusiveMaximum", n, true)
		}
		if n, ok := num("multipleOf"); ok {
			add("multipleOf", n+1, true)
			add("multipleOf", 2*n, false)
		}
	case "boolean":
		add("type", "yes", true)
	case "array":
		add("type", "one", true)
		items, _ := s["items"].(map[string]any)
		item, _ := satisfying(items)
		other := item
		if str, ok := item.(string); ok {
			other = str + "x"
		} else if f, ok := item.(float64); ok {
			other = f + 1
		}
		if n, ok := num("minItems"); ok && n > 0 {
			add("minItems", []any{}, true)
		}
		if n, ok := num("maxItems"); ok {
			long := make([]any, int(n)+1)
			for i := range long {
				long[i] = item
				if s["uniqueItems"] == true {
					long[i] = fmt.Sprint(item, i)
				}
			}
			if _, isStr := item.(string); isStr || s["uniqueItems"] != true {
				add("maxItems", long, true)
			}
		}
		if s["uniqueItems"] == true {
			add("uniqueItems", []any{item, item}, true)
			add("uniqueItems", []any{item, other}, false)
		}
		if items != nil {
			for _, k := range keywordCases(items) {
				if k.refused {
					cs = append(cs, keywordCase{keyword: "items." + k.keyword, value: []any{k.value}, refused: true})
				}
			}
		}
	case "object":
		add("type", "obj", true)
		props, _ := s["properties"].(map[string]any)
		obj := good.(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			for _, k := range keywordCases(props[name].(map[string]any)) {
				m := maps.Clone(obj)
				m[name] = k.value
				cs = append(cs, keywordCase{keyword: name + "." + k.keyword, value: m, refused: k.refused})
			}
		}
		for _, r := range asStrings(s["required"]) {
			m := maps.Clone(obj)
			delete(m, r)
			cs = append(cs, keywordCase{keyword: r + ".required", value: m, refused: true})
		}
		if s["additionalProperties"] == false {
			m := maps.Clone(obj)
			m["zz_unknown"] = 1
			cs = append(cs, keywordCase{keyword: "additionalProperties", value: m, refused: true})
		}
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 1 {
		add("enum", e[len(e)-1], false)
	}
	return cs
}

// satisfying is a value that satisfies the property schema s, at the
// lower bound of its keywords where it has one.
func satisfying(s map[string]any) (any, bool) {
	if s == nil {
		return nil, false
	}
	if c, ok := s["const"]; ok {
		return c, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	num := func(k string) (float64, bool) { f, ok := s[k].(float64); return f, ok }
	switch s["type"] {
	case "string":
		switch s["format"] {
		case "email":
			return "ada@example.com", true
		case "uri":
			return "https://example.com/x", true
		case "date":
			return "2026-07-28", true
		case "date-time":
			return "2026-07-28T09:30:00Z", true
		}
		for _, cand := range []string{"abcd", "abc1", "abcdefgh", "a1", "ab", "a", ""} {
			if n, ok := num("minLength"); ok && float64(len(cand)) < n {
				continue
			}
			if n, ok := num("maxLength"); ok && float64(len(cand)) > n {
				continue
			}
			if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(cand) {
				continue
			}
			return cand, true
		}
		return nil, false
	case "integer", "number":
		v := 0.0
		if n, ok := num("minimum"); ok {
			v = n
		}
		if n, ok := num("exclusiveMinimum"); ok {
			v = n + 0.5
			if s["type"] == "integer" {
				v = n + 1
			}
		}
		if n, ok := num("multipleOf"); ok {
			v = n
		}
		return v, true
	case "boolean":
		return true, true
	case "array":
		items, _ := s["items"].(map[string]any)
		item, ok := satisfying(items)
		if n, has := num("minItems"); ok && has && n > 0 {
			return []any{item}, true
		}
		return []any{}, true
	case "object":
		props, _ := s["properties"].(map[string]any)
		m := map[string]any{}
		for _, name := range slices.Sorted(maps.Keys(props)) {
			v, ok := satisfying(props[name].(map[string]any))
			if !ok {
				return nil, false
			}
			m[name] = v
		}
		return m, true
	}
	return nil, false
}

func asStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
