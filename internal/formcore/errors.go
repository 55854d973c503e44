package formcore

import (
	"errors"
	"strconv"
	"strings"

	"github.com/go-elicit/elicit/internal/subset"
)

// ErrInvalidContent is matched (errors.Is) by every content error; the
// runtime exports it as runtime.ErrElicitInvalidContent.
var ErrInvalidContent = errors.New("elicit: content does not match the form")

// Problem is one failing property of an accepted answer.
type Problem struct {
	// Property is the JSON property name ("" for the content as a whole).
	Property string
	// Message says what is wrong, lowercase, no final period: "is required",
	// "must be at least 1", "must be one of \"a\", \"b\"".
	Message string
}

// ContentError is the content error of a program that does not link the
// runtime (which makes its own; see SetContentError).
type ContentError struct {
	Problems []Problem
	// More counts the problems beyond Problems (see MaxProblems).
	More int
}

func (e *ContentError) Error() string { return ErrorText(e.Problems, e.More) }

// Is makes errors.Is(err, ErrInvalidContent) true for every *ContentError.
func (e *ContentError) Is(target error) bool { return target == ErrInvalidContent }

// newContentError makes the error for problems (sorted, not empty) and
// more beyond them. The runtime sets it from init, so that a generated
// ElicitDecode, called by the runtime or by hand (a fuzz test, say), gives
// the user-facing *runtime.ContentError: a program that can name that type
// links the runtime.
var newContentError = func(problems []Problem, more int) error {
	return &ContentError{Problems: problems, More: more}
}

// SetContentError makes f build every content error from here on. Only
// package runtime calls it, from init, before any decoding.
func SetContentError(f func(problems []Problem, more int) error) { newContentError = f }

// problemLike is a Problem by another name: the runtime's.
type problemLike interface {
	~struct {
		Property string
		Message  string
	}
}

// ErrorText is the Error of a content error with these problems and more
// beyond them.
func ErrorText[P problemLike](problems []P, more int) string {
	return "elicit: invalid content: " + Detail(problems, more)
}

// Detail is the problems, by property, without ErrorText's prefix:
// `"address" must be an IP address; "asn" must be at least 1`. It names
// at most MaxProblems of them, each property clipped (subset.Clip), and
// counts the rest and more: `…; … and 12 more problems`. So its length
// has a bound, whatever the content was.
func Detail[P problemLike](problems []P, more int) string {
	if len(problems) > MaxProblems {
		more += len(problems) - MaxProblems
		problems = problems[:MaxProblems]
	}
	var b strings.Builder
	for i, q := range problems {
		p := Problem(q)
		if i > 0 {
			b.WriteString("; ")
		}
		if p.Property != "" {
			b.WriteString(strconv.Quote(subset.Clip(p.Property)))
			b.WriteByte(' ')
		}
		b.WriteString(p.Message)
	}
	if more > 0 {
		b.WriteString("; … and ")
		b.WriteString(strconv.Itoa(more))
		if more == 1 {
			b.WriteString(" more problem")
		} else {
			b.WriteString(" more problems")
		}
	}
	return b.String()
}
