package deploy_test

import (
	"testing"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime/elicittest"
)

func TestDeploy(t *testing.T) {
	elicittest.NewServer(t, deploy.NewServer()).Each(t, func(t *testing.T, c *elicittest.Client) {
		web1 := deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}
		res := c.Call(t, "deploy", nil, elicittest.Accept(web1), elicittest.Accept(deploy.ConfirmForm{Confirm: true}))
		res.WantText(t, "deployed 3 replicas to staging on web1.example.com")
		res.WantAsked(t, "Where should the service go?", "Deploy 3 replicas to staging on web1.example.com?")
		c.Call(t, "deploy", nil, elicittest.Decline()).WantError(t, "not deployed: elicit: declined by the user")
		c.Call(t, "deploy", nil, elicittest.AcceptRaw(`{"host":"web 1","env":"staging","replicas":30}`)).
			WantError(t, `"host" must be a host name; "replicas" must be at most 10`)
	})
}

// TestDeployDirectly calls the handler function itself, no server built.
func TestDeployDirectly(t *testing.T) {
	web1 := deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}
	elicittest.Handle(t, deploy.Deploy, struct{}{}, elicittest.Accept(web1), elicittest.Accept(deploy.ConfirmForm{Confirm: false})).
		WantError(t, "not deployed: the user did not confirm")
}
