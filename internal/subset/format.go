package subset

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// ErrBadFormat is matched (errors.Is) by every error CheckFormat returns for
// a value that breaks a known format.
var ErrBadFormat = errors.New("value does not match its format")

// ErrUnknownFormat is wrapped by the error CheckFormat returns for a format
// name outside "email", "uri", "date", "date-time".
var ErrUnknownFormat = errors.New("unknown format")

// formatError is a preallocated, comparable format failure: returning one
// costs no allocation.
type formatError struct{ msg string }

func (e *formatError) Error() string        { return e.msg }
func (e *formatError) Is(target error) bool { return target == ErrBadFormat }

var (
	errEmail    = &formatError{"must be an email address"}
	errURI      = &formatError{"must be a URI with a scheme, such as https://example.com"}
	errDate     = &formatError{"must be a date (YYYY-MM-DD)"}
	errDateTime = &formatError{"must be a date-time (RFC 3339, such as 2025-01-31T09:30:00Z)"}
)

// CheckFormat reports whether s is valid for an elicitation string format:
//
//   - "email": a dot-atom local part (at most 64 bytes), "@", and a DNS name
//     with at least two labels, ASCII only, at most 254 bytes in all — the
//     same shape JSON Schema validators such as AJV accept;
//   - "uri": an RFC 3986 URI, which always starts with a scheme
//     ("example.com" alone is not one), with valid percent-escapes;
//   - "date": an RFC 3339 full-date on the real calendar (no 2025-02-30);
//   - "date-time": an RFC 3339 date-time, offset required ("Z" or ±hh:mm).
//
// It returns nil when s is valid, an error matching ErrBadFormat when it is
// not, and one wrapping ErrUnknownFormat for another format. It does not
// allocate when s is valid or breaks a known format.
func CheckFormat(format, s string) error {
	switch format {
	case "email":
		if !isEmail(s) {
			return errEmail
		}
	case "uri":
		if !isURI(s) {
			return errURI
		}
	case "date":
		if _, _, _, ok := parseDate(s); !ok {
			return errDate
		}
	case "date-time":
		if _, ok := parseDateTime(s); !ok {
			return errDateTime
		}
	default:
		return fmt.Errorf("%w %q: must be one of %s%s", ErrUnknownFormat, format, quoteList(knownFormats), DidYouMean(format, knownFormats))
	}
	return nil
}

// ParseDate parses an RFC 3339 full-date ("2025-01-31") as midnight UTC.
func ParseDate(s string) (time.Time, error) {
	y, m, d, ok := parseDate(s)
	if !ok {
		return time.Time{}, fmt.Errorf("date %q %w", s, errDate)
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), nil
}

// ParseDateTime parses an RFC 3339 date-time. It accepts what CheckFormat
// accepts, which is more than time.Parse(time.RFC3339, s) does: a lowercase
// "t" or "z", and a leap second (:60, which becomes the next second).
func ParseDateTime(s string) (time.Time, error) {
	dt, ok := parseDateTime(s)
	if !ok {
		return time.Time{}, fmt.Errorf("date-time %q %w", s, errDateTime)
	}
	loc := time.UTC
	if dt.offset != 0 || dt.local {
		loc = time.FixedZone("", dt.offset)
	}
	return time.Date(dt.year, time.Month(dt.month), dt.day, dt.hour, dt.min, dt.sec, dt.nsec, loc), nil
}

// --- email ---

func isAtext(c byte) bool {
	if isAlnum(c) {
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

func isEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at > 64 {
		return false
	}
	local := s[:at]
	prevDot := true // a leading dot is not allowed
	for i := 0; i < len(local); i++ {
		c := local[i]
		if c == '.' {
			if prevDot {
				return false
			}
			prevDot = true
			continue
		}
		if !isAtext(c) {
			return false
		}
		prevDot = false
	}
	if prevDot {
		return false
	}
	return isDNSName(s[at+1:], true)
}

// isDNSName checks a hostname: labels of letters, digits and inner hyphens,
// 1–63 bytes each, at most 253 bytes; the last label not all digits.
func isDNSName(s string, needDot bool) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	labels := 0
	for s != "" {
		label := s
		if i := strings.IndexByte(s, '.'); i >= 0 {
			label, s = s[:i], s[i+1:]
			if s == "" {
				return false // trailing dot
			}
		} else {
			s = ""
		}
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		digits := true
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !isAlnum(c) && c != '-' {
				return false
			}
			if c < '0' || c > '9' {
				digits = false
			}
		}
		labels++
		if s == "" && digits {
			return false
		}
	}
	return !needDot || labels >= 2
}

// --- uri (RFC 3986) ---

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
func isHex(c byte) bool   { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

func isUnreserved(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }

// validChars reports whether s is made of unreserved characters, sub-delims,
// valid percent-escapes and the bytes in extra.
func validChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUnreserved(c) || isSubDelim(c):
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		c := s[i]
		if !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	rest := s[colon+1:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		if !validChars(rest[i+1:], ":@/?") {
			return false
		}
		rest = rest[:i]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		if !validChars(rest[i+1:], ":@/?") {
			return false
		}
		rest = rest[:i]
	}
	if strings.HasPrefix(rest, "//") {
		auth := rest[2:]
		path := ""
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			auth, path = auth[:i], auth[i:]
		}
		if !isAuthority(auth) {
			return false
		}
		rest = path
	}
	return validChars(rest, ":@/")
}

func isAuthority(a string) bool {
	if i := strings.IndexByte(a, '@'); i >= 0 {
		if !validChars(a[:i], ":") {
			return false
		}
		a = a[i+1:]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[1:end], a[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
		}
		if !isIPLiteral(host) {
			return false
		}
	} else {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i+1:]
		}
		if !validChars(host, "") {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// isIPLiteral checks the inside of [...]: an IPv6 address or an IPvFuture.
func isIPLiteral(h string) bool {
	if len(h) > 1 && h[0]|0x20 == 'v' {
		dot := strings.IndexByte(h, '.')
		if dot < 2 || dot == len(h)-1 {
			return false
		}
		for i := 1; i < dot; i++ {
			if !isHex(h[i]) {
				return false
			}
		}
		return validChars(h[dot+1:], ":")
	}
	addr, err := netip.ParseAddr(h)
	return err == nil && addr.Is6() && addr.Zone() == ""
}

// --- date and date-time (RFC 3339) ---

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func parseDate(s string) (year, month, day int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	y, ok1 := digits(s[:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

type dateTime struct {
	year, month, day, hour, min, sec, nsec int
	offset                                 int  // seconds east of UTC
	local                                  bool // written as an offset, not Z
}

func parseDateTime(s string) (dateTime, bool) {
	var dt dateTime
	// 2006-01-02T15:04:05Z is the shortest form.
	if len(s) < 20 || s[10]|0x20 != 't' {
		return dt, false
	}
	var ok bool
	if dt.year, dt.month, dt.day, ok = parseDate(s[:10]); !ok {
		return dt, false
	}
	t := s[11:]
	if t[2] != ':' || t[5] != ':' {
		return dt, false
	}
	h, ok1 := digits(t[:2])
	m, ok2 := digits(t[3:5])
	sec, ok3 := digits(t[6:8])
	// A leap second can only be the last second of a minute (RFC 3339 5.7).
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 || (sec == 60 && m != 59) {
		return dt, false
	}
	dt.hour, dt.min, dt.sec = h, m, sec
	t = t[8:]
	if t != "" && t[0] == '.' {
		i := 1
		for i < len(t) && isDigit(t[i]) {
			if i <= 9 {
				dt.nsec = dt.nsec*10 + int(t[i]-'0')
			}
			i++
		}
		if i == 1 {
			return dt, false
		}
		for n := i; n <= 9; n++ {
			dt.nsec *= 10
		}
		t = t[i:]
	}
	switch {
	case t == "Z" || t == "z":
		return dt, true
	case len(t) == 6 && (t[0] == '+' || t[0] == '-') && t[3] == ':':
		oh, ok1 := digits(t[1:3])
		om, ok2 := digits(t[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return dt, false
		}
		dt.offset = oh*3600 + om*60
		if t[0] == '-' {
			dt.offset = -dt.offset
		}
		dt.local = true
		return dt, true
	}
	return dt, false
}
