package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/subset"
)

// readTagKeys are the struct tag keys a form's fields are read with:
// encoding/json's, invopop's three and validator's, and elicit's own.
var readTagKeys = []string{"json", "jsonschema", "jsonschema_description", "jsonschema_extras", "validate", "elicit"}

// otherTagKeys are other libraries' tag keys a small edit away from one of
// readTagKeys ("bson" is one from "json"): never taken for a misspelling.
var otherTagKeys = []string{"bson"}

// tagKey is one key of a struct tag, its byte offset in the tag and its
// value.
type tagKey struct {
	name  string
	off   int
	value string
}

// tagSyntaxError is where, and why, a tag is malformed.
type tagSyntaxError struct {
	off int
	why string
	// readsOn: reflect.StructTag reads the rest of the tag anyway.
	readsOn bool
}

// parseStructTag reads a tag as reflect.StructTag.Lookup does, returning
// the keys it finds and, when the tag is malformed, the first syntax
// error: from there on, every reader of the tag (encoding/json, invopop,
// validator) sees nothing. Pairs not separated by a space are an error
// too, as go vet's structtag check reports them, though reflect reads on.
func parseStructTag(tag string) ([]tagKey, *tagSyntaxError) {
	var keys []tagKey
	var spacing *tagSyntaxError
	off := 0
	for off < len(tag) {
		start := off
		for off < len(tag) && tag[off] == ' ' {
			off++
		}
		if off == len(tag) {
			break
		}
		if off == start && len(keys) > 0 && spacing == nil {
			spacing = &tagSyntaxError{off: off, why: `key:"value" pairs not separated by spaces`, readsOn: true}
		}
		i := off
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == off {
			return keys, &tagSyntaxError{off: off, why: "bad syntax for struct tag key"}
		}
		if i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return keys, &tagSyntaxError{off: off, why: fmt.Sprintf(`bad syntax for struct tag pair: want %s:"value"`, tag[off:i])}
		}
		name := tag[off:i]
		j := i + 2
		for j < len(tag) && tag[j] != '"' {
			if tag[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(tag) {
			return keys, &tagSyntaxError{off: i + 1, why: fmt.Sprintf("bad syntax for struct tag value: the value of %s has no closing quote", name)}
		}
		value, err := strconv.Unquote(tag[i+1 : j+1])
		if err != nil {
			return keys, &tagSyntaxError{off: i + 1, why: fmt.Sprintf("bad syntax for struct tag value: the value of %s is not a Go string literal", name)}
		}
		keys = append(keys, tagKey{name, off, value})
		off = j + 1
	}
	return keys, spacing
}

// reflectTagLookup is reflect.StructTag.Lookup on a raw tag string.
func reflectTagLookup(tag, key string) (string, bool) {
	keys, _ := parseStructTag(tag)
	for _, k := range keys {
		if k.name == key {
			return k.value, true
		}
	}
	return "", false
}

// structTag reports, for one field, a malformed struct tag and every tag
// key that looks like a misspelt readTagKeys entry ("josn", "jsonchema",
// "valdiate"): their readers would skip such a key without a word, and
// the property would lose its name or its constraints. lit is the tag's
// literal in the source, nil when the field's syntax is not at hand (then
// the field's position stands in for the key's).
func (b *builder) structTag(field string, fieldPos token.Pos, tag string, lit *ast.BasicLit) {
	keys, bad := parseStructTag(tag)
	for _, k := range keys {
		if slices.Contains(readTagKeys, k.name) || slices.Contains(otherTagKeys, k.name) {
			continue
		}
		if hint := subset.DidYouMean(k.name, readTagKeys); hint != "" {
			b.errorf(tagOffsetPos(lit, fieldPos, k.off), "field %s: unknown struct tag key %q%s", field, k.name, hint)
		}
	}
	switch {
	case bad == nil:
	case bad.readsOn:
		b.errorf(tagOffsetPos(lit, fieldPos, bad.off), "field %s: malformed struct tag: %s", field, bad.why)
	default:
		b.errorf(tagOffsetPos(lit, fieldPos, bad.off), "field %s: malformed struct tag: %s; reflect.StructTag reads nothing from %q on", field, bad.why, clip(tag[bad.off:], 24))
	}
}

// clip shortens s to at most n bytes (at a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// tagOffsetPos is the position of byte off of the tag lit holds (raw or
// interpreted), or fallback without a literal.
func tagOffsetPos(lit *ast.BasicLit, fallback token.Pos, off int) token.Pos {
	if lit == nil || lit.Kind != token.STRING || len(lit.Value) < 2 {
		return fallback
	}
	src := lit.Value
	i, n := 1, 0 // i: offset in the source, n: bytes of the value read so far
	for i < len(src)-1 && n < off {
		if src[0] == '`' {
			if src[i] != '\r' { // raw strings drop carriage returns
				n++
			}
			i++
			continue
		}
		r, multibyte, tail, err := strconv.UnquoteChar(src[i:len(src)-1], '"')
		if err != nil {
			return fallback
		}
		if multibyte { // a rune; \x and octal escapes are one byte each
			n += utf8.RuneLen(r)
		} else {
			n++
		}
		i = len(src) - 1 - len(tail)
	}
	return lit.Pos() + token.Pos(i)
}
