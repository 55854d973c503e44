// Package vet is the go/analysis form of elicitgen's checks: the analyzer
// reports, on the field itself, everything elicitgen would refuse to
// generate for a struct type marked //elicit:form. It shares the model
// builder and the subset checker with elicitgen, so the two always agree.
//
// Run it with go vet through cmd/elicitvet:
//
//	go vet -vettool=$(which elicitvet) ./...
//
// Types selected only with elicitgen's -type flag are not seen here: the
// analyzer knows forms by their directive.
package vet

import (
	"golang.org/x/tools/go/analysis"

	"github.com/go-elicit/elicit/gen"
)

// Analyzer checks //elicit:form structs against the MCP elicitation schema
// subset.
var Analyzer = &analysis.Analyzer{
	Name:             "elicit",
	Doc:              "check //elicit:form structs against the MCP elicitation schema subset\n\nThe analyzer reports every field that elicitgen would reject: types outside the subset, unknown or malformed jsonschema and validate tag keys, defaults that do not fit, duplicate properties and credential-like properties.",
	URL:              "https://pkg.go.dev/github.com/go-elicit/elicit/gen/vet",
	RunDespiteErrors: true,
	Run:              run,
}

func run(pass *analysis.Pass) (any, error) {
	if pass.TypesInfo == nil || pass.Pkg == nil {
		return nil, nil
	}
	src := &gen.Source{Fset: pass.Fset, Files: pass.Files, Pkg: pass.Pkg, Info: pass.TypesInfo}
	forms, diags := gen.Build(src, nil)
	diags = append(diags, gen.Check(forms)...)
	gen.SortDiagnostics(diags)
	for _, d := range diags {
		pass.Reportf(d.Pos, "%s", d.Message)
	}
	return nil, nil
}
