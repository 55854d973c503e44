// Elicitvet runs elicitgen's schema checks as a go vet tool, so problems
// in //elicit:form structs show up in go vet and in gopls as you type,
// before go generate runs:
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
// Run "elicitvet help" for the analyzer's flags.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/go-elicit/elicit/gen/vet"
)

func main() { singlechecker.Main(vet.Analyzer) }
