package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/mcpgo"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// newHandler builds the server and its HTTP handler.
func newHandler(logger *slog.Logger) (http.Handler, error) {
	s := server.NewMCPServer("mcpgo-example", "1.0.0", server.WithToolCapabilities(false))
	if _, err := mcpgo.New(s, nil); err != nil {
		return nil, err
	}
	s.AddTool(mcp.NewTool("book_table",
		mcp.WithDescription("Book a table. Without a name and a number of guests, the user is asked."),
		mcp.WithString("name", mcp.Description("name the booking is under; asked for when left out")),
		mcp.WithNumber("guests", mcp.Description("number of guests; asked for when left out")),
	), bookTable)
	return server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(logger)), nil
}

// bookTable elicits the booking when the caller left it out, then asks for
// a confirmation: two forms in sequence, which on 2026-07-28 are two
// input_required rounds.
func bookTable(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	booking := BookingForm{Name: strings.TrimSpace(req.GetString("name", "")), Guests: req.GetInt("guests", 0), Seating: Indoor}
	if booking.Name == "" || booking.Guests == 0 {
		if !mcpgo.ClientSupportsElicit(ctx) {
			return mcp.NewToolResultError("missing required arguments: name, guests"), nil
		}
		form, err := mcpgo.Elicit[BookingForm](ctx, "Who is the table for?")
		if err != nil {
			return outcome(err)
		}
		booking = form
	}
	if mcpgo.ClientSupportsElicit(ctx) {
		ok, err := mcpgo.Elicit[ConfirmForm](ctx, fmt.Sprintf("Book a table for %d (%s) under %s?", booking.Guests, booking.Seating, booking.Name))
		if err != nil {
			return outcome(err)
		}
		if !ok.Confirm {
			return mcp.NewToolResultError("not booked: the user did not confirm"), nil
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("booked a table for %d (%s) under %s", booking.Guests, booking.Seating, booking.Name)), nil
}

// outcome turns an elicitation outcome into the tool's answer; the switch is
// the same on every server elicit runs on.
func outcome(err error) (*mcp.CallToolResult, error) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, err // 2026-07-28: the adapter asks, and runs us again
	case errors.Is(err, runtime.ErrElicitDeclined):
		return mcp.NewToolResultError("the user declined to answer"), nil
	case errors.Is(err, runtime.ErrElicitCanceled):
		return mcp.NewToolResultError("the user canceled the request"), nil
	default:
		return mcp.NewToolResultError(err.Error()), nil
	}
}
