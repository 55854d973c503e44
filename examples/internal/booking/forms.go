package booking

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// BookingForm asks for the details of a table booking when book_table was
// called without them.
//
//elicit:form
type BookingForm struct {
	// Name the booking is under.
	Name string `json:"name" jsonschema:"title=Name,minLength=1,maxLength=80"`
	// Number of guests, the host included.
	Guests int `json:"guests" jsonschema:"title=Guests,minimum=1,maximum=12"`
	// Where the party would like to sit.
	Seating Seating `json:"seating" jsonschema:"title=Seating"`
}

// Seating is where a party sits.
type Seating string

// The seatings the restaurant has.
const (
	Indoor  Seating = "indoor"  // Indoor
	Outdoor Seating = "outdoor" // Outdoor terrace
	Bar     Seating = "bar"     // At the bar
)

// ConfirmForm is the last look before a table is booked.
//
//elicit:form
type ConfirmForm struct {
	// Book the table now?
	Confirm bool `json:"confirm" jsonschema:"title=Book this table"`
}
