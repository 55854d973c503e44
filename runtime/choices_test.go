package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/formimpl"
	"github.com/go-elicit/elicit/runtime/internal/adaptertest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// regions are the run-time choices the tests offer, titled.
var regions = adaptertest.Regions

// choicesServer has a tool per use of WithChoices and WithDefaults.
func choicesServer(runs *atomic.Int32) *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "choices", Version: "1"})
	result := func(err error) (*runtime.CallToolResult, error) {
		if errors.Is(err, runtime.ErrInputRequired) {
			return nil, err
		}
		return runtime.ErrorResult("%v", err), nil
	}
	runtime.AddTool(srv, runtime.Tool{Name: "region"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		text, err := adaptertest.RegionTool(ctx, runtime.Elicit[testform.RegionForm])
		if err != nil {
			return result(err)
		}
		return runtime.TextResult(text), nil
	})
	runtime.AddTool(srv, runtime.Tool{Name: "pick"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		f, err := runtime.Elicit[testform.PickForm](ctx, "Which?", runtime.WithChoices(testform.PickForm_Files, runtime.Choice{Value: "a.go"}, runtime.Choice{Value: "b.go"}))
		if err != nil {
			return result(err)
		}
		return runtime.TextResult(strings.Join(f.Files, " ")), nil
	})
	// moving offers one more file on its second run than on its first.
	runtime.AddTool(srv, runtime.Tool{Name: "moving"}, func(ctx context.Context, _ *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		files := []runtime.Choice{{Value: "a.go"}, {Value: "b.go"}}
		if runs.Add(1) == 1 {
			files = files[:1]
		}
		f, err := runtime.Elicit[testform.PickForm](ctx, "Which?", runtime.WithChoices(testform.PickForm_Files, files...))
		if err != nil {
			return result(err)
		}
		return runtime.TextResult(strings.Join(f.Files, " ")), nil
	})
	return srv
}

// TestChoicesAndDefaultsOnTheWire: each version gets the call's choices
// and defaults in its own shape (enumNames and only boolean defaults on
// 2025-06-18; oneOf and every default later), the defaults fill what the
// answer leaves out, and an answer outside the choices is refused.
func TestChoicesAndDefaultsOnTheWire(t *testing.T) {
	adaptertest.RegionCalls(t, choicesServer(new(atomic.Int32)))
	elicittest.NewServer(t, choicesServer(new(atomic.Int32))).Each(t, func(t *testing.T, c *elicittest.Client) {
		c.Call(t, "region", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
			if !e.Asks(testform.RegionForm{}) {
				t.Error("Asks(RegionForm) is false for the form with its call's choices and defaults")
			}
			return elicittest.AcceptRaw(`{"region":7}`)
		})).WantError(t, `elicit: invalid content: "region" must be a string`)
	})
}

// TestChoicesMultiSelect: a run-time multi-select needs 2025-11-25, like
// any; from there, its items are the call's choices.
func TestChoicesMultiSelect(t *testing.T) {
	elicittest.NewServer(t, choicesServer(new(atomic.Int32))).Each(t, func(t *testing.T, c *elicittest.Client) {
		if c.Protocol() == runtime.Version20250618 {
			c.Call(t, "pick", nil).WantError(t, `multi-select (property "files") needs protocol 2025-11-25`)
			return
		}
		res := c.Call(t, "pick", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
			const want = `{"type":"object","properties":{"files":{"description":"The files to pick.","items":{"enum":["a.go","b.go"],"type":"string"},"type":"array"}},"required":["files"]}`
			if string(e.Schema) != want {
				t.Errorf("schema\n%s\nwant\n%s", e.Schema, want)
			}
			return elicittest.Accept(testform.PickForm{Files: []string{"b.go", "a.go"}})
		}))
		res.WantText(t, "b.go a.go")
		c.Call(t, "pick", nil, elicittest.AcceptRaw(`{"files":["a.go","c.go"]}`)).WantError(t, `"files" item 1 ("c.go") must be one of "a.go", "b.go"`)
		c.Call(t, "pick", nil, elicittest.AcceptRaw(`{"files":["a.go","a.go"]}`)).WantError(t, `"files" item 1 repeats "a.go"`)
	})
}

// TestChoicesChangedBetweenRuns: on 2026-07-28 the handler runs again with
// the answer and must offer the same choices; when they changed (a file
// appeared), the answer is to another question, and the client is asked
// again with the new ones. Other versions ask once.
func TestChoicesChangedBetweenRuns(t *testing.T) {
	for _, v := range elicittest.Protocols()[1:] {
		runs := new(atomic.Int32)
		c := elicittest.NewServer(t, choicesServer(runs)).Connect(t, elicittest.Conn{Protocol: v})
		answers := []elicittest.Answer{elicittest.Accept(testform.PickForm{Files: []string{"a.go"}})}
		if v != runtime.Version20260728 {
			c.Call(t, "moving", nil, answers...).WantText(t, "a.go")
			continue
		}
		res := c.Call(t, "moving", nil, append(answers, elicittest.Accept(testform.PickForm{Files: []string{"b.go"}}))...)
		res.WantText(t, "b.go")
		if asked := res.Asked(); len(asked) != 2 || strings.Contains(string(asked[0].Schema), `"b.go"`) || !strings.Contains(string(asked[1].Schema), `"b.go"`) {
			t.Errorf("%s: asked %v, want twice, the second time with b.go", v, asked)
		}
	}
}

// TestPrepareElicitErrors: bad options are errors matching
// ErrElicitSchemaInvalid, before anything is sent, with what to do.
func TestPrepareElicitErrors(t *testing.T) {
	v := runtime.Version20251125
	ok := runtime.WithChoices(testform.RegionForm_Region, regions...)
	region := (&testform.RegionForm{}).ElicitForm()
	for _, tc := range []struct {
		name string
		opts []runtime.ElicitOption
		want string
	}{
		{"no choices", nil, `run-time choices field "region" has no choices: pass runtime.WithChoices(RegionForm_<Field>, ...) to this call`},
		{"empty", []runtime.ElicitOption{runtime.WithChoices(testform.RegionForm_Region)}, `region`},
		{"repeated", []runtime.ElicitOption{runtime.WithChoices(testform.RegionForm_Region, runtime.Choice{Value: "a"}, runtime.Choice{Value: "a"})}, `"a"`},
		{"empty value", []runtime.ElicitOption{runtime.WithChoices(testform.RegionForm_Region, runtime.Choice{Value: ""})}, `region`},
		{"field of another form", []runtime.ElicitOption{ok, runtime.WithChoices(testform.PickForm_Files, regions...)}, `WithChoices: "files" is a field of form testform.PickForm, this call asks form testform.RegionForm`},
		{"zero field", []runtime.ElicitOption{ok, runtime.WithChoices(runtime.ChoicesField{}, regions...)}, `WithChoices: the zero ChoicesField names no field: pass the one elicitgen declared (RegionForm_<Field>)`},
		{"unknown property", []runtime.ElicitOption{ok, runtime.WithChoices(formimpl.NewChoicesField(region, "nope"), regions...)}, `form testform.RegionForm has no property "nope" for WithChoices`},
		{"not a choices field", []runtime.ElicitOption{ok, runtime.WithChoices(formimpl.NewChoicesField(region, "note"), regions...)}, `property "note" of form testform.RegionForm is not a run-time choices field: tag its field elicit:"choices" and run go generate`},
		{"twice", []runtime.ElicitOption{ok, ok}, `WithChoices for "region" is given more than once`},
		{"defaults of another form", []runtime.ElicitOption{ok, runtime.WithDefaults(testform.NameForm{})}, `WithDefaults: got a testform.NameForm, the form is testform.RegionForm: pass a value of the form`},
		{"default outside the choices", []runtime.ElicitOption{ok, runtime.WithDefaults(testform.RegionForm{Region: "mars"})}, `mars`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.PrepareElicit[testform.RegionForm](v, tc.opts...)
			if !errors.Is(err, runtime.ErrElicitSchemaInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrElicitSchemaInvalid containing %q", err, tc.want)
			}
		})
	}
}

// TestPrepareElicitStatic: without choices or defaults a form's generated
// schema is sent as it is; with WithDefaults alone a static form gets the
// defaults its version can show, and only those fill the answer.
func TestPrepareElicitStatic(t *testing.T) {
	for _, v := range elicittest.Protocols() {
		d := (&testform.NameForm{}).ElicitForm()
		want, _ := runtime.FormSchema(d, v)
		fc, err := runtime.PrepareElicit[testform.NameForm](v)
		if err != nil || fc.Key != "name_form" || string(fc.Schema) != string(want) {
			t.Fatalf("%s: %q %s %v", v, fc.Key, fc.Schema, err)
		}
		fc, err = runtime.PrepareElicit[testform.NameForm](v, runtime.WithDefaults(testform.NameForm{Name: "Ada"}), runtime.WithKey("who"))
		if err != nil || fc.Key != "who" {
			t.Fatal(fc.Key, err)
		}
		schema, decode := fc.Schema, fc.Decode
		if got := strings.Contains(string(schema), `"default":"Ada"`); got != (v != runtime.Version20250618) {
			t.Errorf("%s: schema %s", v, schema)
		}
		f, err := decode([]byte(`{"action":"accept","content":{}}`))
		if v == runtime.Version20250618 {
			// The version cannot show a string default: the user was not
			// given "Ada", so it does not fill the answer.
			if !errors.Is(err, runtime.ErrElicitInvalidContent) || err.Error() != `elicit: invalid content: "name" is required` {
				t.Errorf("%s: decode {}: %+v, %v, want \"name\" is required", v, f, err)
			}
		} else if err != nil || f.Name != "Ada" {
			t.Errorf("%s: decode {}: %+v, %v", v, f, err)
		}
		f, err = decode([]byte(`{"action":"accept","content":{"name":"Bo"}}`))
		if err != nil || f.Name != "Bo" {
			t.Errorf("%s: decode: %+v, %v", v, f, err)
		}
		if _, err := decode([]byte(`{"action":"decline"}`)); !errors.Is(err, runtime.ErrElicitDeclined) {
			t.Errorf("%s: decline: %v", v, err)
		}
	}
}

// TestPrepareElicitConcurrent: calls with different choices at once each
// get their own schema and answer check (the runtime keeps the form built
// last per form and version; -race checks the sharing).
func TestPrepareElicitConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				file := fmt.Sprintf("f%d.go", (g+i)%3)
				fc, err := runtime.PrepareElicit[testform.PickForm](runtime.Version20251125, runtime.WithChoices(testform.PickForm_Files, runtime.Choice{Value: file}))
				if err != nil {
					t.Error(err)
					return
				}
				if !strings.Contains(string(fc.Schema), `"enum":["`+file+`"]`) {
					t.Errorf("asked %s with %s", file, fc.Schema)
					return
				}
				f, err := fc.Decode([]byte(`{"action":"accept","content":{"files":["` + file + `"]}}`))
				if err != nil || len(f.Files) != 1 || f.Files[0] != file {
					t.Errorf("decode %s: %+v, %v", file, f, err)
				}
				if _, err := fc.Decode([]byte(`{"action":"accept","content":{"files":["other.go"]}}`)); !errors.Is(err, runtime.ErrElicitInvalidContent) {
					t.Errorf("other.go against %s: %v", file, err)
				}
			}
		}()
	}
	wg.Wait()
}
