package elicitform_test

import (
	"fmt"
	"log"
	"path/filepath"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/go-elicit/elicit/gen/elicitform"
)

// A driver of its own runs the analyzer like any other. The usual one is
// a main package holding
//
//	func main() { singlechecker.Main(elicitform.Analyzer) }
//
// or multichecker.Main with other analyzers, which gives a go vet
// -vettool; cmd/elicitvet is that, plus a fallback for packages that do
// not compile for want of generated code. Here the analyzer runs in
// process, through go/analysis/checker, on the package gen's example
// generates for: it reports the same problems, on the fields.
func Example() {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: "../testdata/example"}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		log.Fatal(err)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{elicitform.Analyzer}, pkgs, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, act := range graph.Roots {
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			fmt.Printf("%s:%d:%d: %s\n", filepath.Base(pos.Filename), pos.Line, pos.Column, d.Message)
		}
	}
	// Output:
	// example.go:10:2: field Repository: unknown jsonschema tag key "maxLenght": did you mean "maxLength"
	// example.go:12:2: field Labels: map map[string]string is not allowed: elicitation forms are flat
}
