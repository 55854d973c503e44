package gen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-elicit/elicit/gen/internal/directive"
	"github.com/go-elicit/elicit/gen/internal/oracle"
	"github.com/invopop/jsonschema"
)

// build finds the forms in src and builds their model. With typeNames it
// builds exactly those types (like stringer's -type); without, every struct
// type marked //elicit:form. Diagnostics cover everything outside the
// subset; build never stops at the first.
func build(src *Source, typeNames []string) ([]*formModel, []Diagnostic) {
	b := &builder{src: src, fieldDecls: map[token.Pos]*ast.Field{}, constSpecs: map[token.Pos]*ast.ValueSpec{}, consts: map[*types.Package][]*types.Const{}, foreign: map[string]map[string]*ast.ValueSpec{}, reported: map[*types.Named]bool{}}
	b.index()
	b.directiveComments()
	var forms []*formModel
	want := map[string]bool{}
	for _, n := range typeNames {
		want[n] = true
	}
	found := map[string]bool{}
	for _, f := range src.Files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				marked, dpos := b.formDirective(gd, ts)
				name := ts.Name.Name
				if len(typeNames) > 0 {
					if !want[name] {
						continue
					}
				} else if !marked {
					continue
				}
				found[name] = true
				if form := b.form(ts, dpos); form != nil {
					forms = append(forms, form)
				}
			}
		}
	}
	for _, n := range typeNames {
		if !found[n] {
			b.errorf(token.NoPos, "-type %s: no such type in package %s", n, src.Pkg.Name())
		}
	}
	// By name, not position: see order.go.
	sort.Slice(forms, func(i, j int) bool { return forms[i].Name < forms[j].Name })
	b.checkChoicesNames(forms)
	return forms, b.diags
}

type builder struct {
	src        *Source
	diags      []Diagnostic
	fieldDecls map[token.Pos]*ast.Field     // by field name (or embedded type) position
	constSpecs map[token.Pos]*ast.ValueSpec // by constant name position
	// consts caches the constants of each package scope that enumOf has
	// searched: a scope lists (and sorts) every name, so searching it per
	// enum field made a package of many forms quadratic.
	consts map[*types.Package][]*types.Const
	// foreign holds the constant specs of files of other packages, by
	// file name and constant name, parsed for enum titles.
	foreign map[string]map[string]*ast.ValueSpec
	// reported holds the enums whose partial titles were reported, so a
	// type used by several fields is reported once.
	reported map[*types.Named]bool
}

// constSpec returns the declaration of a constant: from the package's own
// syntax, or for another package's constant (known only from export data)
// by parsing the file its position names, once. Nil when that file cannot
// be read, as under -trimpath: the enum is then untitled.
func (b *builder) constSpec(c *types.Const) *ast.ValueSpec {
	if c.Pkg() == b.src.Pkg {
		return b.constSpecs[c.Pos()]
	}
	if b.src.ConstComments != nil {
		if doc, comment, ok := b.src.ConstComments(c); ok {
			return commentSpec(doc, comment)
		}
	}
	name := b.src.Fset.Position(c.Pos()).Filename
	if !filepath.IsAbs(name) {
		return nil
	}
	specs, ok := b.foreign[name]
	if !ok {
		if f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.SkipObjectResolution); err == nil && f.Name.Name == c.Pkg().Name() {
			specs = map[string]*ast.ValueSpec{}
			for _, d := range f.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
					for _, sp := range gd.Specs {
						vs := sp.(*ast.ValueSpec)
						for _, id := range vs.Names {
							specs[id.Name] = vs
						}
					}
				}
			}
		}
		b.foreign[name] = specs
	}
	return specs[c.Name()]
}

// commentSpec is a declaration carrying only the given comment lines,
// which is all build reads of another package's constant.
func commentSpec(doc, comment []string) *ast.ValueSpec {
	group := func(lines []string) *ast.CommentGroup {
		if len(lines) == 0 {
			return nil
		}
		cg := &ast.CommentGroup{}
		for _, l := range lines {
			cg.List = append(cg.List, &ast.Comment{Text: l})
		}
		return cg
	}
	return &ast.ValueSpec{Doc: group(doc), Comment: group(comment)}
}

// scopeConsts returns the constants declared in pkg's scope, in name order.
func (b *builder) scopeConsts(pkg *types.Package) []*types.Const {
	if cs, ok := b.consts[pkg]; ok {
		return cs
	}
	scope := pkg.Scope()
	cs := []*types.Const{}
	for _, n := range scope.Names() {
		if c, ok := scope.Lookup(n).(*types.Const); ok {
			cs = append(cs, c)
		}
	}
	b.consts[pkg] = cs
	return cs
}

func (b *builder) errorf(pos token.Pos, format string, args ...any) {
	b.diags = append(b.diags, Diagnostic{Pos: pos, Message: fmt.Sprintf(format, args...)})
}

// index maps positions to the syntax the type checker does not keep: field
// doc comments and directives, and constant comments (enum titles).
func (b *builder) index() {
	for _, f := range b.src.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.StructType:
				for _, fd := range n.Fields.List {
					if len(fd.Names) == 0 {
						b.fieldDecls[embeddedPos(fd.Type)] = fd
					}
					for _, id := range fd.Names {
						b.fieldDecls[id.Pos()] = fd
					}
				}
			case *ast.GenDecl:
				if n.Tok == token.CONST {
					for _, s := range n.Specs {
						vs := s.(*ast.ValueSpec)
						for _, id := range vs.Names {
							b.constSpecs[id.Pos()] = vs
						}
					}
				}
			}
			return true
		})
	}
}

// embeddedPos is where go/types puts an embedded field: at the type name.
func embeddedPos(e ast.Expr) token.Pos {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedPos(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Pos()
	case *ast.IndexExpr:
		return embeddedPos(t.X)
	case *ast.IndexListExpr:
		return embeddedPos(t.X)
	}
	return e.Pos()
}

// directives returns the elicit directives of comment groups. It walks
// cg.List because CommentGroup.Text drops directive lines.
func directives(groups ...*ast.CommentGroup) []ast.Directive {
	var out []ast.Directive
	for _, cg := range groups {
		if cg == nil {
			continue
		}
		for _, c := range cg.List {
			if d, ok := ast.ParseDirective(c.Slash, c.Text); ok && d.Tool == directive.Prefix {
				out = append(out, d)
			}
		}
	}
	return out
}

func (b *builder) formDirective(gd *ast.GenDecl, ts *ast.TypeSpec) (bool, token.Pos) {
	groups := []*ast.CommentGroup{ts.Doc, ts.Comment}
	if len(gd.Specs) == 1 {
		groups = append(groups, gd.Doc)
	}
	marked, pos := false, token.NoPos
	for _, d := range directives(groups...) {
		switch d.Name {
		case directive.Form:
			if d.Args != "" {
				b.errorf(d.ArgsPos, "//%s:%s takes no arguments", directive.Prefix, directive.Form)
			}
			marked, pos = true, d.Slash
		}
		// directiveComments reports the other names, once.
	}
	return marked, pos
}

func (b *builder) form(ts *ast.TypeSpec, dpos token.Pos) *formModel {
	obj, _ := b.src.Info.Defs[ts.Name].(*types.TypeName)
	if obj == nil {
		return nil
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		b.errorf(ts.Name.Pos(), "form %s must be a defined struct type, not an alias", obj.Name())
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		b.errorf(ts.Name.Pos(), "form %s must be a struct type, not %s", obj.Name(), types.TypeString(named.Underlying(), b.qualifier))
		return nil
	}
	if named.TypeParams().Len() > 0 {
		b.errorf(ts.Name.Pos(), "form %s must not be generic", obj.Name())
		return nil
	}
	form := &formModel{Name: obj.Name(), Obj: obj, Pos: ts.Name.Pos()}
	form.Guards = append(form.Guards, named)
	props := map[string]*fieldModel{}
	before := len(b.diags)
	b.fields(form, st, nil, props, 0)
	form.Fingerprint = structFingerprint(st)
	if len(form.Fields) == 0 && len(b.diags) == before {
		if len(form.unexported) > 0 {
			b.errorf(form.Pos, "form %s has no properties: its fields (%s) are unexported, and encoding/json skips those; export them", form.Name, strings.Join(form.unexported, ", "))
		} else {
			b.errorf(form.Pos, "form %s has no properties: a form with nothing to fill in cannot be sent", form.Name)
		}
	}
	if len(form.Fields) > maxFields {
		b.errorf(form.Pos, "form %s has %d properties; at most %d are supported", form.Name, len(form.Fields), maxFields)
	}
	form.Schema = rootSchema(form)
	for _, f := range form.Fields {
		if len(f.Validate) > 0 {
			form.NeedsValidator = true
		}
	}
	return form
}

// maxFields matches formcore.MaxFields.
const maxFields = 256

func rootSchema(form *formModel) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties()}
	for _, f := range form.Fields {
		s.Properties.Set(f.Name, f.Schema)
		if f.Required {
			s.Required = append(s.Required, f.Name)
		}
	}
	return s
}

func (b *builder) qualifier(p *types.Package) string {
	if p == b.src.Pkg {
		return ""
	}
	return p.Name()
}

// fields adds the properties of st (the form or an embedded struct).
func (b *builder) fields(form *formModel, st *types.Struct, path []string, props map[string]*fieldModel, depth int) {
	if depth > 8 {
		return // embedding cycles are impossible without pointers; this only bounds the walk
	}
	for i := range st.NumFields() {
		v := st.Field(i)
		tag := st.Tag(i)
		decl := b.fieldDecls[v.Pos()]
		var doc, comment *ast.CommentGroup
		if decl != nil {
			doc, comment = decl.Doc, decl.Comment
		}
		var lit *ast.BasicLit
		if decl != nil {
			lit = decl.Tag
		}
		b.structTag(v.Name(), v.Pos(), tag, lit)
		dirs := directives(doc, comment)
		allowCredential, allowSeen := "", false
		for _, d := range dirs {
			switch d.Name {
			case directive.AllowCredential:
				allowCredential, allowSeen = d.Args, true
				if d.Args == "" {
					b.errorf(d.Slash, "//%s:%s needs a reason, e.g. //%s:%s the value is a public key id", directive.Prefix, d.Name, directive.Prefix, d.Name)
				}
			}
			// directiveComments reports the other names, once.
		}
		jsonTag, hasJSON := reflectTagLookup(tag, "json")
		jsonName, jsonOpts, _ := strings.Cut(jsonTag, ",")
		if hasJSON && jsonTag == "-" {
			continue
		}
		if schemaTag, _ := reflectTagLookup(tag, "jsonschema"); schemaTag == "-" || strings.HasPrefix(schemaTag, "-,") {
			continue
		}
		if v.Embedded() && jsonName == "" {
			t := v.Type()
			if p, ok := t.(*types.Pointer); ok {
				if _, ok := p.Elem().Underlying().(*types.Struct); ok {
					b.errorf(v.Pos(), "embedded pointer to struct %s is not supported: embed the struct itself", types.TypeString(p.Elem(), b.qualifier))
					continue
				}
			}
			if est, ok := t.Underlying().(*types.Struct); ok {
				if isTime(t) {
					b.errorf(v.Pos(), "embedded time.Time is not supported: give the field a name")
					continue
				}
				if named, ok := t.(*types.Named); ok {
					form.Guards = append(form.Guards, named)
				}
				b.fields(form, est, append(slicesClone(path), v.Name()), props, depth+1)
				continue
			}
		}
		if !v.Exported() {
			form.unexported = append(form.unexported, v.Name())
			continue // encoding/json and invopop ignore unexported fields
		}
		name := v.Name()
		if jsonName != "" {
			name = jsonName
		}
		f := &fieldModel{GoName: v.Name(), Path: append(slicesClone(path), v.Name()), Pos: v.Pos(), Name: name, Type: v.Type()}
		choices := b.choicesTag(f, tag)
		if choices && !b.choicesType(f, v) || !choices && !b.fieldType(f, v) {
			continue
		}
		for _, o := range strings.Split(jsonOpts, ",") {
			switch o {
			case "omitempty", "omitzero":
			case "string":
				b.errorf(f.Pos, "field %s: the json \",string\" option is not supported: use a string field", f.GoName)
			case "inline":
				b.errorf(f.Pos, "field %s: the json \"inline\" option is not supported: embed the struct instead", f.GoName)
			}
		}
		f.Required = !strings.Contains(","+jsonOpts+",", ",omitempty,") && !strings.Contains(","+jsonOpts+",", ",omitzero,")
		s := b.typeSchema(f)
		f.Schema = s
		description, _ := reflectTagLookup(tag, "jsonschema_description")
		s.Description = description
		if _, ok := reflectTagLookup(tag, "jsonschema_extras"); ok {
			b.errorf(f.Pos, "field %s: jsonschema_extras is not supported: elicitation schemas allow no extra keywords", f.GoName)
		}
		schemaTag, _ := reflectTagLookup(tag, "jsonschema")
		b.schemaTag(f, schemaTag)
		if vt, ok := reflectTagLookup(tag, "validate"); ok {
			b.validateTag(f, vt)
		}
		typeRange(f)
		if f.Kind == kindBool && !f.Pointer && f.Default == nil && !f.NonZero && len(f.Validate) == 0 {
			// A checkbox with no default cannot be answered "no" in some
			// UIs (the MCP Inspector keeps Submit disabled until it is
			// touched). false is the value the Go field has anyway, and
			// every protocol version carries a boolean default. A box
			// that must be ticked (validate:"required", "eq=true") keeps
			// none: there a UI that insists on a touch is right.
			s.Default, f.Default = false, false
			f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "default", Reason: oracle.ReasonBoolDefault})
		}
		if choices {
			b.checkChoices(f)
		}
		if f.Pointer && f.Required && !b.explicitRequired(schemaTag) && !f.NonZero {
			f.Required = false
			f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "required", Reason: oracle.ReasonPointerOptional})
		}
		if f.Default != nil && f.Required && !b.explicitRequired(schemaTag) && !f.NonZero {
			// The client shows the default and the decoder fills it in
			// when the answer leaves the property out: demanding it would
			// refuse {} although a default was declared.
			f.Required = false
			f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "required", Reason: oracle.ReasonDefaultOptional})
		}
		if s.Description == "" && doc != nil {
			if text := docText(doc); text != "" {
				s.Description = text
				f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "description", Reason: oracle.ReasonDocComment})
			}
		}
		b.credential(f, allowCredential, allowSeen)
		if prev, dup := props[f.Name]; dup {
			b.errorf(f.Pos, "duplicate property %q: field %s and field %s both use it", f.Name, strings.Join(prev.Path, "."), strings.Join(f.Path, "."))
			continue
		}
		props[f.Name] = f
		f.Index = len(form.Fields)
		form.Fields = append(form.Fields, f)
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func (b *builder) explicitRequired(schemaTag string) bool {
	for _, p := range splitOnUnescapedCommas(schemaTag) {
		if p == "required" {
			return true
		}
	}
	return false
}

// docText turns a field's doc comment into a description: the text without
// directives, lines joined by spaces within a paragraph.
func docText(cg *ast.CommentGroup) string {
	text := strings.TrimSpace(cg.Text())
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

func isTime(t types.Type) bool { return isNamed(t, "time", "Time") }

// isNamed reports whether t is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// fieldType classifies the field's Go type, reporting types outside the subset.
func (b *builder) fieldType(f *fieldModel, v *types.Var) bool {
	t := v.Type()
	if p, ok := t.(*types.Pointer); ok {
		elem := p.Elem()
		if _, ok := elem.Underlying().(*types.Struct); ok && !isTime(elem) {
			b.errorf(f.Pos, "field %s: pointer to struct %s is not allowed: elicitation forms are flat", f.GoName, b.typeString(elem))
			return false
		}
		if _, ok := elem.Underlying().(*types.Basic); !ok && !isTime(elem) {
			b.errorf(f.Pos, "field %s: type %s is not allowed: only pointers to strings, numbers, booleans and time.Time", f.GoName, b.typeString(t))
			return false
		}
		f.Pointer = true
		t = elem
	}
	if isTime(t) {
		f.Kind = kindTime
		return true
	}
	if isNamed(t, "time", "Duration") {
		// It would be a bare integer of nanoseconds to the user.
		b.errorf(f.Pos, "field %s: time.Duration is not supported: the user would have to type nanoseconds; use an integer field of seconds (or minutes), or a string parsed with time.ParseDuration", f.GoName)
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			f.Kind = kindString
			if named, ok := t.(*types.Named); ok {
				if e := b.enumOf(named, f.Pos); e != nil {
					f.Kind, f.Enum = kindEnum, e
				}
			}
		case u.Kind() == types.Bool:
			f.Kind = kindBool
		case u.Info()&types.IsInteger != 0 && u.Kind() != types.Uintptr:
			if u.Info()&types.IsUnsigned != 0 {
				f.Kind = kindUint
			} else {
				f.Kind = kindInt
			}
			f.Bits = intBits(u.Kind())
			b.intEnum(f, t)
		case u.Info()&types.IsFloat != 0:
			f.Kind = kindFloat
			f.Bits = 64
			if u.Kind() == types.Float32 {
				f.Bits = 32
			}
		default:
			b.errorf(f.Pos, "field %s: type %s is not allowed: use a string, number or boolean", f.GoName, b.typeString(t))
			return false
		}
		return true
	case *types.Struct:
		b.errorf(f.Pos, "field %s: nested struct %s is not allowed: elicitation forms are flat; embed it or flatten its fields", f.GoName, b.typeString(t))
	case *types.Map:
		b.errorf(f.Pos, "field %s: map %s is not allowed: elicitation forms are flat", f.GoName, b.typeString(t))
	case *types.Interface:
		b.errorf(f.Pos, "field %s: interface %s is not allowed: a property needs a concrete type", f.GoName, b.typeString(t))
	case *types.Slice:
		if f.Pointer {
			b.errorf(f.Pos, "field %s: type %s is not allowed", f.GoName, b.typeString(v.Type()))
			return false
		}
		if named, ok := u.Elem().(*types.Named); ok {
			if eb, ok := named.Underlying().(*types.Basic); ok && eb.Info()&types.IsString != 0 {
				if e := b.enumOf(named, f.Pos); e != nil {
					f.Kind, f.Enum = kindMultiSelect, e
					return true
				}
			}
		}
		b.errorf(f.Pos, "field %s: slice %s is not allowed: only a slice of a string enum type (a multi-select) is, or a slice of strings tagged elicit:%q whose options the call gives", f.GoName, b.typeString(t), choicesTagValue)
	case *types.Pointer:
		b.errorf(f.Pos, "field %s: type %s is not allowed", f.GoName, b.typeString(v.Type()))
	default:
		b.errorf(f.Pos, "field %s: type %s is not allowed in an elicitation form", f.GoName, b.typeString(t))
	}
	return false
}

func (b *builder) typeString(t types.Type) string { return types.TypeString(t, b.qualifier) }

// typeRange gives a sized integer field the bounds of its Go type where
// the tags give none: the decoder enforces the range anyway, and a client
// that is not told lets the user type 300 into a uint8. Bounds from tags
// are never wider (parseBound rejects those). int and int64, and the
// maximum of uint and uint64, are left out: a JSON number cannot carry
// them exactly, and no one types them.
func typeRange(f *fieldModel) {
	var lo, hi string
	switch f.Kind {
	case kindInt:
		if f.Bits == 64 {
			return
		}
		l, h := intRange(f.Bits)
		lo, hi = strconv.FormatInt(l, 10), strconv.FormatInt(h, 10)
	case kindUint:
		lo = "0"
		if f.Bits < 64 {
			hi = strconv.FormatUint(uintMax(f.Bits), 10)
		}
	default:
		return
	}
	s := f.Schema
	if s.Minimum == "" {
		n := json.Number(lo)
		s.Minimum, f.Minimum = n, &n
		f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "minimum", Reason: oracle.ReasonIntRange})
	}
	if hi != "" && s.Maximum == "" {
		n := json.Number(hi)
		s.Maximum, f.Maximum = n, &n
		f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "maximum", Reason: oracle.ReasonIntRange})
	}
}

func intBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64 // int and uint are treated as 64 bits: generated code must build on every platform, and bounds follow the widest
}

// enumOf returns the enum of a named string type: its constants, in source
// order, with titles from their comments. A type without constants is a
// plain string.
func (b *builder) enumOf(named *types.Named, usePos token.Pos) *enumModel {
	pkg := named.Obj().Pkg()
	if pkg == nil {
		return nil
	}
	var consts []*types.Const
	for _, c := range b.scopeConsts(pkg) {
		if !types.Identical(c.Type(), named) {
			continue
		}
		if pkg != b.src.Pkg && !c.Exported() {
			continue
		}
		consts = append(consts, c)
	}
	if len(consts) == 0 {
		return nil
	}
	sort.SliceStable(consts, func(i, j int) bool { return sourceLess(b.src.Fset, consts[i].Pos(), consts[j].Pos()) })
	e := &enumModel{Type: named}
	seen := map[string]bool{}
	for _, c := range consts {
		if c.Val().Kind() != constant.String {
			continue
		}
		val := constant.StringVal(c.Val())
		if val == "" {
			b.errorf(c.Pos(), "enum member %s of %s is empty: clients cannot show an empty choice; remove it, and make the field optional with omitempty for \"no choice\"", c.Name(), named.Obj().Name())
			continue
		}
		if seen[val] {
			continue // two names for one value (an alias): offered once
		}
		seen[val] = true
		m := enumMember{Const: c.Name(), Value: val}
		if vs := b.constSpec(c); vs != nil {
			if vs.Comment != nil {
				m.Title = docText(vs.Comment)
			} else if vs.Doc != nil {
				m.Title = docText(vs.Doc)
			}
		}
		e.Members = append(e.Members, m)
	}
	if len(e.Members) == 0 {
		b.errorf(usePos, "enum %s has no usable members", named.Obj().Name())
		return nil
	}
	b.partialTitles(e, consts, usePos)
	return e
}

// partialTitles reports an enum whose constants are only partly commented:
// a form shows titles only when every choice has one, so one forgotten
// comment would silently drop them all. It is reported once, at the first
// untitled constant, or at the field when the enum is another package's.
func (b *builder) partialTitles(e *enumModel, consts []*types.Const, usePos token.Pos) {
	var titled, untitled []string
	for _, m := range e.Members {
		if m.Title != "" {
			titled = append(titled, m.Const)
		} else {
			untitled = append(untitled, m.Const)
		}
	}
	if len(titled) == 0 || len(untitled) == 0 {
		return
	}
	named := e.Type
	pos := usePos
	if named.Obj().Pkg() == b.src.Pkg {
		if b.reported[named] {
			return
		}
		b.reported[named] = true
		for _, c := range consts {
			if c.Name() == untitled[0] {
				pos = c.Pos()
			}
		}
	}
	b.errorf(pos, "enum %s: %s %s no comment while %s %s one, and a form shows titles only when every choice has one, so it would show none: comment %s (a constant's comment is its title), or remove the comments",
		named.Obj().Name(), "constant"+plural(len(untitled))+" "+strings.Join(untitled, ", "), hasHave(untitled), strings.Join(titled, ", "), hasHave(titled), strings.Join(untitled, ", "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func hasHave(names []string) string {
	if len(names) == 1 {
		return "has"
	}
	return "have"
}

// intEnum reports a named integer type with constants, such as an iota
// enum: elicitation choices are strings, so the form would ask for a bare
// number and the constants' names would never reach the user. A type with
// a single constant is a plain number with a named value (a default, a
// limit) and is left alone.
func (b *builder) intEnum(f *fieldModel, t types.Type) {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return
	}
	pkg := named.Obj().Pkg()
	var names []string
	for _, c := range b.scopeConsts(pkg) {
		if types.Identical(c.Type(), named) && (pkg == b.src.Pkg || c.Exported()) {
			names = append(names, c.Name())
		}
	}
	if len(names) < 2 {
		return
	}
	const shown = 4
	list := strings.Join(names, ", ")
	if len(names) > shown {
		list = strings.Join(names[:shown], ", ") + ", …"
	}
	typ := b.typeString(named)
	b.errorf(f.Pos, "field %s: %s is an integer type with constants (%s), but elicitation choices are strings, so the form would ask for a bare number: make %s a string type with string constants to offer them as choices, or declare the field as %s to ask for a number",
		f.GoName, typ, list, typ, b.typeString(named.Underlying()))
}

// typeSchema is the schema invopop reflects for the field's type, plus the
// enum additions.
func (b *builder) typeSchema(f *fieldModel) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	switch f.Kind {
	case kindString:
		s.Type = "string"
	case kindInt, kindUint:
		s.Type = "integer"
	case kindFloat:
		s.Type = "number"
	case kindBool:
		s.Type = "boolean"
	case kindTime:
		s.Type, s.Format = "string", "date-time"
		f.Format = "date-time"
	case kindEnum:
		s.Type = "string"
		setEnum(s, f.Enum)
		f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: enumKeyword(f.Enum), Reason: oracle.ReasonEnumConstants})
	case kindMultiSelect:
		s.Type = "array"
		s.Items = &jsonschema.Schema{}
		if f.Enum.Titled() {
			for _, m := range f.Enum.Members {
				s.Items.AnyOf = append(s.Items.AnyOf, &jsonschema.Schema{Const: m.Value, Title: m.Title})
			}
		} else {
			s.Items.Type = "string"
			for _, m := range f.Enum.Members {
				s.Items.Enum = append(s.Items.Enum, m.Value)
			}
		}
		if !f.Choices {
			f.Additions = append(f.Additions, oracle.Addition{Property: f.Name, Keyword: "items", Reason: oracle.ReasonEnumConstants})
		}
	}
	return s
}

func enumKeyword(e *enumModel) string {
	if e.Titled() {
		return "oneOf"
	}
	return "enum"
}

func setEnum(s *jsonschema.Schema, e *enumModel) {
	s.Enum, s.OneOf = nil, nil
	if e.Titled() {
		for _, m := range e.Members {
			s.OneOf = append(s.OneOf, &jsonschema.Schema{Const: m.Value, Title: m.Title})
		}
		return
	}
	for _, m := range e.Members {
		s.Enum = append(s.Enum, m.Value)
	}
}
