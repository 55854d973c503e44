package roundtrip

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The strict member rule, for every JSON object the server reads from a
// client: a member name matches a field only exactly (encoding/json also
// matches one that differs in case), and a member the server reads appears
// once (parsers disagree on which of two wins). Anything else would let a
// proxy or a firewall in front read another message than the server does.
// Members the server does not read are ignored, repeated or not; the keys of
// a map (_meta, inputResponses, the content of a hand-built form) are all
// read. The fast paths of the runtime apply the same rule by handing every
// such input to StrictUnmarshal, so both readers agree on every input.

// MemberError is a member the strict rule refuses.
type MemberError struct {
	In   string // the object, as a dotted path from the top ("" for the top)
	Name string // the member as sent (decoded)
	Want string // the field name it differs from only in case; "" for a repeat
}

func (e *MemberError) Error() string {
	where := ""
	if e.In != "" {
		where = " in " + e.In
	}
	if e.Want == "" {
		return fmt.Sprintf("member %q appears more than once%s: send each member once", e.Name, where)
	}
	return fmt.Sprintf("member %q%s is not %q: member names are case-sensitive", e.Name, where, e.Want)
}

// StrictUnmarshal is json.Unmarshal under the strict member rule, applied
// to every object that decodes into a struct or a map within v's type, at
// any depth, through pointers, slices and arrays (not to json.RawMessage or
// interface values, which are read later or not at all).
// Invalid JSON gets json.Unmarshal's own error.
func StrictUnmarshal(data []byte, v any) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, v)
	}
	if err := checkMembers(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// CheckMembers applies the strict member rule to data as it would decode
// into a value of type t; invalid JSON is left to the decoder (nil).
func CheckMembers(data []byte, t reflect.Type) error {
	if !json.Valid(data) {
		return nil
	}
	return checkMembers(data, t)
}

func checkMembers(data []byte, t reflect.Type) error {
	sh := shapeOf(t)
	if sh == nil {
		return nil
	}
	return sh.check(data, SkipSpace(data, 0), "")
}

// shape is what the rule checks of a type: a struct's JSON names (with
// the shape of each field's value) or a map's value shape.
type shape struct {
	isList bool // a slice or array: elem is its elements' shape
	isMap  bool
	names  []string
	fields []*shape // by names' index; nil when there is nothing to check
	elem   *shape   // a map's values
}

// shapes caches the shape of each type checked, complete before it is
// stored: a shape is read by many requests at once and never written after.
var shapes sync.Map // reflect.Type -> *shape (nil stored as a typed nil)

var rawMessage = reflect.TypeFor[json.RawMessage]()

// shapeOf returns the shape of t, nil when no object decoding into t is
// checked.
func shapeOf(t reflect.Type) *shape {
	if t == nil {
		return nil
	}
	if cached, ok := shapes.Load(t); ok {
		return cached.(*shape)
	}
	sh := buildShape(t, map[reflect.Type]*shape{})
	actual, _ := shapes.LoadOrStore(t, sh)
	return actual.(*shape)
}

// buildShape builds the shape of t; building holds the shapes under
// construction, so a recursive type refers to itself.
func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := building[t]; ok {
		return sh
	}
	switch {
	case t == rawMessage:
	case t.Kind() == reflect.Map && t.Key().Kind() == reflect.String:
		sh := &shape{isMap: true}
		building[t] = sh
		sh.elem = buildShape(t.Elem(), building)
		return sh
	case (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8) || t.Kind() == reflect.Array:
		sh := &shape{isList: true}
		building[t] = sh
		if sh.elem = buildShape(t.Elem(), building); sh.elem == nil {
			return nil
		}
		return sh
	case t.Kind() == reflect.Struct:
		sh := &shape{}
		building[t] = sh
		addFields(sh, t, building)
		return sh
	}
	return nil
}

// addFields adds the JSON names of t's fields as encoding/json sees them
// (embedded structs without a tag promote theirs).
func addFields(sh *shape, t reflect.Type, building map[reflect.Type]*shape) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(sh, ft, building)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		sh.names = append(sh.names, name)
		sh.fields = append(sh.fields, buildShape(f.Type, building))
	}
}

// check applies the rule to the value at data[i] (valid JSON); objects
// only, anything else is left to encoding/json.
func (sh *shape) check(data []byte, i int, in string) error {
	if sh.isList {
		return sh.checkList(data, i, in)
	}
	if i >= len(data) || data[i] != '{' {
		return nil
	}
	var seen nameSet
	var err error
	eachValidMember(data, i, func(name string, at int) bool {
		idx := -1
		if sh.isMap {
			idx = 0
		} else {
			for j, n := range sh.names {
				if n == name {
					idx = j
					break
				}
			}
			if idx < 0 {
				for _, n := range sh.names {
					if strings.EqualFold(n, name) { // encoding/json's folding
						err = &MemberError{In: in, Name: name, Want: n}
						return false
					}
				}
				return true // not read
			}
		}
		if !seen.add(name) {
			err = &MemberError{In: in, Name: name}
			return false
		}
		sub := sh.elem
		if !sh.isMap {
			sub = sh.fields[idx]
		}
		if sub != nil {
			path := name
			if in != "" {
				path = in + "." + name
			}
			err = sub.check(data, at, path)
		}
		return err == nil
	})
	return err
}

// checkList applies the rule to each element of the array at data[i].
func (sh *shape) checkList(data []byte, i int, in string) error {
	if i >= len(data) || data[i] != '[' {
		return nil
	}
	i = SkipSpace(data, i+1)
	for n := 0; i < len(data) && data[i] != ']'; n++ {
		if err := sh.elem.check(data, i, in+"["+strconv.Itoa(n)+"]"); err != nil {
			return err
		}
		if i = SkipSpace(data, skipValid(data, i)); i < len(data) && data[i] == ',' {
			i = SkipSpace(data, i+1)
		}
	}
	return nil
}

// nameSet is a set of member names: a list while small, a map past that
// (a map's keys may be many).
type nameSet struct {
	list []string
	m    map[string]struct{}
}

// add adds name and reports whether it was new.
func (s *nameSet) add(name string) bool {
	if s.m != nil {
		if _, dup := s.m[name]; dup {
			return false
		}
		s.m[name] = struct{}{}
		return true
	}
	for _, n := range s.list {
		if n == name {
			return false
		}
	}
	s.list = append(s.list, name)
	if len(s.list) > 16 {
		s.m = make(map[string]struct{}, 2*len(s.list))
		for _, n := range s.list {
			s.m[n] = struct{}{}
		}
	}
	return true
}

// eachValidMember calls f with each member of the object at data[i] (valid
// JSON): its name decoded, and where its value starts. It stops when f
// returns false.
func eachValidMember(data []byte, i int, f func(name string, at int) bool) {
	i = SkipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		end, plain, _ := ScanString(data, i)
		name, _ := DecodeString(data[i:end], plain)
		at := SkipSpace(data, SkipSpace(data, end)+1) // past the ':'
		if !f(name, at) {
			return
		}
		i = SkipSpace(data, skipValid(data, at))
		if i < len(data) && data[i] == ',' {
			i = SkipSpace(data, i+1)
		}
	}
}

// skipValid returns the end of the valid JSON value at data[i], at any
// depth (without recursion).
func skipValid(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			end, _, _ := ScanString(data, i)
			i = end
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		default:
			i++
			if depth == 0 {
				// A scalar: up to the next delimiter.
				for i < len(data) && !isDelim(data[i]) {
					i++
				}
			}
		}
		if depth == 0 {
			return i
		}
	}
	return i
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
