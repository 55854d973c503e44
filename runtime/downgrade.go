package runtime

import (
	"context"
	"slices"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// Dropped names the properties of the generated form T that the client of
// the tool call ctx belongs to is not asked, sorted: optional properties
// whose shape its protocol version cannot carry (a multi-select on
// 2025-06-18). Elicit[T] asks the rest; each dropped field keeps the
// default of its struct tag, or its zero value (not a WithDefaults value,
// which the user was never shown), and an answer that has one anyway is a
// *ContentError. A required property the version cannot carry is not
// dropped: the form cannot be asked at all, and CanElicit[T] says why.
//
// Dropped is nil when every property is asked, and also when T cannot be
// asked at all (CanElicit[T] is not nil). A handler uses it to say what it
// did without:
//
//	if d := runtime.Dropped[DeployForm](ctx); len(d) > 0 {
//		note = fmt.Sprintf(" (not asked: %s)", strings.Join(d, ", "))
//	}
func Dropped[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) []string {
	variant, err := formFor[T, P](ctx)
	if err != nil {
		return nil
	}
	return slices.Clone(variant.Dropped)
}
