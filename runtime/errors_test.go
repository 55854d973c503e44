package runtime

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestContentErrorOnEveryPath checks that bad content gives a
// *ContentError of this package, matching ErrElicitInvalidContent, on
// every path that decodes: a generated decoder (by hand, through
// DecodeAnswer, as a typed tool's arguments), the shared validator, and
// encoding/json for plain argument structs.
func TestContentErrorOnEveryPath(t *testing.T) {
	type plainArgs struct {
		Email string `json:"email" validate:"email"`
		Count int    `json:"count"`
	}
	for _, tc := range []struct {
		name     string
		decode   func() error
		property string
		message  string
	}{
		{"generated decoder called by hand", func() error {
			var f testform.NameForm
			return f.ElicitDecode([]byte(`{"name":""}`))
		}, "name", "must be at least 1 character"},
		{"DecodeAnswer", func() error {
			_, err := DecodeAnswer[testform.NameForm](json.RawMessage(`{"action":"accept","content":{"name":7}}`))
			return err
		}, "name", "must be a string"},
		{"form as tool arguments", func() error {
			var in testform.NameForm
			return newArgsDecoder[testform.NameForm](&Tool{Name: "t"})(json.RawMessage(`{}`), &in)
		}, "name", "is required"},
		{"struct arguments, validate tag", func() error {
			var in plainArgs
			return newArgsDecoder[plainArgs](&Tool{Name: "t"})(json.RawMessage(`{"email":"nope","count":1}`), &in)
		}, "email", "must be an email address"},
		{"struct arguments, wrong type", func() error {
			var in plainArgs
			return newArgsDecoder[plainArgs](&Tool{Name: "t"})(json.RawMessage(`{"email":"a@b.c","count":"x"}`), &in)
		}, "count", "must be an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode()
			if !errors.Is(err, ErrElicitInvalidContent) {
				t.Fatalf("err %v does not match ErrElicitInvalidContent", err)
			}
			var ce *ContentError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v (%T) is not a *runtime.ContentError", err, err)
			}
			if len(ce.Problems) != 1 || ce.Problems[0] != (Problem{Property: tc.property, Message: tc.message}) {
				t.Errorf("problems %+v, want one: %q %s", ce.Problems, tc.property, tc.message)
			}
			if want := `elicit: invalid content: "` + tc.property + `" ` + tc.message; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// TestSchemaErrorViolations checks that a SchemaError carries the subset
// checker's violations as runtime's own Violation values.
func TestSchemaErrorViolations(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "object"}}}
	err := error(newSchemaError(Version20251125, subset.Check(schema, subset.V2026_07_28)))
	var se *SchemaError
	if !errors.Is(err, ErrElicitSchemaInvalid) || !errors.As(err, &se) || len(se.Violations) == 0 {
		t.Fatalf("err %v: want a *SchemaError with violations, matching ErrElicitSchemaInvalid", err)
	}
	v := se.Violations[0]
	if v.Path == "" || v.Property != "p" || v.Message == "" {
		t.Errorf("violation %+v: want its path, property p and a message", v)
	}
	if want := "elicit: schema is not a valid elicitation schema for protocol 2025-11-25: " + v.Path + ": " + v.Message; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Error() = %q, want it to start %q", err.Error(), want)
	}
}

// TestFormSchemaNamesThePackage checks that errors about a form generated
// for contract 3 name its package (Descriptor.Package), and those about one
// from contract 2, which has none, its bare name.
func TestFormSchemaNamesThePackage(t *testing.T) {
	d := (*testform.FamiliesForm)(nil).ElicitForm()
	if d.Package != "testform" {
		t.Fatalf("Descriptor.Package = %q, want testform", d.Package)
	}
	_, err := FormSchema(d, Version20250618)
	if !errors.Is(err, ErrElicitUnsupported) || !strings.Contains(err.Error(), "form testform.FamiliesForm: multi-select") {
		t.Errorf("err %v: want ErrElicitUnsupported naming testform.FamiliesForm", err)
	}
	old := *d
	old.Package = ""
	if _, err := FormSchema(&old, "1999-01-01"); err == nil || !strings.Contains(err.Error(), "form FamiliesForm has no schema for protocol 1999-01-01") {
		t.Errorf("err %v: want the bare name", err)
	}
}
