package gen

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// ConstDoc is the comment of one constant's declaration, as the lines of
// its doc comment and its line comment (each with its "//" or "/*"): what
// an enum member's title is made of. The vet analyzer passes it from the
// package that declares an enum to the packages whose forms use it, as an
// analysis fact, so go vet's cache keys the dependent package's result on
// it (see gen/vet).
type ConstDoc struct {
	Doc, Comment []string
}

// ConstDocs returns the ConstDoc of every exported constant of src's
// package that could be an enum member another package's form uses: a
// string constant of a defined type.
func ConstDocs(src *Source) map[*types.Const]ConstDoc {
	out := map[*types.Const]ConstDoc{}
	for _, f := range src.Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for _, id := range vs.Names {
					c, ok := src.Info.Defs[id].(*types.Const)
					if !ok || !c.Exported() || c.Val().Kind() != constant.String {
						continue
					}
					if _, named := types.Unalias(c.Type()).(*types.Named); !named {
						continue
					}
					out[c] = ConstDoc{Doc: commentLines(vs.Doc), Comment: commentLines(vs.Comment)}
				}
			}
		}
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

// spec is a declaration carrying only d's comments, which is all Build
// reads of another package's constant.
func (d ConstDoc) spec() *ast.ValueSpec {
	group := func(lines []string) *ast.CommentGroup {
		if len(lines) == 0 {
			return nil
		}
		cg := &ast.CommentGroup{}
		for _, l := range lines {
			cg.List = append(cg.List, &ast.Comment{Text: l})
		}
		return cg
	}
	return &ast.ValueSpec{Doc: group(d.Doc), Comment: group(d.Comment)}
}
