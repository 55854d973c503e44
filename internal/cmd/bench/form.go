package main

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// AskForm is the two-field form every flow elicits: a string and an integer,
// both required. Every server is handed the same requestedSchema bytes, the
// ones elicitgen generates for it.
//
//elicit:form
type AskForm struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}
