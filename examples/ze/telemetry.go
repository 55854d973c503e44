package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// providers are the OpenTelemetry providers ze gives runtime.Options:
// nil (nothing recorded) for a signal whose exporter is "none".
type providers struct {
	tracer   trace.TracerProvider
	meter    metric.MeterProvider
	shutdown []func(context.Context) error
}

// Shutdown flushes what is recorded and stops the exporters.
func (p *providers) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range p.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// newProviders makes the providers the standard OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER variables (read with getenv) ask for: "none" or
// unset, nothing; "console", pretty-printed JSON on console; "otlp", OTLP
// over HTTP, configured by the standard OTEL_EXPORTER_OTLP_* variables.
// Any other value (or a list of several) is an error.
func newProviders(ctx context.Context, getenv func(string) string, console io.Writer) (*providers, error) {
	p := &providers{}
	traces, err := exporterOf(getenv, "OTEL_TRACES_EXPORTER")
	if err != nil {
		return nil, err
	}
	metrics, err := exporterOf(getenv, "OTEL_METRICS_EXPORTER")
	if err != nil {
		return nil, err
	}
	spans, ok, err := exporter(traces,
		func() (sdktrace.SpanExporter, error) {
			return stdouttrace.New(stdouttrace.WithWriter(console), stdouttrace.WithPrettyPrint())
		},
		func() (sdktrace.SpanExporter, error) { return otlptracehttp.New(ctx) })
	if err != nil {
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: %w", traces, err)
	}
	if ok {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans))
		p.tracer = tp
		p.shutdown = append(p.shutdown, tp.Shutdown)
	}
	values, ok, err := exporter(metrics,
		func() (sdkmetric.Exporter, error) {
			return stdoutmetric.New(stdoutmetric.WithWriter(console), stdoutmetric.WithPrettyPrint())
		},
		func() (sdkmetric.Exporter, error) { return otlpmetrichttp.New(ctx) })
	if err != nil {
		_ = p.Shutdown(ctx)
		return nil, fmt.Errorf("OTEL_METRICS_EXPORTER=%s: %w", metrics, err)
	}
	if ok {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(values)))
		p.meter = mp
		p.shutdown = append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}

// exporterOf is the exporter the variable name asks for: "none" when it
// is unset or empty, "console" or "otlp".
func exporterOf(getenv func(string) string, name string) (string, error) {
	v := strings.TrimSpace(getenv(name))
	switch v {
	case "", "none":
		return "none", nil
	case "console", "otlp":
		return v, nil
	}
	return "", fmt.Errorf("%s=%q: ze exports to none (the default), console or otlp", name, v)
}

// exporter makes the exporter kind names with console or otlp; ok is
// false for "none".
func exporter[E any](kind string, console, otlp func() (E, error)) (e E, ok bool, err error) {
	switch kind {
	case "console":
		e, err = console()
	case "otlp":
		e, err = otlp()
	default:
		return e, false, nil
	}
	return e, err == nil, err
}
