package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
	"github.com/go-elicit/elicit/runtime/internal/testform"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// traced is a server with an in-memory span recorder and a manual metric
// reader, and the tools the telemetry tests call.
type traced struct {
	srv    *runtime.Server
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newTraced(t *testing.T) *traced {
	t.Helper()
	tr := &traced{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tr.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(tr.reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	tr.srv = runtime.NewServer(runtime.Options{Name: "traced", TracerProvider: tp, MeterProvider: mp})
	runtime.AddTool(tr.srv, runtime.Tool{Name: "echo"}, func(context.Context, *runtime.CallToolRequest, struct{}) (*runtime.CallToolResult, error) {
		return runtime.TextResult("echo"), nil
	})
	runtime.AddTool(tr.srv, runtime.Tool{Name: "fail"}, func(context.Context, *runtime.CallToolRequest, struct{}) (*runtime.CallToolResult, error) {
		return nil, errors.New("it failed")
	})
	runtime.AddTool(tr.srv, runtime.Tool{Name: "ask"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		form, err := runtime.Elicit[testform.NameForm](ctx, "Who is there?")
		if err != nil {
			return nil, err
		}
		return runtime.TextResult("hello " + form.Name), nil
	})
	return tr
}

// connect starts a client of tr's server on transport ("http" or
// "stdio") speaking protocol; its elicitations are answered with answer.
func (tr *traced) connect(t *testing.T, transport, protocol string, header http.Header, answer func() mcpclient.ElicitResult) *mcpclient.Client {
	t.Helper()
	opts := mcpclient.Options{
		Protocol:     protocol,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true}},
		OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			return answer(), nil
		},
	}
	switch transport {
	case "http":
		hs := httptest.NewServer(tr.srv)
		t.Cleanup(hs.Close)
		opts.URL, opts.Header = hs.URL, header
	case "stdio":
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = tr.srv.ServeStdio(ctx, inR, outW)
			outW.Close()
		}()
		t.Cleanup(func() { cancel(); inR.Close(); <-done })
		opts.Pipe = &mcpclient.Pipe{In: inW, Out: outR}
	}
	c, err := mcpclient.Connect(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// ended returns the ended spans named name.
func (tr *traced) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range tr.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func attrOf(kvs []attribute.KeyValue, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range kvs {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func wantAttr(t *testing.T, what string, kvs []attribute.KeyValue, k attribute.Key, want any) {
	t.Helper()
	v, ok := attrOf(kvs, k)
	if !ok {
		t.Errorf("%s: no %s (attributes %v)", what, k, kvs)
		return
	}
	if got := v.AsInterface(); got != want {
		t.Errorf("%s: %s = %v (%T), want %v (%T)", what, k, got, got, want, want)
	}
}

func wantNoAttr(t *testing.T, what string, kvs []attribute.KeyValue, k attribute.Key) {
	t.Helper()
	if v, ok := attrOf(kvs, k); ok {
		t.Errorf("%s: %s = %v, want none", what, k, v.String())
	}
}

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + parentTrace + "-" + parentSpan + "-01"
)

// TestTelemetryToolCallSpans: a tools/call is a SERVER span named
// "tools/call <tool>", a child of the traceparent in params._meta, with
// the conventions' attributes; mcp.session.id only where a session has
// one (HTTP before 2026-07-28); tool errors and JSON-RPC errors as error.type; the operation
// duration recorded with the same attributes.
func TestTelemetryToolCallSpans(t *testing.T) {
	for _, tc := range []struct{ transport, protocol string }{
		{"http", runtime.Version20251125},
		{"http", runtime.Version20260728},
		{"stdio", runtime.Version20251125},
		{"stdio", runtime.Version20260728},
	} {
		t.Run(tc.transport+" "+tc.protocol, func(t *testing.T) {
			tr := newTraced(t)
			c := tr.connect(t, tc.transport, tc.protocol, nil, nil)
			ctx := context.Background()
			if _, err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}, "_meta": map[string]any{"traceparent": traceparent}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallTool(ctx, "fail", nil); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallTool(ctx, "nope", nil); err == nil {
				t.Fatal("calling an unknown tool did not fail")
			}
			if _, err := c.ListTools(ctx); err != nil {
				t.Fatal(err)
			}

			echo := tr.ended("tools/call echo")
			if len(echo) != 1 {
				t.Fatalf("%d spans tools/call echo, want 1 (all: %v)", len(echo), spanNames(tr.spans.Ended()))
			}
			s := echo[0]
			if s.SpanKind() != trace.SpanKindServer {
				t.Errorf("kind %v, want server", s.SpanKind())
			}
			if got := s.Parent(); got.TraceID().String() != parentTrace || got.SpanID().String() != parentSpan || !got.IsRemote() {
				t.Errorf("parent %v, want the traceparent of _meta", got)
			}
			kvs := s.Attributes()
			wantAttr(t, "echo", kvs, telemetry.KeyMethod, "tools/call")
			wantAttr(t, "echo", kvs, telemetry.KeyToolName, "echo")
			wantAttr(t, "echo", kvs, telemetry.KeyOperation, "execute_tool")
			wantAttr(t, "echo", kvs, telemetry.KeyProtocol, tc.protocol)
			if _, ok := attrOf(kvs, telemetry.KeyRequestID); !ok {
				t.Errorf("echo: no jsonrpc.request.id")
			}
			wantNoAttr(t, "echo", kvs, telemetry.KeyErrorType)
			switch {
			case tc.protocol == runtime.Version20260728:
				wantNoAttr(t, "echo", kvs, telemetry.KeySessionID)
				wantAttr(t, "echo", kvs, telemetry.KeyResultType, "complete")
				wantAttr(t, "echo", kvs, telemetry.KeyRound, int64(0))
			case tc.transport == "stdio": // a stdio session has no id on the wire
				wantNoAttr(t, "echo", kvs, telemetry.KeySessionID)
			default:
				wantAttr(t, "echo", kvs, telemetry.KeySessionID, c.SessionID())
			}
			if tc.transport == "http" {
				wantAttr(t, "echo", kvs, telemetry.KeyTransport, "tcp")
				wantAttr(t, "echo", kvs, telemetry.KeyNetProtocol, "http")
				wantAttr(t, "echo", kvs, telemetry.KeyClientAddress, "127.0.0.1")
				if _, ok := attrOf(kvs, telemetry.KeyClientPort); !ok {
					t.Errorf("echo: no client.port")
				}
			} else {
				wantAttr(t, "echo", kvs, telemetry.KeyTransport, "pipe")
				wantNoAttr(t, "echo", kvs, telemetry.KeyClientAddress)
			}

			fail := tr.ended("tools/call fail")
			if len(fail) != 1 {
				t.Fatalf("%d spans tools/call fail, want 1", len(fail))
			}
			wantAttr(t, "fail", fail[0].Attributes(), telemetry.KeyErrorType, "tool_error")
			if fail[0].Parent().IsValid() {
				t.Errorf("fail: parent %v, want none (no trace context sent)", fail[0].Parent())
			}
			nope := tr.ended("tools/call nope")
			if len(nope) != 1 {
				t.Fatalf("%d spans tools/call nope, want 1", len(nope))
			}
			wantAttr(t, "nope", nope[0].Attributes(), telemetry.KeyErrorType, "-32602")
			wantAttr(t, "nope", nope[0].Attributes(), telemetry.KeyStatusCode, "-32602")
			if len(tr.ended("tools/list")) != 1 {
				t.Errorf("spans %v, want one tools/list", spanNames(tr.spans.Ended()))
			}

			h := histogram(t, tr.reader, telemetry.MetricOperationDuration)
			var sawEcho, sawFail bool
			for _, dp := range h.DataPoints {
				if !slices.Equal(dp.Bounds, telemetry.Buckets) {
					t.Errorf("bounds %v, want %v", dp.Bounds, telemetry.Buckets)
				}
				if v, _ := dp.Attributes.Value(telemetry.KeyToolName); v.AsString() == "echo" {
					sawEcho = dp.Count == 1
					if _, ok := dp.Attributes.Value(telemetry.KeySessionID); ok {
						t.Errorf("operation duration has mcp.session.id")
					}
				}
				if v, _ := dp.Attributes.Value(telemetry.KeyErrorType); v.AsString() == "tool_error" {
					sawFail = true
				}
			}
			if !sawEcho || !sawFail {
				t.Errorf("operation duration: echo %v, tool_error %v in %+v", sawEcho, sawFail, h.DataPoints)
			}
		})
	}
}

// TestTelemetryTraceparentHeader: without _meta trace context, the HTTP
// request's traceparent header is the parent.
func TestTelemetryTraceparentHeader(t *testing.T) {
	for _, protocol := range []string{runtime.Version20251125, runtime.Version20260728} {
		t.Run(protocol, func(t *testing.T) {
			tr := newTraced(t)
			c := tr.connect(t, "http", protocol, http.Header{"Traceparent": {traceparent}}, nil)
			if _, err := c.CallTool(context.Background(), "echo", nil); err != nil {
				t.Fatal(err)
			}
			s := tr.ended("tools/call echo")
			if len(s) != 1 {
				t.Fatalf("spans %v", spanNames(tr.spans.Ended()))
			}
			if got := s[0].Parent(); got.TraceID().String() != parentTrace || got.SpanID().String() != parentSpan {
				t.Errorf("parent %v, want the traceparent header", got)
			}
		})
	}
}

// TestTelemetryRoundsLinked: on 2026-07-28 an eliciting call is two
// requests; the retry's span links to the first request's, and each says
// its round and resultType.
func TestTelemetryRoundsLinked(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			tr := newTraced(t)
			c := tr.connect(t, transport, runtime.Version20260728, nil, func() mcpclient.ElicitResult {
				return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}
			})
			res, err := c.CallTool(context.Background(), "ask", nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rounds != 1 {
				t.Fatalf("%d rounds, want 1", res.Rounds)
			}
			spans := tr.ended("tools/call ask")
			if len(spans) != 2 {
				t.Fatalf("spans %v, want two tools/call ask", spanNames(tr.spans.Ended()))
			}
			first, retry := spans[0], spans[1]
			wantAttr(t, "first", first.Attributes(), telemetry.KeyRound, int64(0))
			wantAttr(t, "first", first.Attributes(), telemetry.KeyResultType, "input_required")
			wantAttr(t, "retry", retry.Attributes(), telemetry.KeyRound, int64(1))
			wantAttr(t, "retry", retry.Attributes(), telemetry.KeyResultType, "complete")
			if len(first.Links()) != 0 {
				t.Errorf("first round has links %v", first.Links())
			}
			links := retry.Links()
			if len(links) != 1 || !links[0].SpanContext.Equal(first.SpanContext().WithRemote(true)) {
				t.Errorf("retry links %v, want the first round's span %v", links, first.SpanContext())
			}
		})
	}
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name()
	}
	return names
}

// histogram collects the reader's metrics and returns the float64
// histogram named name.
func histogram(t *testing.T, r *sdkmetric.ManualReader, name string) metricdata.Histogram[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				h, ok := m.Data.(metricdata.Histogram[float64])
				if !ok {
					t.Fatalf("%s is a %T", name, m.Data)
				}
				return h
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return metricdata.Histogram[float64]{}
}

// TestTelemetryElicitSpans: every elicitation is an "elicit" span, a
// child of its call's span, saying its mode, form, protocol and outcome;
// in a session the time the person took is recorded by form and outcome,
// and the pending count returns to zero. On 2026-07-28 the first request's
// elicitation ends input_required and the retry's accept.
func TestTelemetryElicitSpans(t *testing.T) {
	for _, tc := range []struct {
		transport, protocol, action, outcome string
	}{
		{"http", runtime.Version20251125, "accept", "accept"},
		{"http", runtime.Version20251125, "decline", "decline"},
		{"stdio", runtime.Version20251125, "cancel", "cancel"},
		{"http", runtime.Version20260728, "accept", "accept"},
		{"stdio", runtime.Version20260728, "decline", "decline"},
	} {
		t.Run(tc.transport+" "+tc.protocol+" "+tc.action, func(t *testing.T) {
			tr := newTraced(t)
			c := tr.connect(t, tc.transport, tc.protocol, nil, func() mcpclient.ElicitResult {
				if tc.action == "accept" {
					return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}
				}
				return mcpclient.ElicitResult{Action: tc.action}
			})
			if _, err := c.CallTool(context.Background(), "ask", nil); err != nil && tc.action == "accept" {
				t.Fatal(err)
			}
			calls := tr.ended("tools/call ask")
			asks := tr.ended(telemetry.SpanElicit)
			modern := tc.protocol == runtime.Version20260728
			want := 1
			if modern {
				want = 2
			}
			if len(calls) != want || len(asks) != want {
				t.Fatalf("spans %v: want %d tools/call ask and %d elicit", spanNames(tr.spans.Ended()), want, want)
			}
			for i, ask := range asks {
				if ask.Parent().SpanID() != calls[i].SpanContext().SpanID() {
					t.Errorf("elicit %d: parent %v, want its call's span %v", i, ask.Parent().SpanID(), calls[i].SpanContext().SpanID())
				}
				kvs := ask.Attributes()
				wantAttr(t, "elicit", kvs, telemetry.KeyMode, "form")
				wantAttr(t, "elicit", kvs, telemetry.KeyForm, "NameForm")
				wantAttr(t, "elicit", kvs, telemetry.KeyProtocol, tc.protocol)
				wantAttr(t, "elicit", kvs, telemetry.KeyReasks, int64(0))
				outcome := tc.outcome
				if modern && i == 0 {
					outcome = telemetry.OutcomeInputRequired
				}
				wantAttr(t, "elicit", kvs, telemetry.KeyOutcome, outcome)
			}

			var rm metricdata.ResourceMetrics
			if err := tr.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			answered, pending := metricNamed(rm, telemetry.MetricAnswerDuration), metricNamed(rm, telemetry.MetricPending)
			if modern { // nothing waits in the server, and the person's time is the client's
				if answered != nil {
					t.Errorf("2026-07-28 recorded %s: %+v", telemetry.MetricAnswerDuration, answered.Data)
				}
				return
			}
			h, ok := answered.Data.(metricdata.Histogram[float64])
			if answered == nil || !ok || len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
				t.Fatalf("%s: %+v, want one answer", telemetry.MetricAnswerDuration, answered)
			}
			wantAttr(t, "answer duration", h.DataPoints[0].Attributes.ToSlice(), telemetry.KeyOutcome, tc.outcome)
			wantAttr(t, "answer duration", h.DataPoints[0].Attributes.ToSlice(), telemetry.KeyForm, "NameForm")
			sum, ok := pending.Data.(metricdata.Sum[int64])
			if pending == nil || !ok || len(sum.DataPoints) != 1 || sum.DataPoints[0].Value != 0 {
				t.Errorf("%s: %+v, want 0 once answered", telemetry.MetricPending, pending)
			}
		})
	}
}

// TestTelemetrySessionDuration: a session's end records its duration,
// with its protocol and transport.
func TestTelemetrySessionDuration(t *testing.T) {
	tr := newTraced(t)
	c := tr.connect(t, "http", runtime.Version20251125, nil, nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	h := histogram(t, tr.reader, telemetry.MetricSessionDuration)
	if len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 {
		t.Fatalf("%s: %+v, want one session", telemetry.MetricSessionDuration, h.DataPoints)
	}
	kvs := h.DataPoints[0].Attributes.ToSlice()
	wantAttr(t, "session", kvs, telemetry.KeyProtocol, runtime.Version20251125)
	wantAttr(t, "session", kvs, telemetry.KeyTransport, "tcp")
	wantNoAttr(t, "session", kvs, telemetry.KeyErrorType)
}

func metricNamed(rm metricdata.ResourceMetrics, name string) *metricdata.Metrics {
	for _, sm := range rm.ScopeMetrics {
		for i := range sm.Metrics {
			if sm.Metrics[i].Name == name {
				return &sm.Metrics[i]
			}
		}
	}
	return nil
}
