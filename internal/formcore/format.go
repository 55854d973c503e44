package formcore

import (
	"errors"
	"time"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/subset"
)

// checkFormat checks s against format and records a problem when it does
// not match.
func (d *Decoder) checkFormat(property, format, s string) bool {
	err := subset.CheckFormat(format, s)
	if err == nil {
		return true
	}
	if errors.Is(err, subset.ErrBadFormat) {
		d.Problem(property, err.Error())
	} else {
		d.Problem(property, "cannot be checked: "+err.Error())
	}
	return false
}

// checkLength checks the length of s in Unicode code points, as JSON
// Schema counts it, against min and max (-1: no bound).
func (d *Decoder) checkLength(property, s string, min, max int) bool {
	n := utf8.RuneCountInString(s)
	if min >= 0 && n < min {
		d.Problem(property, "must be at least "+plural(min, "character"))
		return false
	}
	if max >= 0 && n > max {
		d.Problem(property, "must be at most "+plural(max, "character"))
		return false
	}
	return true
}

// CheckItems checks the number of selected items against min and max
// (-1: no bound).
func (d *Decoder) CheckItems(property string, n, min, max int) bool {
	if min >= 0 && n < min {
		d.Problem(property, "must have at least "+plural(min, "item"))
		return false
	}
	if max >= 0 && n > max {
		d.Problem(property, "must have at most "+plural(max, "item"))
		return false
	}
	return true
}

// timeValue reads a string in format "date-time" (RFC 3339) or "date"
// (YYYY-MM-DD, as midnight UTC).
func (d *Decoder) timeValue(property, format string) (time.Time, bool) {
	b, ok := d.StringBytes(property)
	if !ok {
		return time.Time{}, false
	}
	var t time.Time
	var err error
	if format == "date" {
		t, err = subset.ParseDate(string(b))
	} else {
		t, err = subset.ParseDateTime(string(b))
	}
	if err != nil {
		// The parse error quotes the value; the check's message does not.
		d.checkFormat(property, format, string(b))
		return time.Time{}, false
	}
	return t, true
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
