package main

import (
	_ "embed"
	"go/doc/comment"
	"go/parser"
	"go/token"

	"github.com/go-elicit/elicit/gen/vet"
)

// docSource is this command's package doc, which is its manual.
//
//go:embed doc.go
var docSource string

func main() { vet.Main(manual()) }

// manual renders the package doc as text.
func manual() string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", docSource, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		return "see: go doc github.com/go-elicit/elicit/cmd/elicitvet\n"
	}
	var p comment.Parser
	return string((&comment.Printer{TextPrefix: "", TextWidth: 76}).Text(p.Parse(f.Doc.Text())))
}
