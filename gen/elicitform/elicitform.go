// Package elicitform defines an Analyzer that checks the struct types
// marked //elicit:form, and the code elicitgen generated for them, as
// elicitgen would: it reports, on the field itself, everything elicitgen
// would refuse to generate. It shares the generator's model builder, the
// project's one subset checker and the emitter (through gen.Diagnose), so
// the two always agree.
//
// # Analyzer elicitform
//
// elicitform: check //elicit:form structs against the MCP elicitation
// schema subset
//
// Run it with go vet through cmd/elicitvet:
//
//	go vet -vettool=$(which elicitvet) ./...
//
// or in a driver of your own: singlechecker.Main(elicitform.Analyzer), or
// multichecker.Main with other analyzers (see the package example), or
// golangci-lint through the module plugin in gen/elicitform/golangci.
//
// It also regenerates, in memory and with elicitgen's own pipeline, every
// file elicitgen wrote in the package, and reports at the form
//
//	generated code for PeerForm is out of date (its schema in bgp_elicit.go differs): run go generate
//
// when the committed file differs: an enum constant added or retitled,
// a doc comment or a tag edited since the last go generate (a changed
// constant value already fails to compile, at its guard).
//
// The titles of an enum declared in another package come from an analysis
// fact that package's pass exports, so that go vet, which keys
// its cache of a package's result on its dependencies' facts, re-runs the
// forms' package when only such a title changes.
//
// Types selected only with elicitgen's -type flag are not checked against
// the subset here, as the analyzer knows forms by their directive; their
// generated code is still checked for being up to date.
package elicitform

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/go-elicit/elicit/gen"
)

// Analyzer checks //elicit:form structs against the MCP elicitation schema
// subset, and their generated code for being up to date.
var Analyzer = &analysis.Analyzer{
	Name:             "elicitform",
	Doc:              "check //elicit:form structs against the MCP elicitation schema subset\n\nThe analyzer reports every field that elicitgen would reject: types outside the subset, unknown or malformed jsonschema and validate tag keys, defaults that do not fit, duplicate properties and credential-like properties, and generated code that is out of date with its forms.",
	URL:              "https://pkg.go.dev/github.com/go-elicit/elicit/gen/elicitform",
	RunDespiteErrors: true,
	Run:              run,
	FactTypes:        []analysis.Fact{new(enumFact)},
}

// enumFact holds the comments (the titles) of the exported constants of
// an enum type, exported by the package that declares the type. Forms of
// other packages read their enum titles from it. Because the facts of a
// package's dependencies are part of the key under which go vet caches
// the package's result, editing only the title of another package's enum
// constant re-runs the analysis of the forms that use it, and their
// staleness is reported on a warm cache.
type enumFact struct{ Members []constDoc }

func (*enumFact) AFact() {}

func (f *enumFact) String() string {
	var b strings.Builder
	b.WriteString("enum(")
	for i, m := range f.Members {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %q %q", m.Name, m.Doc, m.Comment)
	}
	return b.String() + ")"
}

// constDoc is the comment of one constant's declaration, as the lines of
// its doc comment and its line comment (each with its "//" or "/*"): what
// an enum member's title is made of.
type constDoc struct {
	Name         string
	Doc, Comment []string
}

func run(pass *analysis.Pass) (any, error) {
	if pass.TypesInfo == nil || pass.Pkg == nil {
		return nil, nil
	}
	for typ, members := range enumDocs(pass.Files, pass.Pkg, pass.TypesInfo) {
		pass.ExportObjectFact(typ, &enumFact{members})
	}
	src := &gen.Source{Fset: pass.Fset, Files: pass.Files, Pkg: pass.Pkg, Info: pass.TypesInfo, ReadFile: pass.ReadFile}
	src.ConstComments = func(c *types.Const) (doc, comment []string, ok bool) {
		named, ok := types.Unalias(c.Type()).(*types.Named)
		var f enumFact
		if !ok || !pass.ImportObjectFact(named.Obj(), &f) {
			return nil, nil, false
		}
		for _, m := range f.Members {
			if m.Name == c.Name() {
				return m.Doc, m.Comment, true
			}
		}
		return nil, nil, false
	}
	for _, d := range gen.Diagnose(src) {
		pass.Reportf(d.Pos, "%s", d.Message)
	}
	return nil, nil
}

// enumDocs returns, for every defined type of pkg that has exported string
// constants (an enum another package's form could use), the constDoc of
// each of those constants, in name order.
func enumDocs(files []*ast.File, pkg *types.Package, info *types.Info) map[*types.TypeName][]constDoc {
	out := map[*types.TypeName][]constDoc{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for _, id := range vs.Names {
					c, ok := info.Defs[id].(*types.Const)
					if !ok || !c.Exported() || c.Val().Kind() != constant.String {
						continue
					}
					named, ok := types.Unalias(c.Type()).(*types.Named)
					if !ok || named.Obj().Pkg() != pkg {
						continue
					}
					out[named.Obj()] = append(out[named.Obj()], constDoc{Name: c.Name(), Doc: commentLines(vs.Doc), Comment: commentLines(vs.Comment)})
				}
			}
		}
	}
	for _, docs := range out {
		sort.Slice(docs, func(i, j int) bool { return docs[i].Name < docs[j].Name })
	}
	return out
}

func commentLines(cg *ast.CommentGroup) []string {
	if cg == nil {
		return nil
	}
	lines := make([]string, len(cg.List))
	for i, c := range cg.List {
		lines[i] = c.Text
	}
	return lines
}
