package formimpl

import (
	"errors"
	"strconv"
	"strings"
)

// ErrInvalidContent is matched (errors.Is) by every *ContentError.
var ErrInvalidContent = errors.New("elicit: content does not match the form")

// Problem is one failing property of an accepted answer.
type Problem struct {
	// Property is the JSON property name ("" for the content as a whole).
	Property string
	// Message says what is wrong, lowercase, no final period: "is required",
	// "must be at least 1", "must be one of \"a\", \"b\"".
	Message string
}

// ContentError reports accepted content that breaks the form's schema or its
// validate tags. It names every failing property, sorted by property name.
type ContentError struct {
	Problems []Problem
}

func (e *ContentError) Error() string { return "elicit: invalid content: " + e.Detail() }

// Detail is every problem, by property, without Error's prefix:
// `"address" must be an IP address; "asn" must be at least 1`.
func (e *ContentError) Detail() string {
	var b strings.Builder
	for i, p := range e.Problems {
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

// Is makes errors.Is(err, ErrInvalidContent) true for every *ContentError.
func (e *ContentError) Is(target error) bool { return target == ErrInvalidContent }
