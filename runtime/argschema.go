package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/go-elicit/elicit/internal/subset"
)

// argsSchema checks a tool's arguments against the inputSchema tools/list
// advertises for it, with google/jsonschema-go's validator (every keyword
// of draft 2020-12 and draft-07) plus the formats the forms check (email,
// uri, date, date-time), which that validator treats as annotations. Each
// top-level property is validated on its own, so every failing one is
// named, not only the first.
type argsSchema struct {
	whole    *jsonschema.Resolved     // the schema less properties, required and additionalProperties: false
	props    map[string]*argsProperty // nil: the schema could not be split; whole is all of it
	required []string                 // properties that must be present and not null
	closed   bool                     // additionalProperties false: only props
	object   bool                     // the arguments must be an object
}

// argsProperty is one property's schema, resolved as a root of its own
// (with the root's $defs, so its references resolve).
type argsProperty struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// maxArgsProblems bounds the problems one call's arguments can report.
const maxArgsProblems = 32

// newArgsSchema prepares the advertised inputSchema raw for validation.
func newArgsSchema(raw json.RawMessage) (*argsSchema, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the inputSchema is not a JSON Schema: %w", err)
	}
	a := &argsSchema{object: root.Type == "object" || root.Properties != nil}
	if root.Type != "" && root.Type != "object" || root.Types != nil || root.Ref != "" || root.DynamicRef != "" ||
		root.AllOf != nil || root.AnyOf != nil || root.OneOf != nil || root.Not != nil || root.If != nil ||
		root.DependentRequired != nil || root.DependentSchemas != nil || root.PatternProperties != nil ||
		root.UnevaluatedProperties != nil || root.PropertyNames != nil {
		// Not a plain object schema: validated whole, one problem.
		whole, err := root.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("the inputSchema cannot be resolved: %w", err)
		}
		a.whole = whole
		return a, nil
	}
	a.props = make(map[string]*argsProperty, len(root.Properties))
	for name, ps := range root.Properties {
		if ps == nil {
			return nil, fmt.Errorf("the inputSchema's property %q has no schema", name)
		}
		sub := *ps
		sub.Defs = mergeDefs(root.Defs, ps.Defs)
		sub.Definitions = mergeDefs(root.Definitions, ps.Definitions)
		if sub.Schema == "" {
			sub.Schema = root.Schema
		}
		res, err := sub.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("the inputSchema's property %q cannot be resolved: %w", name, err)
		}
		a.props[name] = &argsProperty{schema: ps, resolved: res}
	}
	a.required = slices.Clone(root.Required)
	rest := root
	rest.Required = nil
	rest.Properties = nil
	if len(root.Properties) > 0 {
		rest.Properties = make(map[string]*jsonschema.Schema, len(root.Properties))
		for name := range root.Properties {
			rest.Properties[name] = &jsonschema.Schema{} // checked above, one by one
		}
	}
	if isFalseSchema(root.AdditionalProperties) {
		a.closed = true
		rest.AdditionalProperties = nil
	}
	if onlyAnnotations(rest) {
		return a, nil // nothing left to check but that the arguments are an object (check)
	}
	whole, err := rest.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("the inputSchema cannot be resolved: %w", err)
	}
	a.whole = whole
	return a, nil
}

// onlyAnnotations reports whether s, less its placeholder properties,
// asserts nothing but type object.
func onlyAnnotations(s jsonschema.Schema) bool {
	s.Properties, s.Type = nil, ""
	s.ID, s.Schema, s.Comment, s.Title, s.Description = "", "", "", "", ""
	s.Defs, s.Definitions, s.Default, s.Examples = nil, nil, nil, nil
	b, err := json.Marshal(&s)
	return err == nil && (string(b) == "{}" || string(b) == "true")
}

func mergeDefs(root, own map[string]*jsonschema.Schema) map[string]*jsonschema.Schema {
	if len(root) == 0 {
		return own
	}
	m := maps.Clone(root)
	maps.Copy(m, own)
	return m
}

// isFalseSchema reports whether s is the schema false (jsonschema-go reads
// false as {"not": {}}).
func isFalseSchema(s *jsonschema.Schema) bool {
	if s == nil || s.Not == nil {
		return false
	}
	b, err := json.Marshal(s)
	return err == nil && string(b) == "false"
}

// check returns the problems of the arguments raw (not absent) against the
// schema, each named by its top-level property, at most maxArgsProblems.
func (a *argsSchema) check(raw json.RawMessage) []Problem {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []Problem{{Message: "the arguments are not valid JSON"}}
	}
	obj, isObj := v.(map[string]any)
	if a.object && !isObj {
		return []Problem{{Message: "the arguments must be a JSON object"}}
	}
	var problems []Problem
	if a.whole != nil { // nil: nothing but the properties to check
		if err := a.whole.Validate(v); err != nil {
			problems = append(problems, Problem{Message: schemaProblem(err, nil)})
		}
	}
	if a.props == nil || !isObj {
		return problems
	}
	for _, name := range a.required {
		if pv, ok := obj[name]; !ok || pv == nil {
			problems = append(problems, Problem{Property: name, Message: "is required"})
		}
	}
	names := slices.Sorted(maps.Keys(obj))
	for _, name := range names {
		if len(problems) >= maxArgsProblems {
			break
		}
		pv := obj[name]
		p, ok := a.props[name]
		switch {
		case !ok && a.closed:
			problems = append(problems, Problem{Property: name, Message: "is not an argument of this tool"})
		case !ok || pv == nil && slices.Contains(a.required, name):
			// allowed by the rest of the schema; or reported as required
		default:
			if err := p.resolved.Validate(pv); err != nil {
				problems = append(problems, Problem{Property: name, Message: schemaProblem(err, p.schema)})
			} else if err := checkFormats(p.schema, pv, 0); err != nil {
				problems = append(problems, Problem{Property: name, Message: err.Error()})
			}
		}
	}
	if len(problems) > maxArgsProblems {
		problems = problems[:maxArgsProblems]
	}
	return problems
}

// checkFormats checks the strings of v against the formats of s that the
// forms know (email, uri, date, date-time), in nested properties and items
// too; other formats are annotations, as JSON Schema has them by default.
func checkFormats(s *jsonschema.Schema, v any, depth int) error {
	if s == nil || depth > 32 {
		return nil
	}
	switch v := v.(type) {
	case string:
		switch s.Format {
		case "email", "uri", "date", "date-time":
			return subset.CheckFormat(s.Format, v)
		}
	case map[string]any:
		for name, ps := range s.Properties {
			if pv, ok := v[name]; ok {
				if err := checkFormats(ps, pv, depth+1); err != nil {
					return fmt.Errorf("%q %w", name, err)
				}
			}
		}
	case []any:
		for i, item := range v {
			is := s.Items
			if i < len(s.PrefixItems) {
				is = s.PrefixItems[i]
			}
			if err := checkFormats(is, item, depth+1); err != nil {
				return fmt.Errorf("item %d %w", i, err)
			}
		}
	}
	return nil
}

// maxProblemText bounds the text of one problem the validator words.
const maxProblemText = 200

// schemaProblem words a jsonschema-go error about a value of schema s (nil:
// the arguments as a whole): in the forms' words when the failing keyword
// is one of s's own, else the validator's innermost message, bounded.
func schemaProblem(err error, s *jsonschema.Schema) string {
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	msg := err.Error()
	keyword, _, _ := strings.Cut(msg, ":")
	if s != nil {
		if m := keywordProblem(keyword, s); m != "" {
			return m
		}
	}
	if len(msg) > maxProblemText {
		cut := maxProblemText
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return "does not match the inputSchema: " + msg
}

// keywordProblem words the failure of keyword, one of s's own keywords, as
// the forms' decoders do; "" when it is not one of them.
func keywordProblem(keyword string, s *jsonschema.Schema) string {
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch {
	case keyword == "type" && s.Type != "":
		return "must be " + jsonTypeName(s.Type)
	case keyword == "enum" && len(s.Enum) > 0 && len(s.Enum) <= 16:
		b, err := json.Marshal(s.Enum)
		if err == nil && len(b) <= maxProblemText {
			return "must be one of " + strings.Trim(strings.ReplaceAll(string(b), ",", ", "), "[]")
		}
	case keyword == "const" && s.Const != nil:
		b, err := json.Marshal(*s.Const)
		if err == nil && len(b) <= maxProblemText {
			return "must be " + string(b)
		}
	case keyword == "minLength" && s.MinLength != nil:
		return "must be at least " + counted(*s.MinLength, "character")
	case keyword == "maxLength" && s.MaxLength != nil:
		return "must be at most " + counted(*s.MaxLength, "character")
	case keyword == "minimum" && s.Minimum != nil:
		return "must be at least " + num(s.Minimum)
	case keyword == "maximum" && s.Maximum != nil:
		return "must be at most " + num(s.Maximum)
	case keyword == "exclusiveMinimum" && s.ExclusiveMinimum != nil:
		return "must be greater than " + num(s.ExclusiveMinimum)
	case keyword == "exclusiveMaximum" && s.ExclusiveMaximum != nil:
		return "must be less than " + num(s.ExclusiveMaximum)
	case keyword == "multipleOf" && s.MultipleOf != nil:
		return "must be a multiple of " + num(s.MultipleOf)
	case keyword == "minItems" && s.MinItems != nil:
		return "must have at least " + counted(*s.MinItems, "item")
	case keyword == "maxItems" && s.MaxItems != nil:
		return "must have at most " + counted(*s.MaxItems, "item")
	case keyword == "uniqueItems" && s.UniqueItems:
		return "must not repeat an item"
	case keyword == "pattern" && s.Pattern != "" && len(s.Pattern) <= maxProblemText:
		return "must match the pattern " + strconv.Quote(s.Pattern)
	}
	return ""
}

func counted(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// jsonTypeName is "a string", "an integer", … for a JSON Schema type.
func jsonTypeName(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}
