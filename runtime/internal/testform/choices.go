package testform

import "time"

// RegionForm has a run-time single choice beside fields that per-call
// defaults prefill: the runtime's tests of WithChoices and WithDefaults
// ask it.
//
//elicit:form
type RegionForm struct {
	// Where to deploy.
	Region string `json:"region" elicit:"choices"`
	// How many replicas to run.
	Replicas int `json:"replicas" jsonschema:"minimum=1,maximum=10"`
	// Whether to tell the team.
	Notify *bool `json:"notify,omitempty"`
	// A note for the log.
	Note string `json:"note,omitempty"`
	// When to start.
	Start time.Time `json:"start"`
}

// PickForm has a run-time multi-select.
//
//elicit:form
type PickForm struct {
	// The files to pick.
	Files []string `json:"files" elicit:"choices"`
}

// AskChoiceForm is AskForm with its name a run-time choice: the runtime's
// benchmarks ask it with WithChoices and WithDefaults against AskForm.
//
//elicit:form
type AskChoiceForm struct {
	Name  string `json:"name" elicit:"choices"`
	Count int64  `json:"count"`
}

// TagForm has a required name and an optional run-time multi-select, which
// a 2025-06-18 client is not asked.
//
//elicit:form
type TagForm struct {
	// Who it is for.
	Name string `json:"name"`
	// The tags to add.
	Tags []string `json:"tags,omitempty" elicit:"choices"`
}
