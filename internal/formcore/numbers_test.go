package formcore

import (
	"strings"
	"testing"
)

// TestIntegersOutOfRange: an integer beyond the field's range is named as
// out of range however it is written (an exponent, a million digits), and
// a number with a fraction as not an integer; reading a million digits
// allocates nothing.
func TestIntegersOutOfRange(t *testing.T) {
	huge := "1" + strings.Repeat("0", 1_000_000)
	for _, c := range []struct{ num, int64Want, uintWant string }{
		{"1e309", "must be at most 4294967295", "must be at most 4294967295"},
		{huge, "must be at most 4294967295", "must be at most 4294967295"},
		{"-" + huge, "must be at least 1", "must be at least 0"},
		{"-1e309", "must be at least 1", "must be at least 0"},
		{"1e400000000000000000000", "must be at most 4294967295", "must be at most 4294967295"},
		{huge + ".5", "must be at most 4294967295", "must be at most 4294967295"},
		{"99999999999999999999", "must be at most 4294967295", "must be at most 4294967295"},
		{"1e-400", "must be an integer", "must be an integer"},
		{"1.5", "must be an integer", "must be an integer"},
		{"0." + strings.Repeat("0", 1000) + "1", "must be an integer", "must be an integer"},
		{"4294967296", "must be at most 4294967295", "must be at most 4294967295"},
		{"4294967295.000", "", ""},
		{"4.294967295e9", "", ""},
		{"42949672950e-1", "", ""},
		{"0.00000000000000000000000000042949672950e+37", "", ""},
		{"-0", "must be at least 1", ""},
		{"0e999999", "must be at least 1", ""},
		{"-5", "must be at least 1", "must be at least 0"},
	} {
		var d Decoder
		d.Reset([]byte(c.num))
		d.intValue("asn", 1, 4294967295)
		if got := problemText(&d); got != c.int64Want {
			t.Errorf("intValue(%.40s): %q, want %q", c.num, got, c.int64Want)
		}
		d.Reset([]byte(c.num))
		d.uintValue("asn", 4294967295)
		if got := problemText(&d); got != c.uintWant {
			t.Errorf("uintValue(%.40s): %q, want %q", c.num, got, c.uintWant)
		}
	}
	allocs := func(num string) float64 {
		b := []byte(num)
		return testing.AllocsPerRun(10, func() {
			var d Decoder
			d.Reset(b)
			d.uintValue("asn", 4294967295)
		})
	}
	if short, long := allocs("4294967296"), allocs(huge); long > short {
		t.Errorf("a million-digit integer: %v allocations, a ten-digit one %v", long, short)
	}
}

func problemText(d *Decoder) string {
	if len(d.problems) == 0 {
		return ""
	}
	return d.problems[0].Message
}
