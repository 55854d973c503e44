package runtime

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// What a round trip costs with telemetry on: a real SDK TracerProvider
// (a BatchSpanProcessor, the production choice, to an exporter that drops
// what it is given) and MeterProvider (a manual reader, never collected:
// the instruments' recording is the cost). The round trips are the
// budgets' (newAllocRoundTrips); without providers they cost
// budgetSessionRoundTrip and budgetInputRequiredRoundTrip.
const (
	// 2025-11-25: the tools/call span and duration, the elicit span, the
	// pending count (up and down) and the answer time; the answer POST, a
	// JSON-RPC response, is not a request and has no span.
	budgetTracedSessionRoundTrip = 81
	// 2026-07-28: two requests, each with its span, duration and elicit
	// span; the retry's link to the first round.
	budgetTracedInputRequiredRoundTrip = 112
)

// discardSpans is a span exporter that drops every span.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// newTracedAllocRoundTrips is newAllocRoundTrips with telemetry on.
func newTracedAllocRoundTrips(tb testing.TB) (*sessionRoundTrip, *inputRequiredRoundTrip) {
	tb.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	srv := NewServer(Options{Name: "bench", Version: "1", ElicitTimeout: -1, TracerProvider: tp, MeterProvider: mp})
	srv.AddTool(Tool{Name: "ask"}, allocAsk)
	return startAllocRoundTrips(tb, srv)
}

func TestTracedRoundTripAllocs(t *testing.T) {
	skipAllocsUnderRace(t)
	rt, ir := newTracedAllocRoundTrips(t)
	for _, c := range []struct {
		name         string
		run          func() error
		budget, base float64
	}{
		{"traced session 2025-11-25", rt.run, budgetTracedSessionRoundTrip, budgetSessionRoundTrip},
		{"traced input_required 2026-07-28", ir.run, budgetTracedInputRequiredRoundTrip, budgetInputRequiredRoundTrip},
	} {
		got := allocsPerRoundTrip(t, 200, c.run)
		t.Logf("%s: %.0f allocations per round trip, %.0f more than without providers", c.name, got, got-c.base)
		checkAllocBudget(t, c.name, got, c.budget)
	}
}

// BenchmarkSessionRoundTripMemTraced and
// BenchmarkInputRequiredRoundTripMemTraced are the budgets' round trips
// with telemetry on, beside BenchmarkSessionRoundTripMem and
// BenchmarkInputRequiredRoundTripMem:
//
//	go test -run '^$' -bench 'RoundTripMem' -benchmem ./runtime/
func BenchmarkSessionRoundTripMemTraced(b *testing.B) {
	rt, _ := newTracedAllocRoundTrips(b)
	benchRoundTrips(b, rt.run)
}

func BenchmarkInputRequiredRoundTripMemTraced(b *testing.B) {
	_, ir := newTracedAllocRoundTrips(b)
	benchRoundTrips(b, ir.run)
}
