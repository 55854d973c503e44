package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestZeConsoleTelemetry: with OTEL_TRACES_EXPORTER=console, ze prints the
// spans of a ze_add_peer call that elicits (its two forms accepted) on
// standard output when it exits: the call's SERVER span "tools/call
// ze_add_peer" and two "elicit" spans, its children, by form. With -v it
// logs them (docs/telemetry.md).
func TestZeConsoleTelemetry(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	var stdout bytes.Buffer // written by ze's exporter until ze returns
	addr, stop := serveZe(t, &stdout)
	a := &answers{results: []*mcp.ElicitResult{
		accept(map[string]any{"address": "192.0.2.7", "asn": 65001, "family": "ipv4-unicast"}),
		accept(map[string]any{"confirm": true}),
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "telemetry-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: a.handler})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Its own transport, whose connections close before ze shuts down: an
	// open one would hold ze's graceful shutdown.
	tr := &http.Transport{}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: tr}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	text, isErr := callText(t, cs, "ze_add_peer", nil)
	_ = cs.Close()
	tr.CloseIdleConnections()
	stop()
	if isErr || !strings.HasPrefix(text, "added peer 192.0.2.7 AS 65001") {
		t.Fatalf("ze_add_peer: %q isError=%v", text, isErr)
	}
	type span struct {
		Name        string
		SpanKind    int
		SpanContext struct{ TraceID, SpanID string }
		Parent      struct{ SpanID string }
		Attributes  []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	if testing.Verbose() { // docs/telemetry.md shows this output
		t.Log(stdout.String())
	}
	var spans []span
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var s span
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("ze's console output is not a stream of spans: %v", err)
		}
		spans = append(spans, s)
	}
	attr := func(s span, key string) any {
		for _, a := range s.Attributes {
			if a.Key == key {
				return a.Value.Value
			}
		}
		return nil
	}
	var call *span
	var forms []any
	for i, s := range spans {
		if s.Name == "tools/call ze_add_peer" {
			call = &spans[i]
		}
	}
	if call == nil {
		t.Fatalf("no span tools/call ze_add_peer among %d", len(spans))
	}
	if call.SpanKind != 2 || attr(*call, "gen_ai.tool.name") != "ze_add_peer" || attr(*call, "mcp.protocol.version") != "2025-11-25" {
		t.Errorf("call span: %+v", *call)
	}
	for _, s := range spans {
		if s.Name != "elicit" {
			continue
		}
		if s.Parent.SpanID != call.SpanContext.SpanID || s.SpanContext.TraceID != call.SpanContext.TraceID {
			t.Errorf("elicit span %+v is not a child of the call's %+v", s, call.SpanContext)
		}
		if attr(s, "elicit.outcome") != "accept" {
			t.Errorf("elicit span outcome %v, want accept", attr(s, "elicit.outcome"))
		}
		forms = append(forms, attr(s, "elicit.form"))
	}
	if len(forms) != 2 || forms[0] != "PeerForm" || forms[1] != "ConfirmForm" {
		t.Errorf("elicit spans by form %v, want [PeerForm ConfirmForm]", forms)
	}
}

// TestZeTelemetryExporterUnknown: an exporter ze does not know stops it at
// start, naming the variable and the values it takes.
func TestZeTelemetryExporterUnknown(t *testing.T) {
	for _, name := range []string{"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "zipkin")
			var stderr bytes.Buffer
			if code := run(context.Background(), []string{"-addr", "127.0.0.1:0"}, &bytes.Buffer{}, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			if want := name + `="zipkin": ze exports to none (the default), console or otlp`; !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
		})
	}
}
