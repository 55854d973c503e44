// Package dateform holds the generated form elicittest's tests answer with
// Accept to check that its values are written as the form's decoder reads
// them.
package dateform

import "time"

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// LeaveForm asks for a leave: a date, a date-time and the other kinds a
// form's field can have.
//
//elicit:form
type LeaveForm struct {
	Until  time.Time `json:"until" jsonschema:"format=date"`
	Start  time.Time `json:"start" jsonschema:"format=date-time"`
	Return time.Time `json:"return,omitempty" jsonschema:"format=date"`
	Reason string    `json:"reason" jsonschema:"minLength=1"`
	Days   int       `json:"days" jsonschema:"minimum=1"`
	Ratio  float64   `json:"ratio,omitempty"`
	Paid   bool      `json:"paid,omitempty"`
	Kind   string    `json:"kind" jsonschema:"enum=annual,enum=sick"`
}
