// Package bad is linted by a golangci-lint built with the elicit module
// plugin (golangci_test.go): its form breaks the elicitation subset.
package bad

// Form asks for a name no answer can satisfy.
//
//elicit:form
type Form struct {
	Name string            `json:"name" jsonschema:"minLength=5,maxLength=2"`
	Tags map[string]string `json:"tags"`
}
