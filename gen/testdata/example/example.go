// Package example holds a form with two mistakes, for the examples of
// packages gen and gen/elicitform: both report the same diagnostics.
package example

// AccessForm asks which repository to open, and how.
//
//elicit:form
type AccessForm struct {
	// Repository is the repository to open.
	Repository string `json:"repository" jsonschema:"maxLenght=100"`
	// Labels are added to the access request.
	Labels map[string]string `json:"labels"`
	// ReadOnly opens the repository for reading only.
	ReadOnly bool `json:"read_only" jsonschema:"default=true"`
}
