package main

import (
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
)

// TestExecuteAsksForMissingCommand: ze_execute's arguments are CommandForm
// and its tool has runtime.AskMissing, so a call without a command (or
// with "", which the form refuses) asks the user for it, on every protocol
// and transport, and runs the answer; the handler itself never checks.
func TestExecuteAsksForMissingCommand(t *testing.T) {
	elicittest.NewServer(t, newServer(runtime.Options{}, 0)).Each(t, func(t *testing.T, c *elicittest.Client) {
		for _, args := range []any{nil, map[string]any{"command": ""}} {
			res := c.Call(t, "ze_execute", args, elicittest.Accept(CommandForm{Command: "show version"}))
			res.WantText(t, Version)
			res.WantAsked(t, "Which ze command should run?")
		}
		c.Call(t, "ze_execute", map[string]any{"command": "show version"}).WantText(t, Version)
		c.Call(t, "ze_execute", nil, elicittest.Decline()).WantError(t, "the user declined to answer")
	})
}

// TestExecuteCannotAsk: a client without elicitation gets the seed's
// deterministic error.
func TestExecuteCannotAsk(t *testing.T) {
	s := elicittest.NewServer(t, newServer(runtime.Options{}, 0))
	for _, version := range elicittest.Protocols() {
		c := s.Connect(t, elicittest.Conn{Protocol: version, Elicitation: elicittest.NoElicitation})
		c.Call(t, "ze_execute", nil).WantError(t, "missing required argument: command")
	}
}
