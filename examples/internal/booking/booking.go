package booking

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-elicit/elicit/runtime"
)

// The texts of the book_table tool.
const (
	// Description is the tool's description.
	Description = "Book a table. Without a name and a number of guests, the user is asked."
	// AskBooking is the message of the BookingForm elicitation.
	AskBooking = "Who is the table for?"
	// MissingArguments answers a call without the booking from a client that
	// cannot be asked for it.
	MissingArguments = "missing required arguments: name, guests"
	// NotConfirmed answers a booking the user did not confirm.
	NotConfirmed = "not booked: the user did not confirm"
)

// FromArguments is the booking as book_table was called: the name trimmed,
// indoor seating unless the user is asked.
func FromArguments(name string, guests int) BookingForm {
	return BookingForm{Name: strings.TrimSpace(name), Guests: guests, Seating: Indoor}
}

// Incomplete reports whether the booking lacks a name or the guests, so the
// user has to be asked for it.
func (f BookingForm) Incomplete() bool { return f.Name == "" || f.Guests == 0 }

// ConfirmQuestion is the message of the ConfirmForm elicitation.
func (f BookingForm) ConfirmQuestion() string {
	return fmt.Sprintf("Book a table for %d (%s) under %s?", f.Guests, f.Seating, f.Name)
}

// Booked is the tool's answer once the table is booked.
func (f BookingForm) Booked() string {
	return fmt.Sprintf("booked a table for %d (%s) under %s", f.Guests, f.Seating, f.Name)
}

// Refusal is the error text the tool answers with when an elicitation did
// not give it a form: the user declined or canceled, or the content was
// invalid. (runtime.ErrInputRequired, on 2026-07-28, is no refusal: the
// adapter answers input_required whatever the tool returns with it.)
func Refusal(err error) string {
	switch {
	case errors.Is(err, runtime.ErrElicitDeclined):
		return "the user declined to answer"
	case errors.Is(err, runtime.ErrElicitCanceled):
		return "the user canceled the request"
	default:
		return err.Error()
	}
}
