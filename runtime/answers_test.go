package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// placeServer is a runtime server with the tools of the answers scenario.
func placeServer() *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "answers", Version: "1"})
	tool := func(opts ...runtime.ElicitOption) func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		return func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
			f, err := runtime.Elicit[testform.PlaceForm](ctx, adaptertest.PlaceMessage, opts...)
			text, isError, ok := adaptertest.PlaceOutcome(f, err)
			switch {
			case !ok:
				return nil, err
			case isError:
				return runtime.ErrorResult("%s", text), nil
			}
			return runtime.TextResult(text), nil
		}
	}
	runtime.AddTool(srv, runtime.Tool{Name: "place"}, tool())
	runtime.AddTool(srv, runtime.Tool{Name: "place-reask"}, tool(runtime.WithReask(1)))
	return srv
}

// TestAnswers: what real form UIs send (empty optional properties) and
// re-asking, on every protocol and transport, with the runtime.
func TestAnswers(t *testing.T) {
	adaptertest.Answers(t, elicittest.NewServer(t, placeServer()))
}

// TestAnswersSchema: ElicitSchema leaves out an optional property sent
// empty and re-asks like Elicit[T], on every protocol and transport.
func TestAnswersSchema(t *testing.T) {
	srv := runtime.NewServer(runtime.Options{Name: "answers", Version: "1"})
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":    map[string]any{"type": "string", "minLength": 2},
			"contact": map[string]any{"type": "string", "format": "email"},
			"age":     map[string]any{"type": "integer", "minimum": 0},
		},
		"required": []any{"name"},
	}
	runtime.AddTool(srv, runtime.Tool{Name: "who"}, func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		m, err := runtime.ElicitSchema(ctx, "Who?", schema, runtime.WithReask(1))
		switch {
		case errors.Is(err, runtime.ErrInputRequired):
			return nil, err
		case err != nil:
			return runtime.ErrorResult("%v", err), nil
		}
		return runtime.TextResult(fmt.Sprintf("%v", m)), nil
	})
	elicittest.NewServer(t, srv).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "who", nil, elicittest.AcceptRaw(`{"name":"ann","contact":"","age":null}`)).WantText(t, "map[name:ann]")
		var second elicittest.Elicitation
		c.Call(t, "who", nil,
			elicittest.AcceptRaw(`{"name":"a","age":30}`),
			elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
				second = e
				return elicittest.AcceptRaw(`{"name":"ann","age":30}`)
			})).WantText(t, "map[age:30 name:ann]")
		if !strings.HasPrefix(second.Message, `Who? — "name" `) || !strings.HasSuffix(second.Message, "; please correct it") {
			t.Errorf("re-ask message %q", second.Message)
		}
		want := map[string]any{}
		if c.Protocol() >= runtime.Version20251125 {
			want["age"] = 30.0
		}
		if got := adaptertest.Defaults(t, second.Schema); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("re-ask defaults %v, want %v", got, want)
		}
		c.Call(t, "who", nil, elicittest.AcceptRaw(`{"name":"a"}`), elicittest.AcceptRaw(`{"name":"b"}`)).
			WantError(t, `elicit: invalid content: "name"`)
	})
}
