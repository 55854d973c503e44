package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-elicit/elicit/gen/internal/directive"
)

// stale compares each file elicitgen wrote in src's package with what
// elicitgen makes of the package now, through the same build, checkForms and
// emitForms, and reports every form whose generated code differs, at the form:
// an enum constant added or retitled, a doc comment or tag edited without
// running go generate. read returns a file's bytes (an analysis pass's
// ReadFile, which sees unsaved editor buffers, or os.ReadFile).
//
// A file's forms are the types its ElicitForm methods belong to, so files
// written with -type and -output are regenerated as they were. A form
// marked //elicit:form that no file holds is reported too, also when the
// package has no generated file at all: code that calls Elicit[T] with it
// does not compile, and elicitvet shows this report, and the form's own
// problems, instead of the compiler's "missing method". Test files are
// left out, as elicitgen leaves them out. When the package has problems of
// its own, stale reports nothing: build and checkForms report those.
func stale(src *Source, read func(filename string) ([]byte, error)) []Diagnostic {
	type generated struct {
		name  string
		pos   token.Pos
		src   []byte
		forms []string
	}
	var files []*generated
	var diags []Diagnostic
	generatedAny := false
	base := *src
	base.Files = nil
	for _, f := range src.Files {
		tf := src.Fset.File(f.FileStart)
		if tf == nil || strings.HasSuffix(tf.Name(), "_test.go") {
			continue
		}
		base.Files = append(base.Files, f)
		if !writtenByElicitgen(f) {
			continue
		}
		generatedAny = true
		b, err := read(tf.Name())
		if err != nil {
			diags = append(diags, Diagnostic{f.Package, fmt.Sprintf("cannot read generated file %s: %v", filepath.Base(tf.Name()), err)})
			continue
		}
		files = append(files, &generated{name: tf.Name(), pos: f.Package, src: b, forms: formsIn(b)})
	}
	if !generatedAny {
		return neverGenerated(&base, read)
	}
	if len(files) == 0 {
		return diags
	}
	// In file name order, not the order the files were loaded in: the
	// home of unheld forms must not change from run to run.
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	marked, ds := build(&base, nil)
	if len(ds) > 0 {
		return diags
	}
	// Marked forms no file holds belong in the default output file, or
	// the first generated file when there is none by that name.
	held := map[string]bool{}
	for _, g := range files {
		for _, n := range g.forms {
			held[n] = true
		}
	}
	home := files[0]
	for _, g := range files {
		if filepath.Base(g.name) == strings.ToLower(src.Pkg.Name())+"_elicit.go" {
			home = g
		}
	}
	missing := map[string]bool{}
	for _, form := range marked {
		if !held[form.Name] {
			home.forms = append(home.forms, form.Name)
			missing[form.Name] = true
		}
	}
	for _, g := range files {
		if len(g.forms) == 0 {
			continue
		}
		forms, ds := build(&base, g.forms)
		if len(ds) > 0 {
			continue // a form the file holds is gone: the file no longer compiles
		}
		if ds := checkForms(forms); len(ds) > 0 {
			continue
		}
		want, err := emitForms(src.Pkg, forms)
		if err != nil {
			diags = append(diags, Diagnostic{g.pos, fmt.Sprintf("cannot regenerate %s: %v", filepath.Base(g.name), err)})
			continue
		}
		if bytes.Equal(want, g.src) {
			continue
		}
		file := filepath.Base(g.name)
		reported := false
		for _, form := range forms {
			why := ""
			switch {
			case missing[form.Name]:
				why = file + " has none"
			case !schemasIn(form, g.src):
				why = "its schema in " + file + " differs"
			case !bytes.Contains(g.src, []byte(fingerprintCall(form))):
				why = "its struct tag check in " + file + " differs"
			default:
				decls, err := formDecls(src.Pkg, form)
				if err != nil || !bytes.Contains(g.src, decls) {
					why = "its decoder in " + file + " differs"
				}
			}
			if why != "" {
				diags = append(diags, Diagnostic{form.Pos, staleMessage(form.Name, why) + runGenerate(src, form.Pos, read)})
				reported = true
			}
		}
		if !reported && len(forms) > 0 {
			// Only what precedes the forms changed: the enum guards, the
			// contract version.
			diags = append(diags, Diagnostic{forms[0].Pos, staleMessage(forms[0].Name, "the header of "+file+" differs") + runGenerate(src, forms[0].Pos, read)})
		}
	}
	return diags
}

// neverGenerated reports every form marked in a package that has no
// generated file. Most packages have no form: a look at the comments
// spares them the model.
func neverGenerated(src *Source, read func(filename string) ([]byte, error)) []Diagnostic {
	if !commentsMention(src.Files, directive.FormComment) {
		return nil
	}
	marked, ds := build(src, nil)
	if len(ds) > 0 {
		return nil
	}
	var diags []Diagnostic
	file := strings.ToLower(src.Pkg.Name()) + "_elicit.go"
	for _, form := range marked {
		diags = append(diags, Diagnostic{form.Pos, fmt.Sprintf("no generated code for %s (there is no %s): ", form.Name, file) + runGenerate(src, form.Pos, read)})
	}
	return diags
}

// commentsMention reports whether a comment of files contains text: a
// look that spares packages without forms the model.
func commentsMention(files []*ast.File, text string) bool {
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.Contains(c.Text, text) {
					return true
				}
			}
		}
	}
	return false
}

// staleMessage begins the report of a form whose generated code is out of
// date; runGenerate ends it.
func staleMessage(form, why string) string {
	return fmt.Sprintf("generated code for %s is out of date (%s): ", form, why)
}

// The //go:generate line the README's form gives, and the
// tool it runs.
const (
	generateLine  = "//go:generate go tool elicitgen"
	elicitgenTool = "github.com/go-elicit/elicit/cmd/elicitgen"
)

// runGenerate ends a report that asks for go generate. When no
// //go:generate line of the package runs elicitgen, go generate would do
// nothing, so it also says which line to add, to the file of the form at
// pos, and the tool the line needs.
func runGenerate(src *Source, pos token.Pos, read func(filename string) ([]byte, error)) string {
	if generatesWithElicitgen(src, read) {
		return "run go generate"
	}
	file := filepath.Base(src.Fset.Position(pos).Filename)
	return fmt.Sprintf("run go generate once %s has the line %s (no //go:generate line of package %s runs elicitgen; the line needs the tool: go get -tool %s)",
		file, generateLine, src.Pkg.Name(), elicitgenTool)
}

// generatesWithElicitgen reports whether a //go:generate line that runs
// elicitgen (go tool elicitgen, go run …/cmd/elicitgen, an installed
// elicitgen) is in a file of src, or in another Go file of its directory:
// go generate reads test files and files other build tags select too.
func generatesWithElicitgen(src *Source, read func(filename string) ([]byte, error)) bool {
	have := map[string]bool{}
	dir := ""
	for _, f := range src.Files {
		tf := src.Fset.File(f.FileStart)
		if tf == nil {
			continue
		}
		have[tf.Name()] = true
		dir = filepath.Dir(tf.Name())
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if runsElicitgen(c.Text) && src.Fset.Position(c.Slash).Column == 1 {
					return true
				}
			}
		}
	}
	if dir == "" {
		return false
	}
	others, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range others {
		if have[name] {
			continue
		}
		b, err := read(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if runsElicitgen(strings.TrimSuffix(line, "\r")) {
				return true
			}
		}
	}
	return false
}

// runsElicitgen reports whether a line is a //go:generate directive that
// runs elicitgen.
func runsElicitgen(line string) bool {
	args, ok := strings.CutPrefix(line, "//go:generate")
	return ok && args != "" && (args[0] == ' ' || args[0] == '\t') && strings.Contains(args, "elicitgen")
}

// writtenByElicitgen reports whether f begins with the generated-file
// header elicitgen writes.
func writtenByElicitgen(f *ast.File) bool {
	if len(f.Comments) == 0 || len(f.Comments[0].List) == 0 {
		return false
	}
	c := f.Comments[0].List[0]
	return c.Text == "// "+header && c.Pos() < f.Package
}

// formsIn lists the receivers of the ElicitForm methods in a generated
// file, in order; elicitgen writes each signature on one line.
func formsIn(src []byte) []string {
	var names []string
	for _, line := range strings.Split(string(src), "\n") {
		rest, ok := strings.CutPrefix(line, "func (*")
		if !ok {
			continue
		}
		if name, ok := strings.CutSuffix(rest, ") ElicitForm() *formimpl.Descriptor {"); ok {
			names = append(names, name)
		}
	}
	return names
}

// schemasIn reports whether every schema of form appears in src as emitForms
// writes it.
func schemasIn(form *formModel, src []byte) bool {
	for _, v := range form.Variants {
		if v.Schema == nil {
			continue
		}
		lit := strconv.Quote(string(v.Schema))
		if s := string(v.Schema); !strings.ContainsAny(s, "`\r") && utf8.ValidString(s) {
			lit = "`" + s + "`"
		}
		if !bytes.Contains(src, []byte(lit)) {
			return false
		}
	}
	return true
}

// fingerprintCall is the form's line in the generated init, as emitHeader
// writes it.
func fingerprintCall(form *formModel) string {
	return fmt.Sprintf("formimpl.CheckFingerprint((*%s)(nil), %s, %#x)", form.Name, strconv.Quote(form.Name), form.Fingerprint)
}

// formDecls renders the declarations of one form as emitFile does, so that
// an up-to-date file holds them verbatim.
func formDecls(pkg *types.Package, form *formModel) ([]byte, error) {
	f := newJenFile(pkg)
	(&emitter{file: f, pkg: pkg, form: form}).emit()
	p := renderPart(pkg, f, true)
	return p.decls, p.err
}
