package formcore

import "unicode/utf8"

// MaxEcho is how many bytes of a name or value from the client an error
// message repeats (see Clip): a reply must not grow with the request.
const MaxEcho = 64

// Clip returns s when it is at most MaxEcho bytes, and otherwise its first
// MaxEcho bytes or fewer, cut at a character boundary, followed by "…"
// to mark the cut. Invalid UTF-8 in the kept part stays as it is: the JSON
// encoder replaces it.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	n := MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
