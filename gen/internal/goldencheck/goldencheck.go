// Package goldencheck holds the assertions that elicitgen's golden cases
// run inside their own compiled packages: decoding outcomes and the oracle
// comparison with invopop's Reflector.
package goldencheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/go-elicit/elicit/gen/internal/oracle"
	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// Addition is oracle.Addition, spelled out in generated test tables.
type Addition = oracle.Addition

// Reasons are the only differences from invopop the generator may make,
// each documented with its constant in gen/internal/oracle and in
// cmd/elicitgen's manual.
var Reasons = oracle.Reasons

// Outcome renders a decode result: "ok <value as JSON>" or "err <message>".
// An error that is not a *runtime.ContentError is marked, since the
// contract says bad content always gives one.
func Outcome(err error, v any) string {
	if err != nil {
		var ce *runtime.ContentError
		if !errors.As(err, &ce) || !errors.Is(err, runtime.ErrElicitInvalidContent) {
			return "err NOT A CONTENT ERROR: " + err.Error()
		}
		return "err " + err.Error()
	}
	b, jerr := json.Marshal(v)
	if jerr != nil {
		return "ok (unmarshalable: " + jerr.Error() + ")"
	}
	return "ok " + string(b)
}

// Oracle checks a generated form: every form protocol version has a
// variant; every variant's schema passes the subset checker for its own
// version (a client never gets a keyword its version lacks); and the
// newest schema equals what invopop's Reflector makes of the same struct,
// except for the listed additions, each of which must be a real
// difference with one of the named Reasons.
func Oracle(t *testing.T, form formimpl.Form, additions []Addition) {
	t.Helper()
	d := form.ElicitForm()
	name := d.Name
	for _, ver := range subset.FormVersions {
		v, ok := d.Lookup(ver)
		if !ok {
			t.Errorf("%s: no variant for %s", name, ver)
			continue
		}
		if v.Schema == nil {
			if v.Unsupported == "" {
				t.Errorf("%s: variant %s has neither a schema nor a reason", name, ver)
			}
			continue
		}
		if vs := subset.Check(withChoices(t, v.Schema, d.Choices), ver); len(vs) > 0 {
			t.Errorf("%s: the %s schema breaks its own version: %v", name, ver, vs)
		}
	}
	newest := d.Variants[len(d.Variants)-1]
	if newest.Schema == nil {
		t.Fatalf("%s: no schema for the newest version", name)
	}
	var ours map[string]any
	if err := json.Unmarshal(newest.Schema, &ours); err != nil {
		t.Fatal(err)
	}
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	ref := r.Reflect(form)
	ref.Version = "" // elicitgen leaves $schema out; it is optional and 2025-06-18 lacks it
	raw, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	var theirs map[string]any
	if err := json.Unmarshal(raw, &theirs); err != nil {
		t.Fatal(err)
	}
	allowed := map[[2]string]bool{}
	for _, a := range additions {
		if !slices.Contains(Reasons, a.Reason) {
			t.Errorf("%s: addition %s/%s has an unnamed reason %q", name, a.Property, a.Keyword, a.Reason)
		}
		allowed[[2]string{a.Property, a.Keyword}] = true
	}
	used := map[[2]string]bool{}
	differ := func(prop, key string) {
		k := [2]string{prop, key}
		if !allowed[k] {
			t.Errorf("%s: property %q keyword %q differs from invopop without a named addition", name, prop, key)
		}
		used[k] = true
	}
	ourProps, _ := ours["properties"].(map[string]any)
	theirProps, _ := theirs["properties"].(map[string]any)
	for _, m := range []map[string]any{ours, theirs} {
		delete(m, "properties")
	}
	ourReq, theirReq := stringSet(ours["required"]), stringSet(theirs["required"])
	delete(ours, "required")
	delete(theirs, "required")
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("%s: root differs from invopop:\n ours:   %v\n theirs: %v", name, ours, theirs)
	}
	if !reflect.DeepEqual(keys(ourProps), keys(theirProps)) {
		t.Errorf("%s: properties differ from invopop: ours %v, theirs %v", name, keys(ourProps), keys(theirProps))
	}
	for prop, o := range ourProps {
		op, _ := o.(map[string]any)
		tp, _ := theirProps[prop].(map[string]any)
		for _, key := range keys(op, tp) {
			if !reflect.DeepEqual(op[key], tp[key]) {
				differ(prop, key)
			}
		}
		if ourReq[prop] != theirReq[prop] {
			differ(prop, "required")
		}
	}
	for k := range allowed {
		if !used[k] {
			t.Errorf("%s: addition %s/%s changes nothing", name, k[0], k[1])
		}
	}
	if t.Failed() {
		t.Logf("%s: ours %s\ninvopop %s", name, newest.Schema, raw)
	}
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	list, _ := v.([]any)
	for _, x := range list {
		out[fmt.Sprint(x)] = true
	}
	return out
}

func keys(ms ...map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// withChoices decodes schema and gives each run-time choices property one
// option, as a call's runtime.WithChoices would: the generated variant
// carries them without options.
func withChoices(t *testing.T, schema []byte, choices []string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		t.Fatal(err)
	}
	props, _ := m["properties"].(map[string]any)
	for _, name := range choices {
		p, _ := props[name].(map[string]any)
		switch {
		case p == nil:
			t.Errorf("Descriptor.Choices names %q, which the schema lacks", name)
		case p["type"] == "array":
			p["items"] = map[string]any{"type": "string", "enum": []any{"x"}}
		default:
			p["enum"] = []any{"x"}
		}
	}
	return m
}
