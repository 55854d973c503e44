package main

import (
	"testing"

	"github.com/go-elicit/elicit/examples/internal/booking/bookingtest"
	"github.com/go-elicit/elicit/internal/mcpclient"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample runs the end-to-end suite the gosdk example runs too. A
// requestState the adapter did not issue fails the call before the tool
// runs, but mcp-go answers every error a tool middleware returns with
// -32603 (internal error), so the code is not the -32602 the runtime and
// the go-sdk adapter give; the message names the requestState.
func TestExample(t *testing.T) {
	bookingtest.Run(t, bookingtest.Suite{NewHandler: newHandler, Main: run, ClientName: "mcpgo-test",
		StateErrorCode: mcpclient.CodeInternalError, StateErrorKind: "internal error"})
}
