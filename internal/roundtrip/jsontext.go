package roundtrip

import (
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// JSON text helpers for the hot path of a 2026-07-28 round trip: reading a
// request's few fields and hashing its arguments without decoding them
// into maps. They are conservative by design: a scan reports ok only for
// input it is sure is valid JSON and that it reads exactly as encoding/json
// would; anything else (escaped or non-UTF-8 keys, very deep nesting, ...)
// reports !ok, and the caller falls back to encoding/json, which then
// decides, errors included.

// maxScanDepth bounds the nesting the scanner follows before it hands the
// input to encoding/json (which allows 10000).
const maxScanDepth = 512

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// ScanValue returns the end of the JSON value that starts at b[i] (no
// leading space). ok is false when b[i:] does not start with a valid value
// or the value is too deeply nested for the fast path.
func ScanValue(b []byte, i int) (end int, ok bool) { return scanValue(b, i, 0) }

func scanValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		if depth >= maxScanDepth {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, _, ok = ScanString(b, i); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			}
			if i, ok = scanValue(b, SkipSpace(b, i+1), depth+1); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '}':
				return i + 1, true
			case ',':
				i = SkipSpace(b, i+1)
			default:
				return i, false
			}
		}
	case c == '[':
		if depth >= maxScanDepth {
			return i, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = scanValue(b, i, depth+1); !ok {
				return i, false
			}
			if i = SkipSpace(b, i); i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ']':
				return i + 1, true
			case ',':
				i = SkipSpace(b, i+1)
			default:
				return i, false
			}
		}
	case c == '"':
		end, _, ok := ScanString(b, i)
		return end, ok
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return scanNumber(b, i)
	}
	return i, false
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// ScanString returns the end of the JSON string that starts at b[i] (its
// opening quote). plain reports a string whose bytes between the quotes
// are its value as encoding/json decodes it: no escapes, valid UTF-8.
func ScanString(b []byte, i int) (end int, plain, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false, false
	}
	plain = true
	// Most strings (keys, ids, requestState's base64) are plain ASCII
	// throughout: a word at a time first; once a string has shown a byte
	// that is not plain, it goes on byte by byte (a text with a few such
	// bytes in each word costs more to test in words than in bytes).
	for i = skipPlain8(b, i+1); i < len(b); {
		for i < len(b) && asciiPlain[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain, true
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return i, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false, false
				}
				i += 6
			default:
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false // encoding/json replaces it when decoding
			}
			i += size
		}
	}
	return i, false, false
}

// skipPlain8 skips b[i:] eight bytes at a time while all eight are
// asciiPlain, and returns where it stopped: at most 7 bytes before the end,
// or at a word that holds a byte that is not. It tests a word at once (the "has a byte
// less than n" and "has a zero byte" tricks): a word it passes holds no
// byte below 0x20, above 0x7f, '"' or '\\'; it may stop early, never late.
func skipPlain8(b []byte, i int) int {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	for i+8 <= len(b) {
		v := binary.LittleEndian.Uint64(b[i:])
		q := v ^ ('"' * ones)  // a zero byte where v has '"'
		e := v ^ ('\\' * ones) // a zero byte where v has '\\'
		if ((v-0x20*ones)&^v|(q-ones)&^q|(e-ones)&^e|v)&high != 0 {
			return i // a byte below 0x20, '"', '\\' or one above 0x7f
		}
		i += 8
	}
	return i
}

// asciiPlain marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var asciiPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// DecodeString decodes the JSON string token tok (quotes included, as
// ScanString delimited it) as encoding/json would.
func DecodeString(tok []byte, plain bool) (string, error) {
	if plain {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

// AppendString appends s as a JSON string, escaped exactly as json.Marshal
// escapes it (HTML-safe: <, > and & as \u003c..., U+2028 and U+2029
// escaped, invalid UTF-8 as \ufffd).
func AppendString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// A string of at most 4 bytes converts on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// EachMember calls f with each member of the JSON object that starts at
// b[i] (its '{'): the key as sent, between its quotes, and the value's
// bytes. ok is false when the object is not valid JSON, a key is escaped
// or not valid UTF-8 (its text is then not its value), the nesting is too
// deep, or f returns false; the caller then falls back to encoding/json.
func EachMember(b []byte, i int, f func(key, value []byte) bool) (end int, ok bool) {
	return EachMemberAt(b, i, func(key []byte, at int) (int, bool) {
		end, ok := scanValue(b, at, 1)
		return end, ok && f(key, b[at:end])
	})
}

// EachMemberAt is EachMember for a caller that reads the values itself,
// in the same pass: f gets the index of the value and returns its end
// (ScanValue finds it for a value f does not read) and whether to go on.
func EachMemberAt(b []byte, i int, f func(key []byte, at int) (end int, ok bool)) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		kend, plain, ok := ScanString(b, i)
		if !ok || !plain {
			return i, false
		}
		key := b[i+1 : kend-1]
		if i = SkipSpace(b, kend); i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i = SkipSpace(b, i+1); i >= len(b) {
			return i, false
		}
		if i, ok = f(key, i); !ok {
			return i, false
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return i, false
		}
	}
}

// StringValue decodes the JSON string value (quotes included) as
// encoding/json would; ok is false when value is not a string.
func StringValue(value []byte) (s string, ok bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	end, plain, ok := ScanString(value, 0)
	if !ok || end != len(value) {
		return "", false
	}
	s, err := DecodeString(value, plain)
	return s, err == nil
}
