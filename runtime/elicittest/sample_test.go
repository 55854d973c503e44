package elicittest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// forecastTool is the tool the model may call in "weather".
var forecastTool = runtime.Tool{Name: "forecast", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}

// weather offers the model the forecast tool and answers what it did with
// it: the first step of a tool loop (runtime's ExampleSample runs the
// whole loop).
func weather(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
	res, err := runtime.Sample(ctx, runtime.SampleRequest{MaxTokens: 200, Tools: []runtime.Tool{forecastTool},
		ToolChoice: &runtime.ToolChoice{Mode: "required"},
		Messages:   []runtime.SamplingMessage{{Role: "user", Content: text("Weather in Paris?")}}})
	if err != nil {
		return nil, err
	}
	c := res.Content[0]
	return runtime.TextResult(fmt.Sprintf("%s %s(%s) %s", res.StopReason, c.Name, c.Input, c.ID)), nil
}

// newSamplingServer serves weather, a tool that lists the roots, and one
// that asks a name, the model and the roots together.
func newSamplingServer(t *testing.T) *elicittest.Server {
	srv := runtime.NewServer(runtime.Options{Name: "sampling", Version: "1"})
	runtime.AddTool(srv, runtime.Tool{Name: "weather"}, weather)
	runtime.AddTool(srv, runtime.Tool{Name: "roots"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		roots, err := runtime.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		uris := make([]string, len(roots))
		for i, r := range roots {
			uris[i] = r.URI
		}
		return runtime.TextResult(strings.Join(uris, ",")), nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "all"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		out, err := adaptertest.AskAll(ctx)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(out), nil
	})
	return elicittest.NewServer(t, srv)
}

func text(s string) []runtime.SamplingContent {
	return []runtime.SamplingContent{{Type: "text", Text: s}}
}

// TestSamplingWithTools: the model's tool_use reaches the handler; on
// 2026-07-28 the Sample is one round.
func TestSamplingWithTools(t *testing.T) {
	s := newSamplingServer(t)
	for _, version := range []string{runtime.Version20251125, runtime.Version20260728} {
		for _, transport := range s.Transports() {
			t.Run(version+"/"+transport, func(t *testing.T) {
				c := s.Connect(t, elicittest.Conn{Protocol: version, Transport: transport})
				res := c.Call(t, "weather", nil,
					elicittest.Sampled(runtime.SampleResult{Model: "m1", StopReason: "toolUse", Content: []runtime.SamplingContent{
						{Type: "tool_use", ID: "t1", Name: "forecast", Input: json.RawMessage(`{"city":"Paris"}`)}}}))
				res.WantText(t, `toolUse forecast({"city":"Paris"}) t1`)
				res.WantAsked(t, "sampling/createMessage")
				if asked := res.Asked(); len(asked) == 1 && !strings.Contains(string(asked[0].Params), `"tools":[{"name":"forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}],"toolChoice":{"mode":"required"}`) {
					t.Errorf("the request: %s", asked[0].Params)
				}
				if version == runtime.Version20260728 && res.Rounds != 1 {
					t.Errorf("%d rounds", res.Rounds)
				}
			})
		}
	}
	t.Run("2025-06-18 has no tools in sampling", func(t *testing.T) {
		c := s.Connect(t, elicittest.Conn{Protocol: runtime.Version20250618})
		c.Call(t, "weather", nil).WantError(t, "protocol 2025-06-18 has no tools in sampling")
	})
	t.Run("no sampling", func(t *testing.T) {
		// A client that declared no sampling: -32021 on 2026-07-28.
		c := s.Connect(t, elicittest.Conn{Protocol: runtime.Version20260728, NoSampling: true})
		c.Call(t, "weather", nil).WantRPCError(t, runtime.CodeMissingCapability)
	})
}

// TestRootsAndTogether: roots on every protocol and transport, and a name,
// the model and the roots asked together (one round on 2026-07-28).
func TestRootsAndTogether(t *testing.T) {
	newSamplingServer(t).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "roots", nil, elicittest.Roots(runtime.Root{URI: "file:///a"}, runtime.Root{URI: "file:///b", Name: "b"})).
			WantText(t, "file:///a,file:///b")
		res := c.Call(t, "all", nil, elicittest.Accept(testform.NameForm{Name: "Ada"}),
			elicittest.Sampled(runtime.SampleResult{Model: "m", Content: text("hi Ada")}),
			elicittest.Roots(runtime.Root{URI: "file:///src"}))
		res.WantText(t, "Ada|hi Ada|m|file:///src")
		res.WantAsked(t, "Who?", "sampling/createMessage", "roots/list")
	})
}

// TestSamplingRefusedAndMissing: a refusal and a client without the
// capability, as each protocol reports them.
func TestSamplingRefusedAndMissing(t *testing.T) {
	s := newSamplingServer(t)
	for _, version := range elicittest.Protocols() {
		t.Run(version, func(t *testing.T) {
			c := s.Connect(t, elicittest.Conn{Protocol: version})
			res := c.Call(t, "roots", nil, elicittest.ReplyError(-1, "the user refused"))
			if version == runtime.Version20260728 {
				// No error answers an input request: the client gives up.
				if res.Err == nil || !strings.Contains(res.Err.Error(), "gave up") {
					t.Errorf("err %v", res.Err)
				}
			} else {
				res.WantError(t, "the client answered with an error: -1 the user refused")
			}
			bare := s.Connect(t, elicittest.Conn{Protocol: version, NoRoots: true})
			res = bare.Call(t, "roots", nil)
			if version == runtime.Version20260728 {
				res.WantRPCError(t, runtime.CodeMissingCapability)
				var rpcErr *runtime.RPCError
				if errors.As(res.Err, &rpcErr) && string(rpcErr.Data) != `{"requiredCapabilities":{"roots":{}}}` {
					t.Errorf("data %s", rpcErr.Data)
				}
			} else {
				res.WantError(t, "the client did not declare roots")
			}
		})
	}
}

// TestSamplingScriptChecked: an answer of the wrong kind, or a Sampled
// without its model, fails the Call.
func TestSamplingScriptChecked(t *testing.T) {
	s := newSamplingServer(t)
	r := &recorder{TB: t}
	c := s.Connect(t, elicittest.Conn{Protocol: runtime.Version20251125})
	c.Call(r, "roots", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantError(r, "-32603 elicittest: refused by elicittest")
	r.want(t, `elicitation 1 \(roots/list \{\}\) is answered with Accept\(testform.NameForm\{"name":"Ada"\}\), which answers an elicitation: check the order of the answers; it was refused`)
	c.Call(r, "all", nil, elicittest.Roots(), elicittest.Roots(), elicittest.Roots()).WantError(r, "")
	r.want(t, `elicitation 1 \(form "Who\?"\) is answered with Roots\(\{"roots":\[\]\}\), which answers a roots/list: check the order of the answers; it was canceled`,
		`2 scripted answer\(s\) never asked for`)
	c.Call(r, "roots", nil, elicittest.Sampled(runtime.SampleResult{Content: text("x")}))
	r.want(t, `answer 1: Sampled: no Model`)
}
