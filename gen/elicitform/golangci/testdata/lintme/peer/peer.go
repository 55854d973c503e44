// Package peer is linted by a golangci-lint built with the elicit module
// plugin (golangci_test.go): the test generates its code, then edits the
// field's doc comment without running go generate again.
package peer

// Form asks for a BGP peer.
//
//elicit:form
type Form struct {
	// Address of the peer.
	Address string `json:"address"`
}
