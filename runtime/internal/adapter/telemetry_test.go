package adapter

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/telemetry"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// TestStartParent: the span of an adapted call is a child of the span the
// library already put on ctx, else of the traceparent in params._meta,
// else of the HTTP header's; on 2026-07-28 it has no mcp.session.id.
func TestStartParent(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	tel := telemetry.New(tp, nil)
	const (
		metaTrace   = "0af7651916cd43dd8448eb211c80319c"
		headerTrace = "1bf7651916cd43dd8448eb211c80319c"
	)
	meta := map[string]json.RawMessage{"traceparent": json.RawMessage(`"00-` + metaTrace + `-b7ad6b7169203331-01"`)}
	header := http.Header{"Traceparent": {"00-" + headerTrace + "-c7ad6b7169203331-01"}}
	libCtx, lib := tp.Tracer("lib").Start(context.Background(), "mcp.tools/call")
	lib.End()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		meta      map[string]json.RawMessage
		version   string
		wantTrace string
	}{
		{"library span", libCtx, meta, "2025-11-25", lib.SpanContext().TraceID().String()},
		{"meta", context.Background(), meta, "2025-11-25", metaTrace},
		{"header", context.Background(), nil, "2026-07-28", headerTrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Call{Version: tc.version, Tel: tel}
			ctx := c.Start(tc.ctx, telemetry.Request{Target: "ask", SessionID: "s1", Meta: tc.meta, Header: header})
			span := trace.SpanFromContext(ctx).(sdktrace.ReadOnlySpan)
			c.Finish(telemetry.Outcome{})
			if got := span.Parent().TraceID().String(); got != tc.wantTrace || span.SpanContext().TraceID().String() != tc.wantTrace {
				t.Errorf("parent trace %s, want %s", got, tc.wantTrace)
			}
			if span.Name() != "tools/call ask" {
				t.Errorf("span %q", span.Name())
			}
			session := false
			for _, kv := range span.Attributes() {
				session = session || kv.Key == telemetry.KeySessionID
			}
			if want := tc.version < "2026-07-28"; session != want {
				t.Errorf("%s: mcp.session.id set %v, want %v", tc.version, session, want)
			}
		})
	}
	// Without telemetry Start records nothing and hands ctx back.
	ctx := context.Background()
	c := &Call{Version: "2025-11-25"}
	if got := c.Start(ctx, telemetry.Request{Target: "ask"}); got != ctx {
		t.Error("Start without telemetry changed the context")
	}
	c.Finish(telemetry.Outcome{})
}
