package formcore

import (
	"math"
	"strconv"
	"time"
)

// The field readers below are what a generated ElicitDecode calls for each
// known key: one call marks property i as present (Field), reads its value
// and applies every check the schema states for it, in the order the
// checks always ran, and reports whether the caller should store the
// value. Keeping the checks here instead of in every generated decoder
// keeps generated files small; the messages are the Decoder's own.
//
// nonZero is validate:"required" on the Go field: besides being present,
// the value must not be the zero value. Such a value still reports true,
// so it is stored, as the field would be by hand-written decoding; the
// problem makes the answer fail.

// NoMinimum and NoMaximum are the bounds FloatField gets for a number
// property without a minimum or maximum: floatValue only returns finite values,
// so no value is beyond them.
const (
	NoMinimum = -math.MaxFloat64
	NoMaximum = math.MaxFloat64
)

// first marks property i present and reports whether it was not yet: the
// readers' Field, small enough to be inlined into them (a repeated key is
// reported by duplicate).
func (d *Decoder) first(i int) bool {
	w, b := uint(i)/64, uint64(1)<<(uint(i)%64)
	if d.seen[w]&b != 0 {
		return false
	}
	d.seen[w] |= b
	return true
}

// duplicate reports a repeated key, as Field does, and skips its value.
func (d *Decoder) duplicate(property string) {
	d.Problem(property, "appears more than once")
	d.skipCurrent()
}

// StringField reads string property i, checking its length in Unicode code
// points against minLength and maxLength (-1: no bound) and then its
// format ("": none), as CheckLength and CheckFormat do.
func (d *Decoder) StringField(i int, property string, minLength, maxLength int, format string, nonZero bool) (string, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return "", false
	}
	if d.peek() == 'n' && d.blank(i, property) {
		return "", false
	}
	// StringBytes, written out: one call less on the path of every field.
	if !d.take(property, '"', "must be a string") {
		return "", false
	}
	b, ok := d.readString(true)
	d.state = stateValueRead
	if !ok {
		return "", false
	}
	if len(b) == 0 {
		// Empty: absent unless the property is required, when these
		// checks count (Require).
		d.markEmpty(i)
		d.holding = true
		d.checkString(property, "", minLength, maxLength, format, nonZero)
		d.holding = false
		return "", false
	}
	v := string(b)
	if !d.checkString(property, v, minLength, maxLength, format, nonZero) {
		return "", false
	}
	return v, true
}

// checkString applies StringField's checks to v and reports whether v is
// to be stored (a zero value that validate:"required" refuses is).
func (d *Decoder) checkString(property, v string, minLength, maxLength int, format string, nonZero bool) bool {
	if (minLength >= 0 || maxLength >= 0) && !d.checkLength(property, v, minLength, maxLength) {
		return false
	}
	if format != "" && !d.checkFormat(property, format, v) {
		return false
	}
	if nonZero && v == "" {
		d.Problem(property, "is required")
	}
	return true
}

// BoolField reads boolean property i.
func (d *Decoder) BoolField(i int, property string, nonZero bool) (bool, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return false, false
	}
	// Bool, written out.
	var v bool
	switch c := d.peek(); {
	case c != 't' && c != 'f':
		if !d.blank(i, property) {
			d.mismatch(property, "must be a boolean")
		}
		return false, false
	case d.literal("true"):
		v = true
	case !d.literal("false"):
		d.state = stateValueRead
		d.syntax("invalid literal")
		return false, false
	}
	d.state = stateValueRead
	if nonZero && !v {
		d.Problem(property, "is required")
	}
	return v, true
}

// IntField reads integer property i in [lo, hi]: the range of the Go
// field's type narrowed by the schema's minimum and maximum, as Int checks
// it.
func (d *Decoder) IntField(i int, property string, lo, hi int64, nonZero bool) (int64, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return 0, false
	}
	if d.blankAt(i, property) {
		return 0, false
	}
	v, ok := d.intValue(property, lo, hi)
	if !ok {
		return 0, false
	}
	if nonZero && v == 0 {
		d.Problem(property, "is required")
	}
	return v, true
}

// UintField reads non-negative integer property i in [lo, hi]: hi is the
// range of the Go field's type narrowed by the schema's maximum, lo the
// schema's minimum (0: none).
func (d *Decoder) UintField(i int, property string, lo, hi uint64, nonZero bool) (uint64, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return 0, false
	}
	if d.blankAt(i, property) {
		return 0, false
	}
	v, ok := d.uintValue(property, hi)
	if !ok {
		return 0, false
	}
	if v < lo {
		d.Problem(property, "must be at least "+strconv.FormatUint(lo, 10))
		return 0, false
	}
	if nonZero && v == 0 {
		d.Problem(property, "is required")
	}
	return v, true
}

// FloatField reads number property i, which must fit a float of bitSize
// (32 or 64) and lie in [lo, hi] (NoMinimum, NoMaximum: no bound).
func (d *Decoder) FloatField(i int, property string, bitSize int, lo, hi float64, nonZero bool) (float64, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return 0, false
	}
	if d.blankAt(i, property) {
		return 0, false
	}
	v, ok := d.floatValue(property, bitSize)
	if !ok {
		return 0, false
	}
	if v < lo {
		d.Problem(property, "must be at least "+strconv.FormatFloat(lo, 'f', -1, 64))
		return 0, false
	}
	if v > hi {
		d.Problem(property, "must be at most "+strconv.FormatFloat(hi, 'f', -1, 64))
		return 0, false
	}
	if nonZero && v == 0 {
		d.Problem(property, "is required")
	}
	return v, true
}

// TimeField reads property i as a time in format ("date-time" or "date"),
// as Time does.
func (d *Decoder) TimeField(i int, property, format string, nonZero bool) (time.Time, bool) {
	if !d.first(i) {
		d.duplicate(property)
		return time.Time{}, false
	}
	if d.blankAt(i, property) {
		return time.Time{}, false
	}
	v, ok := d.timeValue(property, format)
	if !ok {
		return time.Time{}, false
	}
	if nonZero && v.IsZero() {
		d.Problem(property, "is required")
	}
	return v, true
}

// Require records "is required" for property i when the answer lacks it.
// A required property that arrived empty counts as given: the problems its
// reader held back for it are recorded (see empty.go).
func (d *Decoder) Require(i int, property string) {
	if d.unblank(i, property) {
		return
	}
	if !d.Seen(i) {
		d.Problem(property, "is required")
	}
}
