package main

import (
	"testing"

	"github.com/go-elicit/elicit/examples/internal/booking/bookingtest"
	"github.com/go-elicit/elicit/internal/mcpclient"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestExample runs the end-to-end suite the mcpgo example runs too. The
// go-sdk adapter rejects a requestState it did not issue before the tool
// runs, as invalid params.
func TestExample(t *testing.T) {
	bookingtest.Run(t, bookingtest.Suite{NewHandler: newHandler, Main: run, ClientName: "gosdk-test",
		StateErrorCode: mcpclient.CodeInvalidParams, StateErrorKind: "invalid params"})
}
