package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

type deployArgs struct {
	Service  string `json:"service"`
	Replicas int    `json:"replicas,omitempty" validate:"omitempty,min=1,max=10"`
	Note     string `json:"note,omitempty"`
}

// TestTypedToolArguments: AddTool[In] decodes arguments as strictly as the
// inputSchema it advertises, and names every failing property.
func TestTypedToolArguments(t *testing.T) {
	f := newFixture(t, Options{})
	AddTool(f.srv, Tool{Name: "deploy"}, func(ctx context.Context, req *CallToolRequest, in deployArgs) (*CallToolResult, error) {
		return TextResult(in.Service + "×" + string(rune('0'+in.Replicas))), nil
	})
	AddTool(f.srv, Tool{Name: "greet"}, func(ctx context.Context, req *CallToolRequest, in testform.NameForm) (*CallToolResult, error) {
		return TextResult("hello " + in.Name), nil
	})
	AddTool(f.srv, Tool{Name: "deploy-ptr"}, func(ctx context.Context, req *CallToolRequest, in *deployArgs) (*CallToolResult, error) {
		return TextResult("ptr " + in.Service), nil
	})
	AddTool(f.srv, Tool{Name: "own", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest, in deployArgs) (*CallToolResult, error) {
		return TextResult("own " + in.Service), nil
	})
	c := f.connect("2025-06-18", `{}`)

	// The schemas tools/list shows.
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(c.expect(c.post(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`), 200)), &list); err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	for _, tl := range list.Result.Tools {
		schemas[tl.Name] = tl.InputSchema
	}
	if s := schemas["deploy"]; s["additionalProperties"] != false || len(s["required"].([]any)) != 1 || s["required"].([]any)[0] != "service" {
		t.Errorf("deploy schema %v", s)
	}
	if s := schemas["greet"]; s["properties"].(map[string]any)["name"].(map[string]any)["maxLength"] != 40.0 {
		t.Errorf("greet schema is not the form's: %v", s)
	}

	for _, tc := range []struct {
		tool, args string
		want       string
		isError    bool
	}{
		{"deploy", `{"service":"api","replicas":3}`, "api×3", false},
		{"deploy", `{"service":"api"}`, "api×0", false},
		{"deploy", `{}`, `invalid arguments for tool "deploy": "service" is required`, true},
		{"deploy", `{"service":1}`, `"service" must be a string`, true},
		{"deploy", `{"service":"api","zzz":1}`, `"zzz" is not an argument of this tool`, true},
		{"deploy", `{"service":"api","replicas":50}`, `"replicas" must be at most 10`, true},
		{"deploy", `{"service":"api","replicas":1.5}`, `"replicas" must be an integer`, true},
		{"deploy", `[1]`, `arguments must be an object`, true},
		{"greet", `{"name":"ada"}`, "hello ada", false},
		{"greet", `{}`, `invalid arguments for tool "greet": "name" is required`, true},
		{"greet", `{"name":""}`, `"name" must be at least 1 character`, true},
		{"greet", `{"name":"ada","age":3}`, `"age"`, true},
		{"own", `{"service":"api","zzz":1}`, "own api", false}, // its own schema: lenient
		{"deploy", `{"service":null}`, `"service" is required`, true},
		{"deploy", `{"service":"api","NOTE":"x"}`, `"NOTE" is not an argument of this tool`, true},
		{"deploy", `{"Service":"api"}`, `"Service" is not an argument of this tool; "service" is required`, true},
		{"deploy-ptr", `{"service":"api","replicas":2}`, "ptr api", false},
		{"deploy-ptr", `{"service":"api","replicas":50}`, `"replicas" must be at most 10`, true},
	} {
		resp, _ := c.callTool(tc.tool, tc.args)
		text, isErr := resultText(t, c.expect(resp, 200))
		if isErr != tc.isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %s: %q (isError %v), want %q (isError %v)", tc.tool, tc.args, text, isErr, tc.want, tc.isError)
		}
	}
}

// TestOwnInputSchemaEnforced: a tool's own inputSchema is what its
// arguments are checked against, every failing property named; one that
// cannot be resolved panics at registration, naming the tool.
func TestOwnInputSchemaEnforced(t *testing.T) {
	tool := Tool{Name: "own", InputSchema: json.RawMessage(`{"type":"object","properties":{"service":{"type":"string","minLength":3},"replicas":{"type":"integer","maximum":5}},"required":["service"]}`)}
	decode := newArgsDecoder[deployArgs](&tool)
	var in deployArgs
	err := decode(json.RawMessage(`{"service":"ab","replicas":9}`), &in)
	if err == nil || err.Error() != `elicit: invalid content: "replicas" must be at most 5; "service" must be at least 3 characters` {
		t.Errorf("got %v", err)
	}
	if err := decode(json.RawMessage(`{"service":"abc","replicas":5}`), &in); err != nil || in.Service != "abc" || in.Replicas != 5 {
		t.Errorf("got %v, %+v", err, in)
	}
	// What the schema says of the object as a whole is checked too.
	whole := newArgsDecoder[deployArgs](&Tool{Name: "whole", InputSchema: json.RawMessage(`{"type":"object","minProperties":1,"properties":{"service":{"type":"string"}}}`)})
	if err := whole(json.RawMessage(`{}`), &in); err == nil || !strings.Contains(err.Error(), "minProperties") {
		t.Errorf("minProperties: %v", err)
	}
	for _, bad := range []string{`{"properties":{"a":{"$ref":"#/$defs/nope"}}}`, `{"type":`, `{"properties":{"a":{"pattern":"("}}}`} {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), `AddTool "bad"`) {
					t.Errorf("%s: panic %v", bad, v)
				}
			}()
			newArgsDecoder[deployArgs](&Tool{Name: "bad", InputSchema: json.RawMessage(bad)})
		}()
	}
}
