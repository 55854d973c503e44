// Elicitvet runs elicitgen's schema checks as a go vet tool, so problems
// in //elicit:form structs show up in go vet, before go generate runs:
//
//	go install github.com/go-elicit/elicit/cmd/elicitvet
//	go vet -vettool=$(which elicitvet) ./...
//
// It reports on the field itself every problem elicitgen would report.
// It also regenerates each file elicitgen wrote, in memory and with
// elicitgen's own code, and reports at the form when the committed file
// differs, for edits go build does not catch (a new enum constant, a new
// title or doc comment, a changed tag):
//
//	peer.go:12:6: generated code for PeerForm is out of date (its schema in bgp_elicit.go differs): run go generate
//
// gopls cannot load this analyzer (it runs only those compiled into it).
// For diagnostics in an editor, build golangci-lint with the module plugin
// in package github.com/go-elicit/elicit/gen/vet/golangci, which runs the
// same analyzer; its documentation shows the two configuration files.
//
// Run "elicitvet help" (or elicitvet -h) for the analyzer's flags.
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/go-elicit/elicit/gen/vet"
)

func main() {
	// singlechecker reads every argument as a package pattern; "help"
	// prints the usage, as -h does (go vet never passes "help").
	if len(os.Args) == 2 && os.Args[1] == "help" {
		os.Args[1] = "-h"
	}
	singlechecker.Main(vet.Analyzer)
}
