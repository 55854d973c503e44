package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/gosdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BookArgs are the arguments of book_table; what is missing is asked for.
type BookArgs struct {
	Name   string `json:"name,omitempty" jsonschema:"name the booking is under; asked for when left out"`
	Guests int    `json:"guests,omitempty" jsonschema:"number of guests; asked for when left out"`
}

// newHandler builds the server and its HTTP handler.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-example", Version: "1.0.0"}, &mcp.ServerOptions{Logger: logger})
	a, err := gosdk.New(s, nil)
	if err != nil {
		return nil, err
	}
	gosdk.AddTool(a, &mcp.Tool{
		Name:        "book_table",
		Description: "Book a table. Without a name and a number of guests, the user is asked.",
	}, bookTable)
	return gosdk.NewStreamableHTTPHandler(s, &mcp.StreamableHTTPOptions{Logger: logger}), nil
}

// bookTable elicits the booking when the caller left it out, then asks for
// a confirmation: two forms in sequence, which on 2026-07-28 are two
// input_required rounds.
func bookTable(ctx context.Context, req *mcp.CallToolRequest, in BookArgs) (*mcp.CallToolResult, any, error) {
	booking := BookingForm{Name: strings.TrimSpace(in.Name), Guests: in.Guests, Seating: Indoor}
	if booking.Name == "" || booking.Guests == 0 {
		if !gosdk.ClientSupportsElicit(req) {
			return errorResult("missing required arguments: name, guests"), nil, nil
		}
		form, err := gosdk.Elicit[BookingForm](ctx, req, "Who is the table for?")
		if err != nil {
			return outcome(err)
		}
		booking = form
	}
	if gosdk.ClientSupportsElicit(req) {
		ok, err := gosdk.Elicit[ConfirmForm](ctx, req, fmt.Sprintf("Book a table for %d (%s) under %s?", booking.Guests, booking.Seating, booking.Name))
		if err != nil {
			return outcome(err)
		}
		if !ok.Confirm {
			return errorResult("not booked: the user did not confirm"), nil, nil
		}
	}
	return textResult(fmt.Sprintf("booked a table for %d (%s) under %s", booking.Guests, booking.Seating, booking.Name)), nil, nil
}

// outcome turns an elicitation outcome into the tool's answer; the switch is
// the same on every server elicit runs on.
func outcome(err error) (*mcp.CallToolResult, any, error) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, nil, err // 2026-07-28: the adapter asks, and runs us again
	case errors.Is(err, runtime.ErrElicitDeclined):
		return errorResult("the user declined to answer"), nil, nil
	case errors.Is(err, runtime.ErrElicitCanceled):
		return errorResult("the user canceled the request"), nil, nil
	default:
		return errorResult(err.Error()), nil, nil
	}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: true}
}
