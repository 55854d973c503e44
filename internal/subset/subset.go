package subset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Protocol versions, oldest first.
const (
	V2025_03_26 = "2025-03-26"
	V2025_06_18 = "2025-06-18"
	V2025_11_25 = "2025-11-25"
	V2026_07_28 = "2026-07-28"
)

// Versions lists every protocol version the package knows, oldest first.
var Versions = []string{V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28}

// FormVersions lists the protocol versions that define form elicitation, oldest first.
var FormVersions = []string{V2025_06_18, V2025_11_25, V2026_07_28}

// Features that are valid only from some version on, as Violation.Feature
// names them.
const (
	FeatureForm          = "form elicitation"     // 2025-06-18
	FeatureSchemaKeyword = "$schema"              // 2025-11-25
	FeatureStringDefault = "string default"       // 2025-11-25
	FeatureNumberDefault = "number default"       // 2025-11-25
	FeatureEnumDefault   = "enum default"         // 2025-11-25
	FeatureTitledSingle  = "titled single-select" // 2025-11-25
	FeatureMultiSelect   = "multi-select"         // 2025-11-25
)

// Violation is one way a schema (or content) falls outside what is allowed.
type Violation struct {
	Path     string // JSON Pointer into the schema, e.g. "/properties/asn/minimum"; "" = root
	Property string // the top-level property it concerns, "" for the root
	Feature  string // non-empty when the construct is valid in a LATER version, e.g. "multi-select" — Since says which
	Since    string // the first version that allows it, when Feature is set
	Message  string // lowercase, no final period
}

// String renders the violation as "path: message", or just the message at the root.
func (v Violation) String() string {
	if v.Path == "" {
		return v.Message
	}
	return v.Path + ": " + v.Message
}

// ErrInvalidSchema is matched (errors.Is) by every *SchemaError.
var ErrInvalidSchema = errors.New("schema is outside the elicitation subset")

// SchemaError carries the violations Check found, for callers that want an error.
type SchemaError struct {
	Version    string
	Violations []Violation
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("requestedSchema is not valid for protocol ")
	b.WriteString(e.Version)
	b.WriteString(": ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Is makes errors.Is(err, ErrInvalidSchema) true for every *SchemaError.
func (e *SchemaError) Is(target error) bool { return target == ErrInvalidSchema }

// Validate is Check returning an error: nil when the schema is valid for
// version, else a *SchemaError.
func Validate(schema map[string]any, version string) error {
	if vs := Check(schema, version); len(vs) > 0 {
		return &SchemaError{Version: version, Violations: vs}
	}
	return nil
}

// Known reports whether version is a protocol version this package knows.
func Known(version string) bool { return rank(version) >= 0 }

// HasForm reports whether version defines form elicitation.
func HasForm(version string) bool { return rank(version) >= rank(V2025_06_18) }

func rank(version string) int {
	for i, v := range Versions {
		if v == version {
			return i
		}
	}
	return -1
}

// versionViolation reports why version cannot carry a form at all; ok is
// true when it can.
func versionViolation(version string) (Violation, bool) {
	switch {
	case !Known(version):
		return Violation{Message: fmt.Sprintf("unknown protocol version %q: known versions are %s", version, quoteList(Versions))}, false
	case !HasForm(version):
		return Violation{
			Feature: FeatureForm,
			Since:   V2025_06_18,
			Message: fmt.Sprintf("protocol %s has no form elicitation: it needs %s or later", version, V2025_06_18),
		}, false
	}
	return Violation{}, true
}

// Check returns every way schema falls outside the requestedSchema subset of
// version, sorted by Path (stable). schema is decoded JSON: map[string]any,
// []any, string, float64 or json.Number, bool, nil. An unknown version is
// itself a violation.
func Check(schema map[string]any, version string) []Violation {
	if v, ok := versionViolation(version); !ok {
		return []Violation{v}
	}
	c := &checker{rank: rank(version)}
	c.root(schema)
	return c.sorted()
}

// CheckJSON is Check on raw JSON bytes (decoded with UseNumber); malformed
// JSON is a violation.
func CheckJSON(schema []byte, version string) []Violation {
	m, v, ok := decodeSchema(schema)
	if !ok {
		return []Violation{v}
	}
	return Check(m, version)
}

// decodeSchema decodes one JSON object, numbers as json.Number.
func decodeSchema(data []byte) (map[string]any, Violation, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		if err == io.EOF {
			return nil, Violation{Message: "malformed JSON: empty input"}, false
		}
		return nil, Violation{Message: "malformed JSON: " + err.Error()}, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Violation{Message: "malformed JSON: unexpected data after the schema"}, false
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, Violation{Message: "schema must be a JSON object, not " + typeName(x)}, false
	}
	return m, Violation{}, true
}

// kind is what a property schema is, read from its type and option keys.
type kind int

const (
	kindUnknown kind = iota
	kindString
	kindNumber
	kindInteger
	kindBoolean
	kindEnum   // type "string" + enum (+ enumNames)
	kindTitled // type "string" + oneOf
	kindMulti  // type "array"
)

var kindWhere = [...]string{
	kindUnknown: "on a property",
	kindString:  "on a string property",
	kindNumber:  "on a number property",
	kindInteger: "on an integer property",
	kindBoolean: "on a boolean property",
	kindEnum:    "on an enum property",
	kindTitled:  "on a titled single-select property",
	kindMulti:   "on a multi-select property",
}

func keys(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// allowedKeys is the allowlist: every key a property of each kind may hold.
// Version gates on some of them are applied separately.
var allowedKeys = [...]map[string]bool{
	kindUnknown: keys("type", "title", "description", "minLength", "maxLength", "format", "minimum", "maximum",
		"enum", "enumNames", "oneOf", "minItems", "maxItems", "items", "default"),
	kindString:  keys("type", "title", "description", "minLength", "maxLength", "format", "default"),
	kindNumber:  keys("type", "title", "description", "minimum", "maximum", "default"),
	kindInteger: keys("type", "title", "description", "minimum", "maximum", "default"),
	kindBoolean: keys("type", "title", "description", "default"),
	kindEnum:    keys("type", "title", "description", "enum", "enumNames", "default"),
	kindTitled:  keys("type", "title", "description", "oneOf", "default"),
	kindMulti:   keys("type", "title", "description", "minItems", "maxItems", "items", "default"),
}

// kindOf classifies a property schema without reporting anything; the
// content validator uses it on schemas that already passed Check.
func kindOf(p map[string]any) kind {
	t, _ := p["type"].(string)
	switch t {
	case "string":
		if _, ok := p["enum"]; ok {
			return kindEnum
		}
		if _, ok := p["oneOf"]; ok {
			return kindTitled
		}
		return kindString
	case "number":
		return kindNumber
	case "integer":
		return kindInteger
	case "boolean":
		return kindBoolean
	case "array":
		return kindMulti
	}
	return kindUnknown
}

var knownFormats = []string{"email", "uri", "date", "date-time"}

// Formats lists the string formats elicitation schemas allow.
func Formats() []string { return slices.Clone(knownFormats) }

func isKnownFormat(f string) bool {
	switch f {
	case "email", "uri", "date", "date-time":
		return true
	}
	return false
}

// keywordMessage explains why key is not allowed where it is.
func keywordMessage(key, where string, k kind) string {
	base := fmt.Sprintf("keyword %q is not allowed %s", key, where)
	switch key {
	case "$ref", "$defs", "definitions", "$id", "$anchor", "$dynamicRef":
		return base + ": references are not allowed, write every property inline"
	case "pattern":
		return base + ": elicitation schemas have no pattern (check it on the server instead)"
	case "anyOf", "allOf", "not", "if", "then", "else":
		return base + ": combinators are not allowed in elicitation schemas"
	case "properties", "additionalProperties", "patternProperties", "required", "minProperties", "maxProperties":
		if where != "at the root" {
			return base + ": nested objects are not allowed"
		}
	case "const":
		return base + ": use enum or oneOf for fixed values"
	case "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return base + ": only minimum and maximum bound a number"
	case "nullable":
		return base + ": leave the property out of \"required\" to make it optional"
	case "uniqueItems", "contains", "prefixItems":
		return base + ": multi-select arrays allow only minItems, maxItems, items and default"
	}
	switch {
	case where == "at the root":
		return base + `: requestedSchema allows only "type", "properties", "required" and "$schema"`
	case key == "oneOf" && k == kindEnum:
		return base + ": use either enum or oneOf, not both"
	case key == "enumNames" && k == kindString:
		return base + `: enumNames needs "enum"`
	case (key == "enum" || key == "oneOf" || key == "enumNames") && k != kindString:
		return base + `: options need "type": "string" (or "type": "array" with items for multi-select)`
	case key == "minLength" || key == "maxLength" || key == "format":
		return base + ": it applies only to plain string properties"
	case key == "minimum" || key == "maximum":
		return base + ": it applies only to number and integer properties"
	case key == "items" || key == "minItems" || key == "maxItems":
		return base + ": it applies only to multi-select arrays"
	}
	return base
}

type checker struct {
	rank int
	out  []Violation
}

func (c *checker) report(path, prop, format string, args ...any) {
	c.out = append(c.out, Violation{Path: path, Property: prop, Message: fmt.Sprintf(format, args...)})
}

// gate reports feature when the checked version predates since.
func (c *checker) gate(path, prop, feature, since string) bool {
	if c.rank >= rank(since) {
		return true
	}
	c.out = append(c.out, Violation{
		Path: path, Property: prop, Feature: feature, Since: since,
		Message: fmt.Sprintf("%s needs protocol %s or later", feature, since),
	})
	return false
}

func (c *checker) sorted() []Violation {
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].Path < c.out[j].Path })
	return c.out
}

func (c *checker) root(s map[string]any) {
	props, propsOK := s["properties"].(map[string]any)
	for _, key := range sortedKeys(s) {
		path := "/" + pointerToken(key)
		val := s[key]
		switch key {
		case "type":
			switch t := val.(type) {
			case string:
				if t != "object" {
					c.report(path, "", "type must be %q, not %q", "object", t)
				}
			default:
				c.report(path, "", "type must be %q, not %s", "object", typeName(val))
			}
		case "$schema":
			c.gate(path, "", FeatureSchemaKeyword, V2025_11_25)
			if _, ok := val.(string); !ok {
				c.report(path, "", "$schema must be a string, not %s", typeName(val))
			}
		case "properties":
			if !propsOK {
				c.report(path, "", "properties must be an object, not %s", typeName(val))
				continue
			}
			if len(props) == 0 {
				c.report(path, "", "form has no properties: the user would see nothing to fill in")
			}
			for _, name := range sortedKeys(props) {
				c.property(name, props[name])
			}
		case "required":
			c.required(path, val, props)
		default:
			c.report(path, "", "%s", keywordMessage(key, "at the root", kindUnknown))
		}
	}
	if _, ok := s["type"]; !ok {
		c.report("", "", "missing %q: requestedSchema must have \"type\": \"object\"", "type")
	}
	if _, ok := s["properties"]; !ok {
		c.report("", "", "missing %q: a form needs at least one property", "properties")
	}
}

func (c *checker) required(path string, val any, props map[string]any) {
	l, ok := asList(val)
	if !ok {
		c.report(path, "", "required must be an array of property names, not %s", typeName(val))
		return
	}
	seen := make(map[string]bool, l.Len())
	for i := range l.Len() {
		ip := fmt.Sprintf("%s/%d", path, i)
		name, ok := l.At(i).(string)
		switch {
		case !ok:
			c.report(ip, "", "required entries must be property names, not %s", typeName(l.At(i)))
		case seen[name]:
			c.report(ip, name, "%q is listed twice in required", name)
		default:
			seen[name] = true
			if _, defined := props[name]; !defined {
				c.report(ip, name, "required property %q is not defined in properties", name)
			}
		}
	}
}

// propertyKind reads the type of a property, reporting a missing or bad
// type and gating kinds that need a later version.
func (c *checker) propertyKind(path, name string, p map[string]any) kind {
	t, present := p["type"]
	tp := path + "/type"
	if !present {
		hint := ""
		switch {
		case p["$ref"] != nil:
			hint = ": references ($ref) are not allowed, write the property inline"
		case p["anyOf"] != nil || p["allOf"] != nil || p["oneOf"] != nil:
			hint = ": a property has exactly one type, not a combination"
		case p["enum"] != nil:
			hint = `: enum properties need "type": "string"`
		case p["properties"] != nil:
			hint = ": nested objects are not allowed"
		}
		c.report(path, name, "missing %q%s", "type", hint)
		return kindUnknown
	}
	s, ok := t.(string)
	if !ok {
		if _, isList := asList(t); isList {
			c.report(tp, name, "type must be one string, not a list: nullable and union types are not allowed (leave the property out of \"required\" to make it optional)")
		} else {
			c.report(tp, name, "type must be a string, not %s", typeName(t))
		}
		return kindUnknown
	}
	switch s {
	case "string", "number", "integer", "boolean":
	case "array":
		c.gate(path, name, FeatureMultiSelect, V2025_11_25)
	case "object":
		c.report(tp, name, "type %q is not allowed: nested objects are not allowed", s)
		return kindUnknown
	case "null":
		c.report(tp, name, "type %q is not allowed: leave the property out of \"required\" to make it optional", s)
		return kindUnknown
	default:
		c.report(tp, name, "unknown type %q: must be %s", s, quoteList([]string{"string", "number", "integer", "boolean", "array"}))
		return kindUnknown
	}
	k := kindOf(p)
	if k == kindTitled {
		c.gate(path, name, FeatureTitledSingle, V2025_11_25)
	}
	return k
}

func (c *checker) property(name string, v any) {
	path := "/properties/" + pointerToken(name)
	if name == "" {
		c.report(path, name, "property name must not be empty")
	}
	p, ok := v.(map[string]any)
	if !ok {
		c.report(path, name, "property schema must be an object, not %s", typeName(v))
		return
	}
	k := c.propertyKind(path, name, p)
	allowed := allowedKeys[k]
	options := optionValues(k, p)
	for _, key := range sortedKeys(p) {
		if key == "type" {
			continue
		}
		kp := path + "/" + pointerToken(key)
		val := p[key]
		if !allowed[key] {
			c.report(kp, name, "%s", keywordMessage(key, kindWhere[k], k))
			continue
		}
		switch key {
		case "title", "description":
			if _, ok := val.(string); !ok {
				c.report(kp, name, "%s must be a string, not %s", key, typeName(val))
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			c.count(kp, name, key, val)
		case "minimum", "maximum":
			if _, ok := number(val); !ok {
				if isNumber(val) {
					c.report(kp, name, "%s must be a finite number", key)
				} else {
					c.report(kp, name, "%s must be a number, not %s", key, typeName(val))
				}
			}
		case "format":
			f, ok := val.(string)
			switch {
			case !ok:
				c.report(kp, name, "format must be a string, not %s", typeName(val))
			case !isKnownFormat(f):
				c.report(kp, name, "unknown format %q: must be one of %s%s", f, quoteList(knownFormats), DidYouMean(f, knownFormats))
			}
		case "enum":
			c.enumList(kp, name, "enum", val)
		case "enumNames":
			c.enumNames(kp, name, val, p["enum"])
		case "oneOf":
			c.titledOptions(kp, name, "oneOf", val)
		case "items":
			c.items(kp, name, val)
		case "default":
			c.defaultValue(kp, name, k, p, val, options)
		}
	}
	c.crossChecks(path, name, k, p, options)
}

// count checks a non-negative integer keyword (lengths, item counts).
func (c *checker) count(path, name, key string, val any) {
	f, ok := number(val)
	if !ok || f < 0 || !integral(f) {
		c.report(path, name, "%s must be a non-negative integer, not %s", key, describe(val))
	}
}

// describe renders a value for a message: numbers as written, strings quoted.
func describe(v any) string {
	if f, ok := number(v); ok {
		return fmtNum(f)
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return typeName(v)
}

// bound returns a valid numeric keyword of p.
func bound(p map[string]any, key string) (float64, bool) {
	v, present := p[key]
	if !present {
		return 0, false
	}
	return number(v)
}

// countBound returns a valid non-negative integer keyword of p.
func countBound(p map[string]any, key string) (float64, bool) {
	f, ok := bound(p, key)
	if !ok || f < 0 || !integral(f) {
		return 0, false
	}
	return f, true
}

func (c *checker) crossChecks(path, name string, k kind, p map[string]any, options []string) {
	allowed := allowedKeys[k]
	pair := func(lo, hi string, counts bool) {
		if !allowed[lo] || !allowed[hi] {
			return
		}
		get := bound
		if counts {
			get = countBound
		}
		l, ok1 := get(p, lo)
		h, ok2 := get(p, hi)
		if ok1 && ok2 && l > h {
			c.report(path+"/"+lo, name, "%s %s is greater than %s %s", lo, fmtNum(l), hi, fmtNum(h))
		}
	}
	pair("minLength", "maxLength", true)
	pair("minimum", "maximum", false)
	pair("minItems", "maxItems", true)
	if k == kindInteger {
		l, ok1 := bound(p, "minimum")
		h, ok2 := bound(p, "maximum")
		if ok1 && ok2 && l <= h && ceil(l) > floor(h) {
			c.report(path+"/minimum", name, "no integer lies between minimum %s and maximum %s", fmtNum(l), fmtNum(h))
		}
	}
	if _, ok := p["items"]; k == kindMulti && !ok {
		c.report(path, name, "multi-select arrays need %q", "items")
	}
	if k == kindMulti && options != nil {
		if n, ok := countBound(p, "minItems"); ok && n > float64(len(options)) {
			c.report(path+"/minItems", name, "minItems %s is greater than the number of options (%d)", fmtNum(n), len(options))
		}
	}
}

// optionValues returns the option values of an enum, titled or multi-select
// property (only the well-formed ones), or nil for other kinds.
func optionValues(k kind, p map[string]any) []string {
	switch k {
	case kindEnum:
		return stringMembers(p["enum"])
	case kindTitled:
		return constMembers(p["oneOf"])
	case kindMulti:
		items, _ := p["items"].(map[string]any)
		if items == nil {
			return []string{}
		}
		if a, ok := items["anyOf"]; ok {
			return constMembers(a)
		}
		return stringMembers(items["enum"])
	}
	return nil
}

func stringMembers(v any) []string {
	l, ok := asList(v)
	if !ok {
		return []string{}
	}
	return l.strings()
}

func constMembers(v any) []string {
	l, ok := asList(v)
	if !ok {
		return []string{}
	}
	out := make([]string, 0, l.Len())
	for i := range l.Len() {
		if m, ok := l.At(i).(map[string]any); ok {
			if s, ok := m["const"].(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func (c *checker) enumList(path, name, key string, val any) {
	l, ok := asList(val)
	if !ok {
		c.report(path, name, "%s must be an array of strings, not %s", key, typeName(val))
		return
	}
	if l.Len() == 0 {
		c.report(path, name, "%s must not be empty: the user would have nothing to choose", key)
		return
	}
	seen := make(map[string]bool, l.Len())
	for i := range l.Len() {
		ip := fmt.Sprintf("%s/%d", path, i)
		s, ok := l.At(i).(string)
		switch {
		case !ok:
			c.report(ip, name, "%s members must be strings, not %s", key, typeName(l.At(i)))
		case s == "":
			c.report(ip, name, "%s members must not be empty strings", key)
		case seen[s]:
			c.report(ip, name, "%q is listed twice in %s", s, key)
		default:
			seen[s] = true
		}
	}
}

func (c *checker) enumNames(path, name string, val, enum any) {
	l, ok := asList(val)
	if !ok {
		c.report(path, name, "enumNames must be an array of strings, not %s", typeName(val))
		return
	}
	for i := range l.Len() {
		ip := fmt.Sprintf("%s/%d", path, i)
		s, ok := l.At(i).(string)
		switch {
		case !ok:
			c.report(ip, name, "enumNames entries must be strings, not %s", typeName(l.At(i)))
		case s == "":
			c.report(ip, name, "enumNames entries must not be empty")
		}
	}
	if e, ok := asList(enum); ok && e.Len() != l.Len() {
		c.report(path, name, "enumNames has %d entries but enum has %d", l.Len(), e.Len())
	}
}

// titledOptions checks oneOf (titled single-select) or items.anyOf (titled
// multi-select): a non-empty array of {const, title} with unique consts.
func (c *checker) titledOptions(path, name, key string, val any) {
	l, ok := asList(val)
	if !ok {
		c.report(path, name, "%s must be an array of {\"const\", \"title\"} options, not %s", key, typeName(val))
		return
	}
	if l.Len() == 0 {
		c.report(path, name, "%s must not be empty: the user would have nothing to choose", key)
		return
	}
	seen := make(map[string]bool, l.Len())
	for i := range l.Len() {
		ip := fmt.Sprintf("%s/%d", path, i)
		opt, ok := l.At(i).(map[string]any)
		if !ok {
			c.report(ip, name, "options must be objects with \"const\" and \"title\", not %s", typeName(l.At(i)))
			continue
		}
		for _, k := range sortedKeys(opt) {
			kp := ip + "/" + pointerToken(k)
			v := opt[k]
			switch k {
			case "const":
				s, ok := v.(string)
				switch {
				case !ok:
					c.report(kp, name, "const must be a string, not %s", typeName(v))
				case s == "":
					c.report(kp, name, "const must not be an empty string")
				case seen[s]:
					c.report(kp, name, "const %q is listed twice in %s", s, key)
				default:
					seen[s] = true
				}
			case "title":
				s, ok := v.(string)
				switch {
				case !ok:
					c.report(kp, name, "title must be a string, not %s", typeName(v))
				case s == "":
					c.report(kp, name, "title must not be empty: it is the label the user sees")
				}
			default:
				c.report(kp, name, "keyword %q is not allowed in an option: options have only \"const\" and \"title\"", k)
			}
		}
		if _, ok := opt["const"]; !ok {
			c.report(ip, name, "option needs %q", "const")
		}
		if _, ok := opt["title"]; !ok {
			c.report(ip, name, "option needs %q", "title")
		}
	}
}

// items checks the items of a multi-select array: {type:"string", enum} or
// {anyOf:[{const,title}]}, nothing else.
func (c *checker) items(path, name string, val any) {
	items, ok := val.(map[string]any)
	if !ok {
		c.report(path, name, "items must be an object, not %s", typeName(val))
		return
	}
	if anyOf, titled := items["anyOf"]; titled {
		for _, k := range sortedKeys(items) {
			if k != "anyOf" {
				c.report(path+"/"+pointerToken(k), name,
					"keyword %q is not allowed in titled multi-select items: they are {\"anyOf\": [{\"const\", \"title\"}, ...]} only", k)
			}
		}
		c.titledOptions(path+"/anyOf", name, "anyOf", anyOf)
		return
	}
	for _, k := range sortedKeys(items) {
		kp := path + "/" + pointerToken(k)
		v := items[k]
		switch k {
		case "type":
			if s, ok := v.(string); !ok || s != "string" {
				c.report(kp, name, "multi-select items must have type %q, not %s", "string", describe(v))
			}
		case "enum":
			c.enumList(kp, name, "enum", v)
		default:
			c.report(kp, name, "%s", keywordMessage(k, "in multi-select items", kindUnknown)+
				": items are {\"type\": \"string\", \"enum\": [...]} or {\"anyOf\": [...]}")
		}
	}
	if _, ok := items["enum"]; !ok {
		c.report(path, name, "multi-select items need %q (or %q with titled options)", "enum", "anyOf")
	}
	if _, ok := items["type"]; !ok {
		c.report(path, name, "multi-select items need \"type\": \"string\"")
	}
}

func (c *checker) defaultValue(path, name string, k kind, p map[string]any, val any, options []string) {
	switch k {
	case kindString:
		c.gate(path, name, FeatureStringDefault, V2025_11_25)
		s, ok := val.(string)
		if !ok {
			c.report(path, name, "default must be a string, not %s", typeName(val))
			return
		}
		if msg := stringProblem(p, s); msg != "" {
			c.report(path, name, "default %q %s", s, msg)
		}
	case kindNumber, kindInteger:
		c.gate(path, name, FeatureNumberDefault, V2025_11_25)
		f, ok := number(val)
		if !ok {
			c.report(path, name, "default must be a finite number, not %s", typeName(val))
			return
		}
		if msg := numberProblem(p, k == kindInteger, f); msg != "" {
			c.report(path, name, "default %s %s", fmtNum(f), msg)
		}
	case kindBoolean:
		if _, ok := val.(bool); !ok {
			c.report(path, name, "default must be a boolean, not %s", typeName(val))
		}
	case kindEnum, kindTitled:
		if k == kindEnum {
			c.gate(path, name, FeatureEnumDefault, V2025_11_25)
		}
		s, ok := val.(string)
		if !ok {
			c.report(path, name, "default must be a string, not %s", typeName(val))
			return
		}
		if !member(options, s) {
			c.report(path, name, "default %q is not one of the options", s)
		}
	case kindMulti:
		l, ok := asList(val)
		if !ok {
			c.report(path, name, "default must be an array of strings, not %s", typeName(val))
			return
		}
		if msg := multiProblem(p, l, options); msg != "" {
			c.report(path, name, "default %s", msg)
		}
	}
}

func member(options []string, s string) bool {
	for _, o := range options {
		if o == s {
			return true
		}
	}
	return false
}
