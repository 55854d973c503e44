package elicittest_test

import (
	"os"
	"testing"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime/elicittest"
)

// This file holds only the wrong test, so that the line numbers
// TestFailureTranscript expects stay put.

const deliberateEnv = "ELICITTEST_DELIBERATELY_WRONG"

// TestDeliberatelyWrongExpectations is what an adopter's test looks like
// when the handler does not do what the test says. TestFailureTranscript
// runs it in a child process and checks what it prints.
func TestDeliberatelyWrongExpectations(t *testing.T) {
	if os.Getenv(deliberateEnv) == "" {
		t.Skip("wrong on purpose: TestFailureTranscript runs it in a child process")
	}
	c := elicittest.NewServer(t, deploy.NewServer()).Connect(t, elicittest.Conn{Protocol: "2025-11-25"})
	web1 := deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}
	yes := deploy.ConfirmForm{Confirm: true}
	// The test expects 4 replicas; the user asked for 3.
	c.Call(t, "deploy", nil, elicittest.Accept(web1), elicittest.Accept(yes)).WantText(t, "deployed 4 replicas to staging on web1.example.com")
	// The script forgets the confirmation.
	c.Call(t, "deploy", nil, elicittest.Accept(web1)).WantText(t, "deployed 3 replicas to staging on web1.example.com")
	// The answers come in the wrong order.
	c.Call(t, "deploy", nil, elicittest.Accept(yes), elicittest.Accept(web1)).WantText(t, "deployed 3 replicas to staging on web1.example.com")
	// The handler called directly: the user declines, the test expects a "no".
	elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.Decline()).WantError(t, "not deployed: the user did not confirm")
}
