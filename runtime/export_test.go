package runtime

import (
	"encoding/json"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// The black-box tests (package runtime_test) reach these unexported
// functions under their former exported names.

func PrepareElicit[T any, P interface {
	*T
	formimpl.Form
}](version string, opts ...ElicitOption) (formCall[T, P], error) {
	return prepareElicit[T, P](version, opts...)
}

func ElicitOutcome(result json.RawMessage) (json.RawMessage, error) {
	return elicitOutcome(result, true)
}
