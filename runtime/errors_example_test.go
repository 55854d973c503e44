package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// A handler tells bad content from the other outcomes with errors.Is, and
// reads every failing property from the *ContentError: here, to ask again
// with a message that says what to fix. The answer is decoded with
// DecodeAnswer, as Elicit[T] does with the client's result.
func ExampleContentError() {
	// The client's result for an elicitation of AskForm (name, count).
	result := json.RawMessage(`{"action":"accept","content":{"name":7,"colour":"red"}}`)

	_, err := runtime.DecodeAnswer[testform.AskForm](result)
	var ce *runtime.ContentError
	if errors.Is(err, runtime.ErrElicitInvalidContent) && errors.As(err, &ce) {
		for _, p := range ce.Problems {
			fmt.Printf("%s: %s\n", p.Property, p.Message)
		}
		fmt.Println("ask again:", ce.Detail())
	}
	// Output:
	// colour: is not a property of the form
	// count: is required
	// name: must be a string
	// ask again: "colour" is not a property of the form; "count" is required; "name" must be a string
}
