package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"sort"

	"github.com/go-elicit/elicit/gen/internal/directive"
)

// Diagnostic is one problem found in the source, at a position.
type Diagnostic struct {
	Pos     token.Pos
	Message string
}

// Source is one type-checked package, as go/packages loads it (Load) or
// an analysis pass holds it (the vet analyzer, package gen/elicitform).
type Source struct {
	Fset  *token.FileSet
	Files []*ast.File
	Pkg   *types.Package
	Info  *types.Info
	// ConstComments, when set, gives the lines (each with its "//" or
	// "/*") of the doc comment and the line comment of another package's
	// constant, which title an enum's members; the vet analyzer takes them
	// from analysis facts. When it is nil or reports !ok, the comments are
	// read from the file the constant's position names.
	ConstComments func(c *types.Const) (doc, comment []string, ok bool)
	// ReadFile reads a file of the package, for comparing the files
	// elicitgen wrote with what it would write now; an analysis pass's
	// ReadFile sees unsaved editor buffers. Nil means os.ReadFile.
	ReadFile func(filename string) ([]byte, error)
}

// Diagnose reports what the vet analyzer reports on src's package, sorted
// by file, line and column, then message: everything Generate would refuse
// in the package's forms (the forms marked //elicit:form; types chosen
// only with Config.Types are not known here), or, when there is nothing
// to refuse, every form whose generated code is out of date.
//
// A form is out of date when the file elicitgen wrote differs from what
// Generate writes now: an enum constant added or retitled, a doc comment
// or a tag edited without running go generate. Files written for chosen
// types or to another Output are regenerated as they were, as a file's
// forms are the types its ElicitForm methods belong to. A form marked
// //elicit:form that no file holds is reported too, also when the package
// has no generated file at all. Test files are left out, as Generate
// leaves them out.
//
// A Source without Fset, Pkg or Info (a nil one too) gets one diagnostic,
// without a position, saying so.
func Diagnose(src *Source) []Diagnostic {
	if src == nil || src.Fset == nil || src.Pkg == nil || src.Info == nil {
		return []Diagnostic{{Message: "gen.Diagnose: the source has no file set, package or type info: pass a type-checked package"}}
	}
	if !commentsMention(src.Files, directive.Prefix) {
		// No directive, no generated file: go vet runs the analyzer on
		// every dependency (for its facts), and most have nothing here.
		return nil
	}
	forms, diags := build(src, nil)
	diags = append(diags, checkForms(forms)...)
	if len(diags) == 0 {
		read := src.ReadFile
		if read == nil {
			read = os.ReadFile
		}
		diags = stale(src, read)
	}
	sortDiagnostics(src.Fset, diags)
	return diags
}

// sortDiagnostics orders diagnostics by file name, line and column, then
// message, so every driver (elicitgen, elicitvet) lists them the same way
// whatever order the files were loaded in.
func sortDiagnostics(fset *token.FileSet, ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Pos != ds[j].Pos {
			return sourceLess(fset, ds[i].Pos, ds[j].Pos)
		}
		return ds[i].Message < ds[j].Message
	})
}
