// Package vet is the go/analysis form of elicitgen's checks: the analyzer
// reports, on the field itself, everything elicitgen would refuse to
// generate for a struct type marked //elicit:form. It shares the model
// builder and the subset checker with elicitgen, so the two always agree.
//
// Run it with go vet through cmd/elicitvet:
//
//	go vet -vettool=$(which elicitvet) ./...
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
// fact that package's pass exports (enumFact), so that go vet, which keys
// its cache of a package's result on its dependencies' facts, re-runs the
// forms' package when only such a title changes.
//
// Types selected only with elicitgen's -type flag are not checked against
// the subset here, as the analyzer knows forms by their directive; their
// generated code is still checked for being up to date.
package vet

import (
	"fmt"
	"go/types"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/go-elicit/elicit/gen"
)

// Analyzer checks //elicit:form structs against the MCP elicitation schema
// subset.
var Analyzer = &analysis.Analyzer{
	Name:             "elicit",
	Doc:              "check //elicit:form structs against the MCP elicitation schema subset\n\nThe analyzer reports every field that elicitgen would reject: types outside the subset, unknown or malformed jsonschema and validate tag keys, defaults that do not fit, duplicate properties and credential-like properties, and generated code that is out of date with its forms.",
	URL:              "https://pkg.go.dev/github.com/go-elicit/elicit/gen/vet",
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
type enumFact struct{ Members []gen.ConstDoc }

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

func run(pass *analysis.Pass) (any, error) {
	if pass.TypesInfo == nil || pass.Pkg == nil {
		return nil, nil
	}
	src := &gen.Source{Fset: pass.Fset, Files: pass.Files, Pkg: pass.Pkg, Info: pass.TypesInfo}
	for typ, members := range gen.EnumDocs(src) {
		pass.ExportObjectFact(typ, &enumFact{members})
	}
	src.ConstDoc = func(c *types.Const) (gen.ConstDoc, bool) {
		named, ok := types.Unalias(c.Type()).(*types.Named)
		var f enumFact
		if !ok || !pass.ImportObjectFact(named.Obj(), &f) {
			return gen.ConstDoc{}, false
		}
		for _, m := range f.Members {
			if m.Name == c.Name() {
				return m, true
			}
		}
		return gen.ConstDoc{}, false
	}
	read := pass.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	for _, d := range diagnose(src, read) {
		pass.Reportf(d.Pos, "%s", d.Message)
	}
	return nil, nil
}

// diagnose is everything the analyzer reports on a package, sorted: the
// forms' problems, or else their generated code's staleness. The go vet
// driver's fallback (see Main) reports the same.
func diagnose(src *gen.Source, read func(string) ([]byte, error)) []gen.Diagnostic {
	if !gen.CommentsMention(src.Files, gen.DirectivePrefix) {
		// No directive, no generated file: go vet runs the analyzer on
		// every dependency (for its facts), and most have nothing here.
		return nil
	}
	forms, diags := gen.Build(src, nil)
	diags = append(diags, gen.Check(forms)...)
	if len(diags) == 0 {
		diags = gen.Stale(src, read)
	}
	gen.SortDiagnostics(src.Fset, diags)
	return diags
}
