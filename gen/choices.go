package gen

import (
	"go/types"
	"strings"
)

// Run-time choices: a field tagged elicit:"choices" is a single choice (a
// string, or a string type without constants) or a multi-select (a slice
// of those) whose options the handler gives at the call
// (runtime.WithChoices). The generated schema carries the property without
// options; the runtime fills them in per call and checks the answer
// against them.

// choicesTagValue is the one value of the elicit struct tag.
const choicesTagValue = "choices"

// choicesTag reports whether the field is tagged elicit:"choices", and
// reports any other value of the elicit tag.
func (b *builder) choicesTag(f *fieldModel, tag string) bool {
	val, ok := reflectTagLookup(tag, "elicit")
	if !ok {
		return false
	}
	if val != choicesTagValue {
		b.errorf(f.Pos, "field %s: unknown elicit tag value %q: the only one is elicit:%q (options given at the call with runtime.WithChoices)", f.GoName, val, choicesTagValue)
		return false
	}
	return true
}

// choicesType classifies a run-time choices field: a string kind without
// enum constants is a single choice, a slice of one a multi-select.
func (b *builder) choicesType(f *fieldModel, v *types.Var) bool {
	f.Choices = true
	t := v.Type()
	multi := false
	if s, ok := t.Underlying().(*types.Slice); ok {
		multi, t = true, s.Elem()
	}
	if u, ok := t.Underlying().(*types.Basic); !ok || u.Info()&types.IsString == 0 {
		b.errorf(f.Pos, "field %s: elicit:%q needs a string or []string field (or a string type without constants), not %s", f.GoName, choicesTagValue, b.typeString(v.Type()))
		return false
	}
	if named, ok := t.(*types.Named); ok {
		if e := b.enumOf(named, f.Pos); e != nil {
			b.errorf(f.Pos, "field %s: elicit:%q on enum type %s: its constants already are the choices; remove the elicit tag, or use a string type without constants for choices given at the call", f.GoName, choicesTagValue, named.Obj().Name())
			return false
		}
	}
	f.Kind = kindString
	if multi {
		f.Kind, f.Enum = kindMultiSelect, &enumModel{}
	}
	return true
}

// checkChoices reports the tags a run-time choices field cannot have:
// static options, a static default, string constraints.
func (b *builder) checkChoices(f *fieldModel) {
	switch {
	case f.Kind == kindEnum || (f.Enum != nil && len(f.Enum.Members) > 0):
		b.errorf(f.Pos, "field %s: static choices (enum or oneof) on a field tagged elicit:%q: give them at the call with runtime.WithChoices, or remove the elicit tag", f.GoName, choicesTagValue)
	case f.Default != nil:
		b.errorf(f.Pos, "field %s: a static default on a field tagged elicit:%q: pass it at the call with runtime.WithDefaults, as it must be one of that call's choices", f.GoName, choicesTagValue)
		f.Default, f.Schema.Default = nil, nil // reported here, not again by the checker
	case f.MinLength != nil || f.MaxLength != nil || f.Format != "":
		b.errorf(f.Pos, "field %s: minLength, maxLength and format do not apply to a field tagged elicit:%q: the user picks one of the choices", f.GoName, choicesTagValue)
		f.Schema.MinLength, f.Schema.MaxLength, f.Schema.Format = nil, nil, ""
	}
}

// choicesPlaceholder is the option the checker sees for a run-time choices
// property: the form is checked as if it had one choice, and the option is
// removed again from what is emitted (stripChoices).
const choicesPlaceholder = "choice"

// withChoicePlaceholders gives each run-time choices property of the
// decoded schema m one placeholder option, so the checker sees a single-
// or multi-select.
func withChoicePlaceholders(form *formModel, m map[string]any) { setChoices(form, m, true) }

// stripChoices removes the placeholders again from a checked schema.
func stripChoices(form *formModel, m map[string]any) { setChoices(form, m, false) }

// setChoices gives each run-time choices property of m the placeholder
// option (with placeholder) or no option (without).
func setChoices(form *formModel, m map[string]any, placeholder bool) {
	props, _ := m["properties"].(map[string]any)
	for _, f := range form.Fields {
		p, ok := props[f.Name].(map[string]any)
		if !f.Choices || !ok {
			continue
		}
		switch {
		case f.Kind == kindMultiSelect:
			items := map[string]any{"type": "string"}
			if placeholder {
				items["enum"] = []any{choicesPlaceholder}
			}
			p["items"] = items
		case placeholder:
			p["enum"] = []any{choicesPlaceholder}
		default:
			delete(p, "enum")
		}
	}
}

// choiceProperties are the names of the form's run-time choices
// properties, in field order.
func (form *formModel) choiceProperties() []string {
	var names []string
	for _, f := range form.Fields {
		if f.Choices {
			names = append(names, f.Name)
		}
	}
	return names
}

// choicesFieldType is the type of the name generated code declares for
// each run-time choices field (formimpl.ChoicesField, an alias of it).
const choicesFieldType = "github.com/go-elicit/elicit/internal/formcore.ChoicesField"

// choicesFieldName is the name generated code declares for the run-time
// choices field f of form, the name runtime.WithChoices takes: the form
// and the Go field joined by an underscore, CommitForm_Files, as protobuf
// names a message's oneof fields. Go names rarely hold an underscore, so
// it seldom meets a name of the package; checkChoicesNames reports when
// it does.
func choicesFieldName(form *formModel, f *fieldModel) string {
	return form.Name + "_" + f.GoName
}

// checkChoicesNames reports a choices field whose generated name is taken:
// by a declaration of the package (other than the one an earlier run of
// elicitgen wrote), or by another choices field (form A_B's field C and
// form A's field B_C).
func (b *builder) checkChoicesNames(forms []*formModel) {
	seen := map[string]string{}
	for _, form := range forms {
		for _, f := range form.Fields {
			if !f.Choices {
				continue
			}
			name := choicesFieldName(form, f)
			if other, ok := seen[name]; ok {
				b.errorf(f.Pos, "field %s: elicitgen names this choices field %s, as it does the field %s: rename one of the two", f.GoName, name, other)
				continue
			}
			seen[name] = form.Name + "." + f.GoName
			obj := b.src.Pkg.Scope().Lookup(name)
			if obj == nil {
				continue
			}
			if v, ok := obj.(*types.Var); ok && types.TypeString(types.Unalias(v.Type()), nil) == choicesFieldType {
				continue // declared by the previous run's output
			}
			pos := b.src.Fset.Position(obj.Pos())
			at := pos.Filename
			if i := strings.LastIndexAny(at, `/\`); i >= 0 {
				at = at[i+1:]
			}
			b.errorf(f.Pos, "field %s: elicitgen declares %s for this choices field (for runtime.WithChoices), but %s:%d declares it already: rename that", f.GoName, name, at, pos.Line)
		}
	}
}
