package gen

import (
	"encoding/json"
	"fmt"
	"go/token"
	"runtime"
	"slices"
	"strings"

	"github.com/go-elicit/elicit/internal/subset"
)

// checkForms runs the project's one subset checker on every form's schema. What
// the newest protocol version rejects is a diagnostic at the field; what
// only an older version lacks is downgraded when the checker knows an
// equivalent; an optional property with none is left out of that version's
// schema (and listed as dropped); a required one marks the version's
// variant unsupported.
// It fills form.Variants.
func checkForms(forms []*formModel) []Diagnostic {
	// Forms are independent: each fills only its own Variants.
	per := make([][]Diagnostic, len(forms))
	parallel(len(forms), runtime.GOMAXPROCS(0), func(i int) { per[i] = checkForm(forms[i]) })
	var diags []Diagnostic
	for _, ds := range per {
		diags = append(diags, ds...)
	}
	return diags
}

func checkForm(form *formModel) []Diagnostic {
	if len(form.Fields) == 0 {
		return nil // build reported it, naming the form
	}
	m, err := schemaMap(form)
	if err != nil {
		return []Diagnostic{{form.Pos, fmt.Sprintf("form %s: %v", form.Name, err)}}
	}
	withChoicePlaceholders(form, m)
	var diags []Diagnostic
	versions := subset.FormVersions
	newest := versions[len(versions)-1]
	for _, v := range subset.Check(m, newest) {
		diags = append(diags, Diagnostic{form.posOf(v.Property), violationMessage(form, v)})
	}
	if len(diags) > 0 {
		return diags
	}
	order := form.propertyOrder()
	form.Variants = form.Variants[:0]
	for _, ver := range versions {
		down, dropped, vs := subset.DowngradeDropping(m, ver)
		if len(vs) > 0 {
			form.Variants = append(form.Variants, schemaVariant{Version: ver, Unsupported: unsupported(vs)})
			continue
		}
		stripChoices(form, down)
		b, err := marshalSchema(down, order)
		if err != nil {
			return []Diagnostic{{form.Pos, fmt.Sprintf("form %s: marshalling the %s schema: %v", form.Name, ver, err)}}
		}
		form.Variants = append(form.Variants, schemaVariant{Version: ver, Schema: b, Dropped: dropped})
	}
	return nil
}

// schemaMap is the model's schema as decoded JSON, the checker's input.
func schemaMap(form *formModel) (map[string]any, error) {
	raw, err := json.Marshal(form.Schema)
	if err != nil {
		return nil, fmt.Errorf("marshalling the schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("decoding the schema: %w", err)
	}
	return m, nil
}

func violationMessage(form *formModel, v subset.Violation) string {
	msg := v.Message
	if v.Property != "" {
		if f := form.field(v.Property); f != nil {
			msg = "field " + f.GoName + ": " + msg
		}
	}
	return msg
}

// unsupported says why a version cannot carry the form.
func unsupported(vs []subset.Violation) string {
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		var p string
		switch {
		case v.Feature != "" && v.Property != "":
			p = fmt.Sprintf("%s (property %q)", v.Feature, v.Property)
		case v.Feature != "":
			p = v.Feature
		case v.Property != "":
			p = fmt.Sprintf("property %q: %s", v.Property, v.Message)
		default:
			p = v.Message
		}
		if v.Since != "" {
			p += " needs protocol " + v.Since
		}
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "; ")
}

func (form *formModel) field(property string) *fieldModel {
	for _, f := range form.Fields {
		if f.Name == property {
			return f
		}
	}
	return nil
}

// posOf maps a violation's property back to its field.
func (form *formModel) posOf(property string) token.Pos {
	if f := form.field(property); f != nil {
		return f.Pos
	}
	return form.Pos
}

func (form *formModel) propertyOrder() []string {
	order := make([]string, len(form.Fields))
	for i, f := range form.Fields {
		order[i] = f.Name
	}
	return order
}
