package gen

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
)

// ConstDoc is the comment of one constant's declaration, as the lines of
// its doc comment and its line comment (each with its "//" or "/*"): what
// an enum member's title is made of. The vet analyzer passes the ConstDocs
// of an enum type from the package that declares it to the packages whose
// forms use it, as an analysis fact, so go vet's cache keys the dependent
// package's result on them (see gen/vet).
type ConstDoc struct {
	Name         string
	Doc, Comment []string
}

// EnumDocs returns, for every defined type of src's package that has
// exported string constants (an enum another package's form could use),
// the ConstDoc of each of those constants, in name order.
func EnumDocs(src *Source) map[*types.TypeName][]ConstDoc {
	out := map[*types.TypeName][]ConstDoc{}
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
					named, ok := types.Unalias(c.Type()).(*types.Named)
					if !ok || named.Obj().Pkg() != src.Pkg {
						continue
					}
					out[named.Obj()] = append(out[named.Obj()], ConstDoc{Name: c.Name(), Doc: commentLines(vs.Doc), Comment: commentLines(vs.Comment)})
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
