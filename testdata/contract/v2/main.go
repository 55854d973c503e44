// Command v2 is a form and the code elicitgen generated for it at version 2
// of the generated-code contract, kept exactly as written: the tests of
// runtime/formimpl build it against the current runtime and run it, to show
// that a runtime upgrade keeps accepting generated code it accepted before.
// Never regenerate it; a new contract version gets its own directory.
//
// It decodes each argument as the result of an elicitation and prints the
// form, or the problems of a bad answer, one line each.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/go-elicit/elicit/runtime"
)

// TicketForm asks for a support ticket.
//
//elicit:form
type TicketForm struct {
	// What is wrong.
	Title string `json:"title" jsonschema:"title=Title,minLength=1,maxLength=80"`
	// How bad it is, 1 to 5.
	Priority int `json:"priority" jsonschema:"title=Priority,minimum=1,maximum=5"`
	// Who to tell.
	Contact string `json:"contact,omitempty" jsonschema:"title=Contact,format=email"`
	// Where it happens.
	Area Area `json:"area" jsonschema:"title=Area,default=web"`
}

// Area is the part of the product a ticket is about.
type Area string

// The areas.
const (
	AreaWeb Area = "web"
	AreaAPI Area = "api"
)

func main() {
	for _, answer := range os.Args[1:] {
		t, err := runtime.DecodeAnswer[TicketForm](json.RawMessage(answer))
		var ce *runtime.ContentError
		switch {
		case errors.As(err, &ce) && errors.Is(err, runtime.ErrElicitInvalidContent):
			for _, p := range ce.Problems {
				fmt.Printf("problem %s: %s\n", p.Property, p.Message)
			}
		case err != nil:
			fmt.Printf("error %v\n", err)
		default:
			fmt.Printf("form %+v\n", t)
		}
	}
}
