package deploy

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// DeployForm asks where the service goes.
//
//elicit:form
type DeployForm struct {
	// Host to deploy to.
	Host string `json:"host" jsonschema:"title=Host" validate:"hostname"`
	// Environment the host belongs to.
	Env Env `json:"env" jsonschema:"title=Environment"`
	// Number of replicas to run.
	Replicas int `json:"replicas" jsonschema:"title=Replicas,minimum=1,maximum=10"`
}

// Env is a deployment environment.
type Env string

// The environments there are.
const (
	Staging    Env = "staging"    // Staging
	Production Env = "production" // Production
)

// ConfirmForm is the last look before deploying.
//
//elicit:form
type ConfirmForm struct {
	// Deploy now?
	Confirm bool `json:"confirm" jsonschema:"title=Deploy now"`
}
