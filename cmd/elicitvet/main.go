// Elicitvet runs elicitgen's schema checks as a go vet tool, so problems
// in //elicit:form structs show up in go vet and in gopls as you type,
// before go generate runs:
//
//	go install github.com/go-elicit/elicit/cmd/elicitvet
//	go vet -vettool=$(which elicitvet) ./...
//
// It reports on the field itself every problem elicitgen would report.
// Run "elicitvet help" for the analyzer's flags.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/go-elicit/elicit/gen/vet"
)

func main() { singlechecker.Main(vet.Analyzer) }
