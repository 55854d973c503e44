package main

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// The elicitation forms of the conformance fixture. Their schemas are what
// the suite's scenarios check, property by property; the doc comments become
// the properties' descriptions.

// UserInfoForm is what test_elicitation asks for (tools-call-elicitation).
//
//elicit:form
type UserInfoForm struct {
	// User's response
	Username string `json:"username"`
	// User's email address
	Email string `json:"email"`
}

// DefaultsForm carries a default of every kind SEP-1034 added
// (elicitation-sep1034-defaults). Nothing is required: the user may keep
// every default.
//
//elicit:form
type DefaultsForm struct {
	// User name
	Name string `json:"name,omitempty" jsonschema:"default=John Doe"`
	// User age
	Age int `json:"age,omitempty" jsonschema:"default=30"`
	// User score
	Score float64 `json:"score,omitempty" jsonschema:"default=95.5"`
	// User status
	Status string `json:"status,omitempty" jsonschema:"enum=active,enum=inactive,enum=pending,default=active"`
	// Verification status
	Verified bool `json:"verified,omitempty" jsonschema:"default=true"`
}

// EnumsForm holds four of the five enum shapes of SEP-1330
// (elicitation-sep1330-enums). The fifth, the deprecated enum+enumNames
// shape on a 2025-11-25 session, is added by hand in tools.go: elicitgen
// emits a titled enum as oneOf there and keeps enumNames for 2025-06-18.
//
//elicit:form
type EnumsForm struct {
	// Select one option
	UntitledSingle Option `json:"untitledSingle,omitempty"`
	// Select one option with titles
	TitledSingle TitledOption `json:"titledSingle,omitempty"`
	// Select multiple options
	UntitledMulti []Option `json:"untitledMulti,omitempty" jsonschema:"minItems=1,maxItems=3"`
	// Select multiple options with titles
	TitledMulti []TitledChoice `json:"titledMulti,omitempty" jsonschema:"minItems=1,maxItems=3"`
}

// Option is an untitled choice: its constants have no comments, so the
// schema lists the bare values (enum).
type Option string

const (
	Option1 Option = "option1"
	Option2 Option = "option2"
	Option3 Option = "option3"
)

// TitledOption is a titled single choice: each constant's comment is its
// title (oneOf const/title).
type TitledOption string

const (
	Value1 TitledOption = "value1" // First Option
	Value2 TitledOption = "value2" // Second Option
	Value3 TitledOption = "value3" // Third Option
)

// TitledChoice is a titled multiple choice (items.anyOf const/title).
type TitledChoice string

const (
	Choice1 TitledChoice = "value1" // First Choice
	Choice2 TitledChoice = "value2" // Second Choice
	Choice3 TitledChoice = "value3" // Third Choice
)

// NameForm asks for a name (the input_required scenarios, step 1 of
// multi-round).
//
//elicit:form
type NameForm struct {
	Name string `json:"name"`
}

// ColorForm is step 2 of the multi-round scenario.
//
//elicit:form
type ColorForm struct {
	Color string `json:"color"`
}

// ConfirmForm asks for a yes/no confirmation (request-state, tampered-state,
// capability and streaming scenarios).
//
//elicit:form
type ConfirmForm struct {
	OK bool `json:"ok"`
}
