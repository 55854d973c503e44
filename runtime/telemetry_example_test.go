package runtime_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Options.TracerProvider traces every request; any OpenTelemetry
// TracerProvider will do (here the SDK's, recording in memory; in
// production one with an exporter). Options.MeterProvider takes a
// MeterProvider the same way. The client discovers the server first; on
// 2026-07-28 the call is then two requests, the retry linked to the first,
// and the elicitation is a span inside each: asked in the first, answered
// in the retry.
func ExampleOptions_telemetry() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	srv := runtime.NewServer(runtime.Options{Name: "greeter", TracerProvider: tp})
	runtime.AddTool(srv, runtime.Tool{Name: "greet"}, greet)
	hs := httptest.NewServer(srv)
	defer hs.Close()

	adaptertest.PrintCall(hs.URL, runtime.Version20260728, "greet", answerName)
	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind(), len(s.Links()), "link(s)")
	}
	// Output:
	// asked "Who is there?"
	// hello Ada
	// server/discover server 0 link(s)
	// elicit internal 0 link(s)
	// tools/call greet server 0 link(s)
	// elicit internal 0 link(s)
	// tools/call greet server 1 link(s)
}
