package main

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// BookingForm is what every load call elicits: a string with a length
// range, an integer with bounds, a titled enum and a boolean, all required,
// so that each way content can break the schema has a property to break.
//
//elicit:form
type BookingForm struct {
	// Who the seats are for.
	Name string `json:"name" jsonschema:"title=Name,minLength=1,maxLength=40"`
	// How many seats to book.
	Seats int64 `json:"seats" jsonschema:"title=Seats,minimum=1,maximum=9"`
	// The seating class.
	Class Class `json:"class" jsonschema:"title=Class"`
	// Whether a window seat is wanted.
	Window bool `json:"window" jsonschema:"title=Window seat"`
}

// Class is a seating class.
type Class string

// The seating classes.
const (
	Economy  Class = "economy"  // Economy
	Business Class = "business" // Business
)
