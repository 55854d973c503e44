package runtime

import (
	"context"
	"encoding/json"
	"github.com/go-elicit/elicit/runtime/cluster"
	"strings"
	"testing"
)

func TestValidSessionID(t *testing.T) {
	if !validSessionID(newID()) {
		t.Error("newID is not a valid session id")
	}
	for _, bad := range []string{"", "abc", strings.Repeat("A", 32), strings.Repeat("g", 32), strings.Repeat("0", 33), "../" + strings.Repeat("0", 29)} {
		if validSessionID(bad) {
			t.Errorf("validSessionID(%q) = true", bad)
		}
	}
}

// stubCluster is a Cluster that knows nothing; it checks the wiring.
type stubCluster struct {
	id       string
	attached cluster.Peer
}

func (c *stubCluster) ReplicaID() string                                 { return c.id }
func (c *stubCluster) Attach(p cluster.Peer)                             { c.attached = p }
func (*stubCluster) Publish(context.Context, cluster.SessionState) error { return nil }
func (*stubCluster) Lookup(context.Context, string) (cluster.SessionState, error) {
	return cluster.SessionState{}, cluster.ErrSessionNotFound
}
func (*stubCluster) Deliver(context.Context, string, string, []byte) error {
	return cluster.ErrNotPending
}
func (*stubCluster) End(context.Context, string) error { return nil }

func TestClusterWiring(t *testing.T) {
	c := &stubCluster{id: "r7"}
	s := NewServer(Options{Cluster: c})
	if c.attached == nil {
		t.Fatal("NewServer did not attach the cluster")
	}
	if id := s.elicitID(); !strings.HasPrefix(id, "elicit-r7.") || replicaOf(json.RawMessage(`"`+id+`"`)) != "r7" {
		t.Errorf("elicitID in a cluster = %q, want it to name r7", id)
	}
	if err := c.attached.DeliverAnswer(newID(), []byte(`{"jsonrpc":"2.0","id":"elicit-r7.1","result":{}}`)); err == nil {
		t.Error("DeliverAnswer for an unknown session succeeded")
	}
	if err := c.attached.DeliverAnswer(newID(), []byte(`{"jsonrpc":"2.0","method":"x"}`)); err == nil {
		t.Error("DeliverAnswer of a request succeeded")
	}
	c.attached.EndSession(newID()) // unknown: nothing happens
	if c.attached.CancelCall(newID(), "n:1", "stop") {
		t.Error("CancelCall in an unknown session reported a call")
	}
	if id := NewServer(Options{}).elicitID(); strings.Count(id, ".") != 0 {
		t.Errorf("elicitID alone = %q, want no replica", id)
	}
	// Unique on a server, and from two servers (a replica's restart, whose
	// sessions a cluster keeps) apart with all but certainty.
	a, b := NewServer(Options{}), NewServer(Options{})
	seen := map[string]bool{}
	for range 1000 {
		for _, id := range []string{a.elicitID(), b.elicitID()} {
			if seen[id] {
				t.Fatalf("elicitID %q made twice", id)
			}
			seen[id] = true
		}
	}
	for _, bad := range []string{"", "a.b", "a b", strings.Repeat("x", 65)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewServer with replica id %q did not panic", bad)
				}
			}()
			NewServer(Options{Cluster: &stubCluster{id: bad}})
		}()
	}
}
