package a

import "time"

// Family is an enum: its constants' comments go, as a fact, to the forms
// of other packages that use it.
type Family string // want Family:`enum\(IPv4 \[\] \["// IPv4 unicast"\], IPv6 \[\] \["// IPv6 unicast"\]\)`

const (
	IPv4 Family = "ipv4-unicast" // IPv4 unicast
	IPv6 Family = "ipv6-unicast" // IPv6 unicast
)

// Good is inside the subset: no reports.
//
//elicit:form
type Good struct {
	// Address of the peer.
	Address string    `json:"address" validate:"required,ip"`
	ASN     int64     `json:"asn" jsonschema:"title=AS number,minimum=1,maximum=4294967295"`
	Family  Family    `json:"family"`
	Extra   []Family  `json:"extra,omitempty"`
	When    time.Time `json:"when,omitempty"`
}

type Inner struct{ A string }

//elicit:form
type Bad struct {
	Nested   Inner             `json:"nested"`                                   // want `field Nested: nested struct Inner is not allowed`
	Map      map[string]string `json:"map"`                                      // want `field Map: map map\[string\]string is not allowed`
	Strings  []string          `json:"strings"`                                  // want `field Strings: slice \[\]string is not allowed`
	Pattern  string            `json:"pattern" jsonschema:"pattern=^a$"`         // want `jsonschema tag key "pattern" is not supported`
	Unknown  string            `json:"unknown" jsonschema:"colour=red"`          // want `unknown jsonschema tag key "colour"`
	Crossed  int               `json:"crossed" jsonschema:"minimum=5,maximum=1"` // want `field Crossed: minimum 5 is greater than maximum 1`
	Password string            `json:"password"`                                 // want `looks like it asks for a password`
	Dup      string            `json:"unknown"`                                  // want `duplicate property "unknown"`
	//elicit:allow-credential the value names a key, it is not one
	KeyName string `json:"api_key_name"`
}

// Unmarked is not a form: nothing is reported.
type Unmarked struct {
	Nested Inner `json:"nested"`
}

// elicit:form // want `is not read as a directive: write //elicit:form`
type Spaced struct{ A string }

//elicit:from // want `unknown directive //elicit:from: did you mean //elicit:form`
type Misspelt struct{ A string }

type Level int

const (
	LevelLow Level = iota
	LevelHigh
)

//elicit:form
type Traps struct {
	Nick  string `json:"nick" jsonschema:"maxLenght=20"` // want `unknown jsonschema tag key "maxLenght": did you mean "maxLength"`
	Level Level  `json:"level"`                          // want `field Level: Level is an integer type with constants \(LevelHigh, LevelLow\)`
	On    bool   `json:"on" validate:"required"`         // want `validate:"required" on a boolean rejects false`
	PAT   string `json:"github_pat"`                     // want `looks like it asks for a token`
}

// Keys has misspelt and malformed struct tags, and other libraries' keys.
//
//elicit:form
type Keys struct {
	Owner  string `josn:"owner"`                                      // want `field Owner: unknown struct tag key "josn": did you mean "json"`
	Team   string `json:"team" jsonchema:"minLength=3"`               // want `field Team: unknown struct tag key "jsonchema": did you mean "jsonschema"`
	Email  string `json:"email" valdiate:"email"`                     // want `field Email: unknown struct tag key "valdiate": did you mean "validate"`
	Region string `json:region`                                       // want `field Region: malformed struct tag: bad syntax for struct tag pair`
	Other  string `json:"other" yaml:"other" bson:"other" db:"other"` // no misspelling here
}
