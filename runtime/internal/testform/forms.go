// Package testform holds the generated forms the tests of the runtime kit
// and of the adapters ask.
package testform

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// NameForm asks for a name.
//
//elicit:form
type NameForm struct {
	// Who to greet.
	Name string `json:"name" jsonschema:"title=Name,minLength=1,maxLength=40"`
}

// AskForm is the two-field form (a string and an integer) the runtime's
// round-trip benchmarks ask, as internal/cmd/bench's flows do.
//
//elicit:form
type AskForm struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// FamiliesForm asks for a multi-select: the tests of duplicate items ask it.
//
//elicit:form
type FamiliesForm struct {
	// The address families to enable.
	Families []Family `json:"families" jsonschema:"title=Families"`
}

// Family is an address family.
type Family string

// The address families FamiliesForm offers.
const (
	IPv4Unicast Family = "ipv4-unicast" // IPv4 unicast
	IPv6Unicast Family = "ipv6-unicast" // IPv6 unicast
)

// NotifyForm has an optional multi-select beside a required string: a
// 2025-06-18 client is asked it without Notify (graceful downgrade).
//
//elicit:form
type NotifyForm struct {
	// The service to deploy.
	Service string `json:"service" jsonschema:"title=Service,minLength=1"`
	// Who to tell when it is done.
	Notify []Family `json:"notify,omitempty" jsonschema:"title=Notify"`
}
