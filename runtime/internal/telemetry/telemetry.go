// Package telemetry is the OpenTelemetry instrumentation of runtime and
// its adapters (runtime/gosdk, runtime/mcpgo): span names, span kinds,
// attributes, instruments and trace-context propagation, written once.
//
// It follows the MCP semantic conventions (open-telemetry/
// semantic-conventions-genai, model/mcp: span "{mcp.method.name} {target}",
// kind SERVER, mcp.server.operation.duration and
// mcp.server.session.duration in seconds) and adds, in the elicit.*
// namespace, what the conventions do not cover: a span per elicitation, the
// time people take to answer, and the elicitations waiting for an answer.
//
// A nil *T is valid and does nothing: each method returns at once without
// allocating, so a server built without providers pays one nil check.
package telemetry

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of every tracer and meter.
const ScopeName = "github.com/go-elicit/elicit/runtime"

// Attribute keys of the MCP semantic conventions.
const (
	KeyMethod          = attribute.Key("mcp.method.name")
	KeyProtocol        = attribute.Key("mcp.protocol.version")
	KeySessionID       = attribute.Key("mcp.session.id")
	KeyResourceURI     = attribute.Key("mcp.resource.uri")
	KeyToolName        = attribute.Key("gen_ai.tool.name")
	KeyPromptName      = attribute.Key("gen_ai.prompt.name")
	KeyOperation       = attribute.Key("gen_ai.operation.name")
	KeyRequestID       = attribute.Key("jsonrpc.request.id")
	KeyErrorType       = attribute.Key("error.type")
	KeyStatusCode      = attribute.Key("rpc.response.status_code")
	KeyTransport       = attribute.Key("network.transport")
	KeyNetProtocol     = attribute.Key("network.protocol.name")
	KeyNetProtoVersion = attribute.Key("network.protocol.version")
	KeyClientAddress   = attribute.Key("client.address")
	KeyClientPort      = attribute.Key("client.port")
)

// Attribute keys of this project's own namespace (elicit.*).
const (
	// KeyRound is the input_required round of a 2026-07-28 tools/call
	// request: 0 for the first request, 1 for the first retry, ...
	KeyRound = attribute.Key("elicit.round")
	// KeyResultType is a 2026-07-28 tools/call's resultType: "complete" or
	// "input_required".
	KeyResultType = attribute.Key("elicit.result_type")
	// KeyMode is an elicitation's mode: "form" or "url".
	KeyMode = attribute.Key("elicit.mode")
	// KeyForm is the generated form's Go type name ("schema" for
	// ElicitSchema, "" for URL mode).
	KeyForm = attribute.Key("elicit.form")
	// KeyOutcome is how an elicitation ended: accept, decline, cancel,
	// invalid, timeout, input_required (2026-07-28: asked, the answer comes
	// with a retry) or error.
	KeyOutcome = attribute.Key("elicit.outcome")
	// KeyReasks is how many times an elicitation was asked again after an
	// invalid answer (WithReask) in this run of the handler.
	KeyReasks = attribute.Key("elicit.reasks")
	// KeyDropped names the optional properties left out of the form for
	// the client's protocol version.
	KeyDropped = attribute.Key("elicit.dropped")
)

// Metric names.
const (
	MetricOperationDuration = "mcp.server.operation.duration"
	MetricSessionDuration   = "mcp.server.session.duration"
	// MetricAnswerDuration is how long a person took to answer an
	// elicitation, by elicit.form, elicit.mode and elicit.outcome.
	MetricAnswerDuration = "elicit.answer.duration"
	// MetricPending is the elicitations a handler waits on in this process
	// (sessions: 2025-03-26 to 2025-11-25), by elicit.mode.
	MetricPending = "elicit.pending"
)

// Buckets are the histogram boundaries, in seconds, the MCP conventions
// advise for their durations; the answer time uses them too.
var Buckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Span names of this project's own spans.
const SpanElicit = "elicit"

// T holds the tracer and instruments of one server. A nil *T records
// nothing.
type T struct {
	tracer    trace.Tracer // nil: no TracerProvider
	metered   bool
	opDur     metric.Float64Histogram
	sessDur   metric.Float64Histogram
	answerDur metric.Float64Histogram
	pending   metric.Int64UpDownCounter
}

// New returns the telemetry of a server with these providers, nil when
// both are nil.
func New(tp trace.TracerProvider, mp metric.MeterProvider) *T {
	if tp == nil && mp == nil {
		return nil
	}
	t := &T{}
	if tp != nil {
		t.tracer = tp.Tracer(ScopeName)
	}
	if mp != nil {
		t.metered = true
		m := mp.Meter(ScopeName)
		// An instrument the provider refuses is a no-op one, and the error
		// is the provider's to report (otel.Handle): telemetry never fails
		// a request.
		var err error
		t.opDur, err = m.Float64Histogram(MetricOperationDuration, metric.WithUnit("s"),
			metric.WithDescription("MCP request duration as observed on the receiver from the time it was received until the result or ack is sent."),
			metric.WithExplicitBucketBoundaries(Buckets...))
		otelHandle(err)
		t.sessDur, err = m.Float64Histogram(MetricSessionDuration, metric.WithUnit("s"),
			metric.WithDescription("The duration of the MCP session as observed on the MCP server."),
			metric.WithExplicitBucketBoundaries(Buckets...))
		otelHandle(err)
		t.answerDur, err = m.Float64Histogram(MetricAnswerDuration, metric.WithUnit("s"),
			metric.WithDescription("How long the user took to answer an elicitation."),
			metric.WithExplicitBucketBoundaries(Buckets...))
		otelHandle(err)
		t.pending, err = m.Int64UpDownCounter(MetricPending, metric.WithUnit("{elicitation}"),
			metric.WithDescription("Elicitations waiting for the user's answer in this process."))
		otelHandle(err)
	}
	return t
}

func otelHandle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}

// propagator is the global one, or W3C trace context and baggage when none
// was set (the global default propagates nothing).
func propagator() propagation.TextMapPropagator {
	p := otel.GetTextMapPropagator()
	if len(p.Fields()) == 0 {
		return defaultPropagator
	}
	return p
}

var defaultPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// metaCarrier reads the trace context a request carries in params._meta
// (SEP-414: traceparent, tracestate, baggage as strings).
type metaCarrier map[string]json.RawMessage

func (m metaCarrier) Get(key string) string {
	var s string
	if raw, ok := m[key]; ok && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}
func (m metaCarrier) Set(string, string) {}
func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// MetaOf is the trace context in a request's params._meta as a library
// decoded it (values of any type): the propagator's fields (traceparent,
// tracestate, baggage) that are strings, nil when there are none.
func MetaOf(meta map[string]any) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, k := range propagator().Fields() {
		s, ok := meta[k].(string)
		if !ok {
			continue
		}
		raw, err := json.Marshal(s)
		if err != nil {
			continue
		}
		if out == nil {
			out = make(map[string]json.RawMessage, 3)
		}
		out[k] = raw
	}
	return out
}

// Request is what a span of one request is made of.
type Request struct {
	Method string
	// Target is the tool's (or prompt's) name, or the resource's URI.
	Target string
	// ID is the JSON-RPC request id as sent (nil for a notification).
	ID json.RawMessage
	// Protocol is the MCP protocol version of the request.
	Protocol string
	// SessionID is the session's id; "" on 2026-07-28, which has none.
	SessionID string
	// Meta is params._meta, where the trace context may ride.
	Meta map[string]json.RawMessage
	// HTTP is the request's HTTP request; nil over stdio (and for an
	// adapter that does not know it).
	HTTP *http.Request
	// Header is the HTTP request's header when HTTP is not known (an
	// adapter's library passes on only the header), nil when the request
	// did not come over HTTP.
	Header http.Header
	// Stdio says the request came over stdio.
	Stdio bool
	// KeepParent says a span already in ctx is the parent (an adapter's
	// library made it from the same trace context): nothing is extracted
	// then.
	KeepParent bool
}

// Op is one request being served; its zero value (from a nil *T) does
// nothing.
type Op struct {
	t     *T
	span  trace.Span
	start time.Time
	attrs []attribute.KeyValue // shared by the span and the metric
}

// Start starts the span of a request, a child of the trace context the
// request carries (params._meta first, then the HTTP headers), and returns
// the context handlers run in.
func (t *T) Start(ctx context.Context, r Request) (context.Context, *Op) {
	if t == nil {
		return ctx, nil
	}
	op := &Op{t: t, start: time.Now()}
	op.attrs = requestAttrs(r)
	if t.tracer == nil {
		return ctx, op
	}
	if !r.KeepParent || !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = extract(ctx, r)
	}
	attrs := op.attrs
	if r.ID != nil {
		attrs = append(attrs[:len(attrs):len(attrs)], KeyRequestID.String(requestID(r.ID)))
	}
	if r.SessionID != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], KeySessionID.String(r.SessionID))
	}
	ctx, op.span = t.tracer.Start(ctx, spanName(r.Method, r.Target), trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	return ctx, op
}

// extract returns ctx with the trace context request r carries:
// params._meta's, else the HTTP headers'.
func extract(ctx context.Context, r Request) context.Context {
	prop := propagator()
	switch {
	case r.HTTP != nil:
		ctx = prop.Extract(ctx, propagation.HeaderCarrier(r.HTTP.Header))
	case r.Header != nil:
		ctx = prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	if r.Meta != nil {
		ctx = prop.Extract(ctx, metaCarrier(r.Meta))
	}
	return ctx
}

// spanName is "{mcp.method.name} {target}", or the method alone.
func spanName(method, target string) string {
	if target == "" {
		return method
	}
	return method + " " + target
}

// requestID is the id as the conventions want it: a string id's text, a
// number's digits.
func requestID(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return s
	}
	return string(id)
}

// requestAttrs are the attributes the span and the duration metric share
// (the conventions keep ids, unbounded, off the metric).
func requestAttrs(r Request) []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, 12)
	a = append(a, KeyMethod.String(r.Method))
	switch r.Method {
	case "tools/call":
		if r.Target != "" {
			a = append(a, KeyToolName.String(r.Target), KeyOperation.String("execute_tool"))
		}
	case "prompts/get":
		if r.Target != "" {
			a = append(a, KeyPromptName.String(r.Target))
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if r.Target != "" {
			a = append(a, KeyResourceURI.String(r.Target))
		}
	}
	if r.Protocol != "" {
		a = append(a, KeyProtocol.String(r.Protocol))
	}
	switch {
	case r.Stdio:
		a = append(a, KeyTransport.String("pipe"))
	case r.HTTP != nil:
		a = append(a, KeyTransport.String("tcp"), KeyNetProtocol.String("http"))
		if v := httpVersion(r.HTTP); v != "" {
			a = append(a, KeyNetProtoVersion.String(v))
		}
		if host, port, err := net.SplitHostPort(r.HTTP.RemoteAddr); err == nil {
			a = append(a, KeyClientAddress.String(host))
			if p, err := strconv.Atoi(port); err == nil {
				a = append(a, KeyClientPort.Int(p))
			}
		}
	case r.Header != nil:
		a = append(a, KeyTransport.String("tcp"), KeyNetProtocol.String("http"))
	}
	return a
}

func httpVersion(r *http.Request) string {
	switch {
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "1.1"
	case r.ProtoMajor == 2:
		return "2"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "1.0"
	}
	return ""
}

// Outcome is how a request ended.
type Outcome struct {
	// Code is the JSON-RPC error code of an error response; 0 otherwise.
	Code int
	// ToolError says a tools/call result had isError.
	ToolError bool
	// Other says the request failed with an error that carries no
	// JSON-RPC code (Code is 0): error.type is "_OTHER".
	Other bool
}

// End ends the request's span and records its duration.
func (op *Op) End(o Outcome) {
	if op == nil {
		return
	}
	attrs := op.attrs
	switch {
	case o.Code != 0:
		code := strconv.Itoa(o.Code)
		attrs = append(attrs, KeyErrorType.String(code), KeyStatusCode.String(code))
	case o.ToolError:
		attrs = append(attrs, KeyErrorType.String("tool_error"))
	case o.Other:
		attrs = append(attrs, KeyErrorType.String("_OTHER"))
	}
	if op.t.metered {
		op.t.opDur.Record(context.Background(), time.Since(op.start).Seconds(), metric.WithAttributes(attrs...))
	}
	if op.span == nil {
		return
	}
	op.span.SetAttributes(attrs[len(op.attrs):]...)
	if o.Code != 0 || o.ToolError || o.Other {
		op.span.SetStatus(codes.Error, "")
	}
	op.span.End()
}

// Round notes on the span of a 2026-07-28 tools/call (in ctx) its round
// and its resultType.
func (t *T) Round(ctx context.Context, round int, resultType string) {
	if t == nil || t.tracer == nil {
		return
	}
	trace.SpanFromContext(ctx).SetAttributes(KeyRound.Int(round), KeyResultType.String(resultType))
}

// Session records the end of a session that started at start; errorType
// is its error.type, "" for a session that ended as sessions do.
func (t *T) Session(start time.Time, protocol string, stdio bool, errorType string) {
	if t == nil || !t.metered {
		return
	}
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, KeyProtocol.String(protocol))
	if stdio {
		attrs = append(attrs, KeyTransport.String("pipe"))
	} else {
		attrs = append(attrs, KeyTransport.String("tcp"), KeyNetProtocol.String("http"))
	}
	if errorType != "" {
		attrs = append(attrs, KeyErrorType.String(errorType))
	}
	t.sessDur.Record(context.Background(), time.Since(start).Seconds(), metric.WithAttributes(attrs...))
}

// Rounds is what the requestState of a 2026-07-28 call carries for
// telemetry between its rounds: the span context of its first request,
// which later rounds' spans link to. Encoded, it is RoundsSize bytes.
type Rounds struct {
	First trace.SpanContext
}

// RoundsSize is the length of an encoded Rounds.
const RoundsSize = 16 + 8 + 1

// Encode returns r's bytes for the requestState, nil when r is empty.
func (r Rounds) Encode() []byte {
	if !r.First.IsValid() {
		return nil
	}
	b := make([]byte, 0, RoundsSize)
	tid, sid := r.First.TraceID(), r.First.SpanID()
	b = append(b, tid[:]...)
	b = append(b, sid[:]...)
	return append(b, byte(r.First.TraceFlags()))
}

// DecodeRounds reads what Encode wrote; anything else is an empty Rounds.
func DecodeRounds(b []byte) Rounds {
	if len(b) != RoundsSize {
		return Rounds{}
	}
	var tid trace.TraceID
	var sid trace.SpanID
	copy(tid[:], b[:16])
	copy(sid[:], b[16:24])
	return Rounds{First: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.TraceFlags(b[24]), Remote: true})}
}

// ResumeRound links the span of a retry (in ctx) to the first request of
// its call, and returns what the retry's requestState carried.
func (t *T) ResumeRound(ctx context.Context, state []byte) Rounds {
	if t == nil {
		return Rounds{}
	}
	r := DecodeRounds(state)
	if r.First.IsValid() {
		span := trace.SpanFromContext(ctx)
		if span.SpanContext().SpanID() != r.First.SpanID() {
			span.AddLink(trace.Link{SpanContext: r.First, Attributes: []attribute.KeyValue{attribute.String("elicit.link", "first_round")}})
		}
	}
	return r
}

// SealRound is what the requestState of an input_required result carries:
// the first round's span context (this one's, on a first request).
func (t *T) SealRound(ctx context.Context, prev Rounds) []byte {
	if t == nil {
		return nil
	}
	first := prev.First
	if !first.IsValid() {
		first = trace.SpanContextFromContext(ctx)
	}
	return Rounds{First: first}.Encode()
}

// AskInfo is what the span of one elicitation is made of.
type AskInfo struct {
	// Mode is "form" or "url".
	Mode string
	// Form is the generated form's type name, "schema" for ElicitSchema,
	// "" in URL mode.
	Form string
	// Protocol is the call's MCP protocol version.
	Protocol string
	// Dropped names the optional properties left out for Protocol.
	Dropped []string
	// RoundTrip says the call is a 2026-07-28 request: the elicitation
	// rides an input_required result, and nothing waits in this process.
	RoundTrip bool
}

// Ask is one elicitation being asked; nil (from a nil *T) does nothing.
type Ask struct {
	t       *T
	span    trace.Span
	start   time.Time
	attrs   []attribute.KeyValue // form and mode: the metrics' too
	pending bool
}

// StartAsk starts the span of an elicitation, a child of the call's span
// in ctx, and counts it pending while a session's handler waits for it.
func (t *T) StartAsk(ctx context.Context, in AskInfo) (context.Context, *Ask) {
	if t == nil {
		return ctx, nil
	}
	a := &Ask{t: t, start: time.Now(), attrs: []attribute.KeyValue{KeyMode.String(in.Mode), KeyForm.String(in.Form)}}
	if t.metered && !in.RoundTrip {
		a.pending = true
		t.pending.Add(ctx, 1, metric.WithAttributes(a.attrs[0]))
	}
	if t.tracer != nil {
		attrs := append(a.attrs[:len(a.attrs):len(a.attrs)], KeyProtocol.String(in.Protocol))
		if len(in.Dropped) > 0 {
			attrs = append(attrs, KeyDropped.StringSlice(in.Dropped))
		}
		ctx, a.span = t.tracer.Start(ctx, SpanElicit, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	}
	return ctx, a
}

// Outcomes of an elicitation (KeyOutcome).
const (
	OutcomeAccept        = "accept"
	OutcomeDecline       = "decline"
	OutcomeCancel        = "cancel"
	OutcomeInvalid       = "invalid"
	OutcomeTimeout       = "timeout"
	OutcomeInputRequired = "input_required"
	OutcomeError         = "error"
)

// End ends the elicitation with its outcome, after reasks asks again. A
// session's elicitation records how long the person took (the whole wait,
// re-asks included) unless it failed for another reason (OutcomeError);
// on 2026-07-28 that time is the client's, between two requests, and is
// not recorded.
func (a *Ask) End(outcome string, reasks int) {
	if a == nil {
		return
	}
	if a.pending {
		a.t.pending.Add(context.Background(), -1, metric.WithAttributes(a.attrs[0]))
		if outcome != OutcomeError && outcome != OutcomeInputRequired {
			attrs := append(a.attrs[:len(a.attrs):len(a.attrs)], KeyOutcome.String(outcome))
			a.t.answerDur.Record(context.Background(), time.Since(a.start).Seconds(), metric.WithAttributes(attrs...))
		}
	}
	if a.span == nil {
		return
	}
	a.span.SetAttributes(KeyOutcome.String(outcome), KeyReasks.Int(reasks))
	if outcome == OutcomeError || outcome == OutcomeInvalid || outcome == OutcomeTimeout {
		a.span.SetStatus(codes.Error, outcome)
	}
	a.span.End()
}
