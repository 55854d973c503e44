package formcore

import (
	"fmt"
	"reflect"
)

// Fingerprint hashes the field names and struct tags of a form type,
// descending into embedded structs. elicitgen computes the same value from
// go/types and writes it into the generated code; the two differ when the
// struct's tags changed after generation, which the compiler cannot see
// (struct conversions ignore tags).
func Fingerprint(t reflect.Type) uint64 {
	h := uint64(fnvOffset)
	fingerprint(&h, t, 0)
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	// fingerprintDepth bounds the walk into embedded structs; gen uses the
	// same bound.
	fingerprintDepth = 8
)

func fnvString(h *uint64, s string) {
	for i := 0; i < len(s); i++ {
		*h ^= uint64(s[i])
		*h *= fnvPrime
	}
	*h ^= 0xff
	*h *= fnvPrime
}

func fingerprint(h *uint64, t reflect.Type, depth int) {
	fnvString(h, "{")
	for i := range t.NumField() {
		f := t.Field(i)
		fnvString(h, f.Name)
		fnvString(h, string(f.Tag))
		if f.Anonymous && f.Type.Kind() == reflect.Struct && depth < fingerprintDepth {
			fingerprint(h, f.Type, depth+1)
		}
	}
	fnvString(h, "}")
}

// CheckFingerprint panics when the struct behind form (a nil pointer to a
// form type) no longer has the tags it had when elicitgen generated its
// code: the schema and decoder would silently disagree with the source.
// Generated code calls it from init, so the first test or run says so.
func CheckFingerprint(form any, name string, want uint64) {
	t := reflect.TypeOf(form)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("elicit: CheckFingerprint(%T): want a pointer to a struct", form))
	}
	if got := Fingerprint(t.Elem()); got != want {
		panic(fmt.Sprintf("elicit: the struct tags of %s changed after its code was generated: run go generate", name))
	}
}
