package testform

// PlaceForm is ze's PeerForm and the deploy example's DeployForm in one,
// for the tests of what real form UIs send and of re-asking: a required
// host checked by a validate tag the schema cannot express, an optional
// number and an optional email a user may clear, and a checkbox.
//
//elicit:form
type PlaceForm struct {
	// Host to deploy to.
	Host string `json:"host" jsonschema:"title=Host" validate:"required,hostname"`
	// Number of replicas.
	Replicas int64 `json:"replicas,omitempty" jsonschema:"title=Replicas,minimum=1,maximum=10"`
	// Contact for the service's operator.
	Contact string `json:"contact,omitempty" jsonschema:"title=Operator contact,format=email"`
	// Start with a canary.
	Canary bool `json:"canary" jsonschema:"title=Canary"`
}
