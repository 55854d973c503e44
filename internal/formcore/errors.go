package formcore

import (
	"errors"
	"strconv"
	"strings"
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
}

func (e *ContentError) Error() string { return ErrorText(e.Problems) }

// Is makes errors.Is(err, ErrInvalidContent) true for every *ContentError.
func (e *ContentError) Is(target error) bool { return target == ErrInvalidContent }

// newContentError makes the error for problems (sorted, not empty). The
// runtime sets it from init, so that a generated ElicitDecode, called by
// the runtime or by hand (a fuzz test, say), gives the user-facing
// *runtime.ContentError: a program that can name that type links the
// runtime.
var newContentError = func(problems []Problem) error { return &ContentError{Problems: problems} }

// SetContentError makes f build every content error from here on. Only
// package runtime calls it, from init, before any decoding.
func SetContentError(f func(problems []Problem) error) { newContentError = f }

// problemLike is a Problem by another name: the runtime's.
type problemLike interface {
	~struct {
		Property string
		Message  string
	}
}

// ErrorText is the Error of a content error with these problems.
func ErrorText[P problemLike](problems []P) string {
	return "elicit: invalid content: " + Detail(problems)
}

// Detail is every problem, by property, without ErrorText's prefix:
// `"address" must be an IP address; "asn" must be at least 1`.
func Detail[P problemLike](problems []P) string {
	var b strings.Builder
	for i, q := range problems {
		p := Problem(q)
		if i > 0 {
			b.WriteString("; ")
		}
		if p.Property != "" {
			b.WriteString(strconv.Quote(p.Property))
			b.WriteByte(' ')
		}
		b.WriteString(p.Message)
	}
	return b.String()
}
