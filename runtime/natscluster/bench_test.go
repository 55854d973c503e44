package natscluster_test

import (
	"net/http"
	"testing"
)

// One elicitation round trip of a session (tools/call, the elicitation on its
// stream, the answer POST, the result), measured side by side:
//
//	direct       one replica, no proxy, no cluster: the single-process floor
//	proxy        the round-robin proxy in front of one replica, no cluster:
//	             what the extra HTTP hop costs by itself
//	cluster      the proxy in front of 3 clustered replicas: the call and
//	             its answer always land on different replicas, so every
//	             answer is forwarded over NATS
//
//	go test -run '^$' -bench SessionRoundTrip -benchmem ./runtime/natscluster
func BenchmarkSessionRoundTrip(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		top := newTopology(b, nil, 1)
		benchRoundTrips(b, top.replicas[0].url, top)
	})
	b.Run("proxy", func(b *testing.B) {
		top := newTopology(b, nil, 1)
		benchRoundTrips(b, top.url, top)
	})
	b.Run("cluster", func(b *testing.B) {
		top := newTopology(b, startNATS(b), 3)
		benchRoundTrips(b, top.url, top)
		if forwarded(top) < int64(b.N) {
			b.Fatalf("%d answers forwarded for %d round trips: every one should be", forwarded(top), b.N)
		}
	})
}

func benchRoundTrips(b *testing.B, endpoint string, top *topology) {
	cl := newRawClient()
	defer cl.close()
	if err := cl.initialize(endpoint); err != nil {
		b.Fatal(err)
	}
	// In the cluster the session must reach every replica once before the
	// timed loop (the first request on each adopts it from the directory).
	for range len(top.replicas) {
		resp, err := cl.do(http.MethodPost, endpoint, []byte(`{"jsonrpc":"2.0","id":"warm","method":"ping"}`))
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("warm-up ping: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	for _, r := range top.replicas {
		if r.cl != nil {
			r.cl.forwarded.Store(0)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, br, id, err := cl.call(endpoint, "b")
		if err != nil {
			b.Fatal(err)
		}
		if status, body, err := cl.answer(endpoint, id, "b"); err != nil || status != http.StatusAccepted {
			b.Fatalf("answer: %d %s %v", status, body, err)
		}
		if _, err := result(resp, br); err != nil {
			b.Fatal(err)
		}
	}
}
