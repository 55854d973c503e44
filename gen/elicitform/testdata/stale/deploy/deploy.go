// Package deploy was generated, then edited without go generate: a
// constant was added and a doc comment changed.
package deploy

// Environment is where to deploy.
type Environment string // want Environment:"enum"

const (
	Staging    Environment = "staging"    // Staging environment
	Canary     Environment = "canary"     // Canary
	Production Environment = "production" // Production environment
)

// DeployForm asks where to deploy.
//
//elicit:form
type DeployForm struct { // want `generated code for DeployForm is out of date \(its schema in deploy_elicit.go differs\): run go generate once deploy.go has the line //go:generate go tool elicitgen \(no //go:generate line of package deploy runs elicitgen; the line needs the tool: go get -tool github.com/go-elicit/elicit/cmd/elicitgen\)`
	// Env is the target.
	Env Environment `json:"env"`
}

// Fresh is generated and unchanged: nothing is reported.
//
//elicit:form
type Fresh struct {
	Name string `json:"name"`
}
