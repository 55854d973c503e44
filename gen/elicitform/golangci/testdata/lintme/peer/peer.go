// Package peer is generated, then edited without go generate (golangci_test.go).
package peer

//go:generate go tool elicitgen

// Form asks for a BGP peer.
//
//elicit:form
type Form struct {
	// Address of the peer.
	Address string `json:"address"`
}
