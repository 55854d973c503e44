package subset

import (
	"strconv"
	"strings"
)

// Suggest returns the candidate closest to word, for a "did you mean"
// hint, or "" when none is close enough. Case is ignored ("maxlength"
// gives "maxLength"), and an adjacent transposition counts as one edit
// ("maxLenght" gives "maxLength"). Close enough is one edit for words of
// up to four letters, two for longer ones, and always fewer edits than
// the word has letters, so short unrelated words suggest nothing. Ties go
// to the earliest candidate. The generator uses it for directives, tag
// keys, validate rules and formats; the checker for formats.
func Suggest(word string, candidates []string) string {
	w := strings.ToLower(word)
	limit := 1
	if len(w) > 4 {
		limit = 2
	}
	if limit >= len(w) {
		limit = len(w) - 1
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := editDistance(w, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: the
// fewest insertions, deletions, substitutions and adjacent transpositions,
// by byte.
func editDistance(a, b string) int {
	// Three rows suffice: the transposition looks two rows back.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// DidYouMean is Suggest as the end of a diagnostic, `: did you mean "x"`,
// or "" when nothing is close: every "did you mean" reads the same.
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return ": did you mean " + strconv.Quote(s)
	}
	return ""
}
