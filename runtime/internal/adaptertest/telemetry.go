package adaptertest

import (
	"context"
	"os"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// Traceparent is the W3C trace context a telemetry test's client sends in
// params._meta: the call's span must be its child.
const Traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

// Telemetry records what an adapter's TracerProvider and MeterProvider
// are given: spans in memory, metrics through a manual reader. Both
// providers shut down with the test.
type Telemetry struct {
	Spans          *tracetest.SpanRecorder
	Reader         *sdkmetric.ManualReader
	TracerProvider *sdktrace.TracerProvider
	MeterProvider  *sdkmetric.MeterProvider
	// Stdio says the calls come over stdio: network.transport "pipe", no
	// HTTP attributes and no mcp.session.id.
	Stdio bool
}

// NewTelemetry returns an empty recorder.
func NewTelemetry(t *testing.T) *Telemetry {
	t.Helper()
	tl := &Telemetry{Spans: tracetest.NewSpanRecorder(), Reader: sdkmetric.NewManualReader()}
	tl.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tl.Spans))
	tl.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(tl.Reader))
	t.Cleanup(func() {
		_ = tl.TracerProvider.Shutdown(context.Background())
		_ = tl.MeterProvider.Shutdown(context.Background())
	})
	return tl
}

// named returns the ended spans called name, in the order they ended.
func (tl *Telemetry) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tl.Spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// attr is span s's attribute k, "" when it has none; ok says it has it.
func attr(s sdktrace.ReadOnlySpan, k attribute.Key) (v string, ok bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value.String(), true
		}
	}
	return "", false
}

// want checks that span s has each attribute of kv as given.
func want(t *testing.T, s sdktrace.ReadOnlySpan, kv ...attribute.KeyValue) {
	t.Helper()
	for _, w := range kv {
		if got, ok := attr(s, w.Key); !ok || got != w.Value.String() {
			t.Errorf("span %q: %s = %q (set %v), want %q", s.Name(), w.Key, got, ok, w.Value.String())
		}
	}
}

// callSpans checks the SERVER spans of the calls of tool on version: n of
// them (one per request), each a child of Traceparent, named and
// attributed by the MCP conventions, with a session id exactly before
// 2026-07-28.
func (tl *Telemetry) callSpans(t *testing.T, tool, version string, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	spans := tl.named("tools/call " + tool)
	if len(spans) != n {
		t.Fatalf("%d spans %q, want %d (all ended: %d)", len(spans), "tools/call "+tool, n, len(tl.Spans.Ended()))
	}
	parent := trace.SpanContextFromContext(telemetryParent())
	for _, s := range spans {
		if s.SpanKind() != trace.SpanKindServer {
			t.Errorf("span %q kind %v, want server", s.Name(), s.SpanKind())
		}
		if s.Parent().TraceID() != parent.TraceID() || s.Parent().SpanID() != parent.SpanID() {
			t.Errorf("span %q parent %v, want the client's traceparent %v", s.Name(), s.Parent(), parent)
		}
		want(t, s, telemetry.KeyMethod.String("tools/call"), telemetry.KeyToolName.String(tool),
			telemetry.KeyOperation.String("execute_tool"), telemetry.KeyProtocol.String(version))
		if tl.Stdio {
			want(t, s, telemetry.KeyTransport.String("pipe"))
			if v, ok := attr(s, telemetry.KeyNetProtocol); ok {
				t.Errorf("span %q over stdio: network.protocol.name %q", s.Name(), v)
			}
		} else {
			want(t, s, telemetry.KeyTransport.String("tcp"), telemetry.KeyNetProtocol.String("http"))
		}
		id, ok := attr(s, telemetry.KeySessionID)
		if hasID := version < runtime.Version20260728 && !tl.Stdio; hasID != ok || hasID && id == "" {
			t.Errorf("span %q on %s: mcp.session.id %q (set %v)", s.Name(), version, id, ok)
		}
	}
	return spans
}

// telemetryParent is a context holding Traceparent's span context.
func telemetryParent() context.Context {
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	return trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true}))
}

// CheckAsk checks the telemetry of one call, on version, of the tool "ask",
// whose handler asks testform.NameForm once and the client accepts: the
// call's span (on 2026-07-28 one per round, the retry's linked to the
// first and each noting its round and resultType), an "elicit" span child
// of each, and the duration metrics.
func (tl *Telemetry) CheckAsk(t *testing.T, version string) {
	t.Helper()
	rounds := 1
	if version >= runtime.Version20260728 {
		rounds = 2
	}
	calls := tl.callSpans(t, "ask", version, rounds)
	asks := tl.named(telemetry.SpanElicit)
	if len(asks) != rounds {
		t.Fatalf("%d elicit spans, want %d", len(asks), rounds)
	}
	for i, call := range calls {
		ask := asks[i]
		if ask.Parent().SpanID() != call.SpanContext().SpanID() || ask.SpanContext().TraceID() != call.SpanContext().TraceID() {
			t.Errorf("elicit span %d: parent %v, want the call's span %v", i, ask.Parent(), call.SpanContext())
		}
		outcome := telemetry.OutcomeAccept
		if i < rounds-1 {
			outcome = telemetry.OutcomeInputRequired
		}
		want(t, ask, telemetry.KeyMode.String("form"), telemetry.KeyForm.String("NameForm"),
			telemetry.KeyOutcome.String(outcome), telemetry.KeyProtocol.String(version))
		if _, ok := attr(call, telemetry.KeyErrorType); ok || call.Status().Code == codes.Error {
			t.Errorf("call span %d of an accepted call has an error: %v", i, call.Status())
		}
		if rounds == 1 {
			continue
		}
		resultType := "complete"
		if i < rounds-1 {
			resultType = "input_required"
		}
		want(t, call, telemetry.KeyRound.Int(i), telemetry.KeyResultType.String(resultType))
		if i > 0 {
			links := call.Links()
			if len(links) != 1 || links[0].SpanContext.SpanID() != calls[0].SpanContext().SpanID() {
				t.Errorf("round %d links %v, want the first round's span %v", i, links, calls[0].SpanContext())
			}
		}
	}
	rm := tl.collect(t)
	if n := histogramCount(rm, telemetry.MetricOperationDuration, telemetry.KeyToolName.String("ask")); n != uint64(rounds) {
		t.Errorf("%s for ask: %d requests, want %d", telemetry.MetricOperationDuration, n, rounds)
	}
	answered := uint64(1) // on 2026-07-28 the person's time is the client's, not recorded
	if rounds > 1 {
		answered = 0
	}
	if n := histogramCount(rm, telemetry.MetricAnswerDuration, telemetry.KeyOutcome.String(telemetry.OutcomeAccept)); n != answered {
		t.Errorf("%s accepted: %d, want %d", telemetry.MetricAnswerDuration, n, answered)
	}
}

// CheckFail checks the telemetry of one failed call, on version, of
// tool: its span has error.type errorType and the Error status, and so
// does its duration.
func (tl *Telemetry) CheckFail(t *testing.T, tool, version, errorType string) {
	t.Helper()
	s := tl.callSpans(t, tool, version, 1)[0]
	want(t, s, telemetry.KeyErrorType.String(errorType))
	if s.Status().Code != codes.Error {
		t.Errorf("failed call's span status %v, want Error", s.Status())
	}
	if n := histogramCount(tl.collect(t), telemetry.MetricOperationDuration, telemetry.KeyErrorType.String(errorType)); n != 1 {
		t.Errorf("%s with error.type %s: %d, want 1", telemetry.MetricOperationDuration, errorType, n)
	}
}

func (tl *Telemetry) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tl.Reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// histogramCount is how many values the histogram name recorded with
// attribute kv.
func histogramCount(rm metricdata.ResourceMetrics, name string, kv attribute.KeyValue) uint64 {
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != name || !ok {
				continue
			}
			for _, dp := range h.DataPoints {
				if v, ok := dp.Attributes.Value(kv.Key); ok && v.String() == kv.Value.String() {
					n += dp.Count
				}
			}
		}
	}
	return n
}

// Stdio is a stdio connection between a server and a client in one
// process: two OS pipes, as a subprocess's stdin and stdout are.
type Stdio struct {
	ServerIn, ServerOut *os.File // the server reads ServerIn and writes ServerOut
	ClientIn, ClientOut *os.File // the client reads ClientIn and writes ClientOut
}

// NewStdio opens the pipes of a Stdio; the test's cleanup closes them.
func NewStdio(t *testing.T) *Stdio {
	t.Helper()
	var st Stdio
	var err error
	if st.ServerIn, st.ClientOut, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if st.ClientIn, st.ServerOut, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{st.ServerIn, st.ServerOut, st.ClientIn, st.ClientOut} {
			_ = f.Close()
		}
	})
	return &st
}
