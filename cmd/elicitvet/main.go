package main

import (
	_ "embed"
	"errors"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"strings"

	"github.com/go-elicit/elicit/gen/elicitform"
)

// docSource is this command's package doc, which is its manual.
//
//go:embed doc.go
var docSource string

// main dispatches on the arguments:
//
//   - "elicitvet help" (or -h, -help, --help) prints the manual;
//   - no arguments is a usage error (exit 2);
//   - go vet's own arguments (a unit's .cfg file, the -flags and -V
//     queries) run the analyzer as a go vet tool (elicitform.Main);
//   - anything else runs "go vet -vettool=<this program>" with the
//     arguments, so positions, caching and exit codes are go vet's.
func main() {
	log.SetFlags(0)
	log.SetPrefix("elicitvet: ")
	args := os.Args[1:]
	switch {
	case len(args) == 0:
		fmt.Fprintln(os.Stderr, "usage: elicitvet [go vet flags] packages\n       go vet -vettool=$(which elicitvet) packages\nRun \"elicitvet help\" for the manual.")
		os.Exit(2)
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Print(manual())
		os.Exit(0)
	case calledByGoVet(args):
		elicitform.Main()
	default:
		os.Exit(goVet(args))
	}
}

// calledByGoVet reports whether args are go vet's: a unit's .cfg file, or
// the -flags and -V queries.
func calledByGoVet(args []string) bool {
	if strings.HasSuffix(args[len(args)-1], ".cfg") {
		return true
	}
	for _, a := range args {
		if a == "-flags" || a == "-V" || strings.HasPrefix(a, "-V=") {
			return true
		}
	}
	return false
}

// goVet runs go vet with this program as its vet tool and returns its
// exit status.
func goVet(args []string) int {
	self, err := os.Executable()
	if err != nil {
		log.Print(err)
		return 1
	}
	cmd := exec.Command("go", append([]string{"vet", "-vettool=" + self}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		log.Print(err)
		return 1
	}
	return 0
}

// manual renders the package doc as text.
func manual() string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", docSource, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		return "see: go doc github.com/go-elicit/elicit/cmd/elicitvet\n"
	}
	var p comment.Parser
	return string((&comment.Printer{TextPrefix: "", TextWidth: 76}).Text(p.Parse(f.Doc.Text())))
}
