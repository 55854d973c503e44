package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

func TestElicitOutcome(t *testing.T) {
	cases := []struct {
		raw     string
		content string
		err     error
	}{
		{`{"action":"accept","content":{"a":1}}`, `{"a":1}`, nil},
		{`{"action":"accept"}`, ``, nil},
		{`{"action":"accept","content":null}`, `null`, nil},
		{`{"action":"accept","content":[1]}`, ``, runtime.ErrElicitMalformed},
		{`{"action":"accept","content":"x"}`, ``, runtime.ErrElicitMalformed},
		{`{"action":"decline"}`, ``, runtime.ErrElicitDeclined},
		{`{"action":"cancel","content":{"a":1}}`, ``, runtime.ErrElicitCanceled},
		{`{"action":"maybe"}`, ``, runtime.ErrElicitMalformed},
		{`{}`, ``, runtime.ErrElicitMalformed},
		{`[]`, ``, runtime.ErrElicitMalformed},
		{``, ``, runtime.ErrElicitMalformed},
	}
	for _, tc := range cases {
		content, err := runtime.ElicitOutcome([]byte(tc.raw))
		if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) || string(content) != tc.content {
			t.Errorf("ElicitOutcome(%s) = %s, %v; want %s, %v", tc.raw, content, err, tc.content, tc.err)
		}
	}
}

func TestMissingCapabilityError(t *testing.T) {
	err := error(&runtime.MissingCapabilityError{Mode: "url"})
	if !errors.Is(err, runtime.ErrElicitUnsupported) || err.Error() != runtime.ErrElicitUnsupported.Error()+": the client did not declare url elicitation" {
		t.Errorf("error %q", err)
	}
	rpc := (&runtime.MissingCapabilityError{Mode: "form"}).RPCError()
	if rpc.Code != runtime.CodeMissingCapability || rpc.Message != "missing required client capability: elicitation (form)" ||
		string(rpc.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("RPCError %+v (data %s)", rpc, rpc.Data)
	}
}

func TestFormSchema(t *testing.T) {
	d := &formimpl.Descriptor{Name: "F", Key: "f", Variants: []formimpl.Variant{
		{Version: "2025-06-18", Unsupported: "multi-select needs protocol 2025-11-25"},
		{Version: "2025-11-25", Schema: []byte(`{"type":"object"}`)},
	}}
	if s, err := runtime.FormSchema(d, "2025-11-25"); err != nil || string(s) != `{"type":"object"}` {
		t.Errorf("2025-11-25: %s, %v", s, err)
	}
	if _, err := runtime.FormSchema(d, "2025-06-18"); !errors.Is(err, runtime.ErrElicitUnsupported) || !strings.Contains(err.Error(), "multi-select") {
		t.Errorf("2025-06-18: %v", err)
	}
	if _, err := runtime.FormSchema(d, "2026-07-28"); !errors.Is(err, runtime.ErrElicitUnsupported) || !strings.Contains(err.Error(), "form F has no schema for protocol 2026-07-28") {
		t.Errorf("2026-07-28: %v", err)
	}
}

func TestDecodeAnswer(t *testing.T) {
	f, err := runtime.DecodeAnswer[testform.NameForm]([]byte(`{"action":"accept","content":{"name":"ada"}}`))
	if err != nil || f.Name != "ada" {
		t.Errorf("accept: %+v, %v", f, err)
	}
	// No content decodes as {}, so the form reports what is missing.
	for _, raw := range []string{`{"action":"accept"}`, `{"action":"accept","content":null}`} {
		var ce *runtime.ContentError
		if f, err := runtime.DecodeAnswer[testform.NameForm]([]byte(raw)); !errors.As(err, &ce) || !errors.Is(err, runtime.ErrElicitInvalidContent) ||
			len(ce.Problems) != 1 || ce.Problems[0].Property != "name" || f != (testform.NameForm{}) {
			t.Errorf("%s: %+v, %v", raw, f, err)
		}
	}
	// A failing value never comes back half decoded.
	if f, err := runtime.DecodeAnswer[testform.NameForm]([]byte(`{"action":"accept","content":{"name":"ada","extra":1}}`)); err == nil || f != (testform.NameForm{}) {
		t.Errorf("unknown property: %+v, %v", f, err)
	}
	if _, err := runtime.DecodeAnswer[testform.NameForm]([]byte(`{"action":"decline"}`)); !errors.Is(err, runtime.ErrElicitDeclined) {
		t.Errorf("decline: %v", err)
	}
	if _, err := runtime.DecodeAnswer[testform.NameForm]([]byte(`{"action":"accept","content":[]}`)); !errors.Is(err, runtime.ErrElicitMalformed) {
		t.Errorf("array content: %v", err)
	}
}
