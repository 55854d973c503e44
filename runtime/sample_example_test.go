package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// forecast is the tool the weather handler lets the client's model call.
var forecast = runtime.Tool{Name: "forecast", Description: "Today's forecast for a city",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}

// weather asks the client's model, which may call forecast: the handler
// runs each tool_use it gets and answers with a tool_result in the next
// Sample, until the model answers in text.
func weather(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
	msgs := []runtime.SamplingMessage{{Role: "user", Content: []runtime.SamplingContent{{Type: "text", Text: "What is the weather in Paris?"}}}}
	for range 5 {
		res, err := runtime.Sample(ctx, runtime.SampleRequest{Messages: msgs, MaxTokens: 200, Tools: []runtime.Tool{forecast}})
		if err != nil {
			return nil, err // ErrInputRequired on 2026-07-28 until the answer is there
		}
		msgs = append(msgs, runtime.SamplingMessage{Role: "assistant", Content: res.Content})
		var results []runtime.SamplingContent
		var text strings.Builder
		for _, c := range res.Content {
			switch c.Type {
			case "tool_use":
				results = append(results, runtime.SamplingContent{Type: "tool_result", ToolUseID: c.ID,
					Content: []runtime.Content{{Type: "text", Text: "sunny, 24°C"}}})
			case "text":
				text.WriteString(c.Text)
			}
		}
		if len(results) == 0 {
			return runtime.TextResult(text.String()), nil
		}
		msgs = append(msgs, runtime.SamplingMessage{Role: "user", Content: results})
	}
	return runtime.ErrorResult("the model kept calling tools"), nil
}

// model is the client's side: a model that calls forecast first, then
// answers from its result.
func model(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p struct{ Messages []runtime.SamplingMessage }
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	last := p.Messages[len(p.Messages)-1].Content[0]
	if last.Type == "tool_result" {
		fmt.Printf("model: the tool says %q\n", last.Content[0].Text)
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"It is sunny in Paris."},"model":"example","stopReason":"endTurn"}`), nil
	}
	fmt.Println("model: calls forecast")
	return json.RawMessage(`{"role":"assistant","content":[{"type":"tool_use","id":"call-1","name":"forecast","input":{"city":"Paris"}}],"model":"example","stopReason":"toolUse"}`), nil
}

// The sampling tool loop: the model asks for a tool (tool_use), the
// handler runs it and sends the result (tool_result) in the next request,
// and the model answers. The same handler serves a 2025-11-25 session
// (each Sample a request on the call's stream) and a 2026-07-28 client
// (each Sample an input_required round; the handler runs again from the
// top, its earlier Samples answered from the requestState).
func ExampleSample() {
	srv := runtime.NewServer(runtime.Options{Name: "weather"})
	runtime.AddTool(srv, runtime.Tool{Name: "weather"}, weather)
	hs := httptest.NewServer(srv)
	defer hs.Close()

	for _, version := range []string{runtime.Version20251125, runtime.Version20260728} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := mcpclient.Connect(ctx, mcpclient.Options{URL: hs.URL, Protocol: version,
			Capabilities: mcpclient.Capabilities{Sampling: &mcpclient.SamplingCapability{Tools: true}}, OnRequest: model})
		if err != nil {
			fmt.Println(err)
			cancel()
			return
		}
		res, err := c.CallTool(ctx, "weather", nil)
		if err != nil {
			fmt.Println(err)
		} else {
			fmt.Println(strings.Join(res.Lines(), ""))
		}
		c.Close()
		cancel()
	}
	// Output:
	// model: calls forecast
	// model: the tool says "sunny, 24°C"
	// It is sunny in Paris.
	// model: calls forecast
	// model: the tool says "sunny, 24°C"
	// It is sunny in Paris.
}
