package main

//go:generate go run github.com/go-elicit/elicit/cmd/elicitgen

// CommandForm is ze_execute's arguments; when a call leaves the command out,
// the user is asked it (runtime.AskMissing).
//
//elicit:form
type CommandForm struct {
	// The ze command to run, e.g. "show bgp peer list" or "show version".
	Command string `json:"command" jsonschema:"title=Command,minLength=1,maxLength=200"`
}

// PeerForm asks for a new BGP peer: every shape the generator supports.
//
//elicit:form
type PeerForm struct {
	// Address of the peer.
	Address string `json:"address" jsonschema:"title=Peer address" validate:"required,ip"`
	// AS number of the peer.
	ASN int64 `json:"asn" jsonschema:"title=AS number,minimum=1,maximum=4294967295"`
	// Address family of the session.
	Family Family `json:"family" jsonschema:"title=Address family,default=ipv4-unicast"`
	// More address families to negotiate.
	Extra []Family `json:"extra,omitempty" jsonschema:"title=Additional families"`
	// Contact for the peer's operator.
	Contact string `json:"contact,omitempty" jsonschema:"title=Operator contact,format=email"`
	// Wait for the peer to connect instead of connecting out.
	Passive bool `json:"passive" jsonschema:"title=Passive,default=false"`
}

// Family is a BGP address family.
type Family string

// The address families ze knows.
const (
	IPv4Unicast Family = "ipv4-unicast" // IPv4 unicast
	IPv6Unicast Family = "ipv6-unicast" // IPv6 unicast
	L2VPNEVPN   Family = "l2vpn-evpn"   // L2VPN EVPN
)

// ConfirmForm is the second step of ze_add_peer: a last look before the peer
// is added.
//
//elicit:form
type ConfirmForm struct {
	// Add the peer now?
	Confirm bool `json:"confirm" jsonschema:"title=Add this peer"`
}

// ShutdownForm is what ze_drain asks once the peers are drained.
//
//elicit:form
type ShutdownForm struct {
	// Shut the drained peers' sessions down?
	Shutdown bool `json:"shutdown" jsonschema:"title=Shut the sessions down"`
}
