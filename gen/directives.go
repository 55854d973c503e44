package gen

import (
	"go/ast"
	"go/token"
	"slices"
	"strings"
	"unicode"

	"github.com/go-elicit/elicit/gen/internal/directive"
	"github.com/go-elicit/elicit/internal/subset"
)

// directiveNames are the directives there are, in the order "did you mean"
// prefers them.
var directiveNames = []string{directive.Form, directive.AllowCredential}

// directiveComments reports every elicit directive that would otherwise be
// ignored without a word: one written "// elicit:form" (go directives have
// no space after the slashes), an unknown or misspelt name, and a known one
// that is not attached to what it applies to (separated from its type by a
// blank line, above a group of types, on a field instead of a type). It
// reads every comment of the package, so a directive on no form at all is
// found too.
func (b *builder) directiveComments() {
	for _, f := range b.src.Files {
		onType := map[*ast.CommentGroup]bool{}  // doc or line comment of one type
		onField := map[*ast.CommentGroup]bool{} // doc or line comment of a struct field
		onGroup := map[*ast.CommentGroup]bool{} // doc of a parenthesized group of several types
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GenDecl:
				if n.Tok != token.TYPE || n.Doc == nil {
					break
				}
				if len(n.Specs) == 1 {
					onType[n.Doc] = true
				} else {
					onGroup[n.Doc] = true
				}
			case *ast.TypeSpec:
				onType[n.Doc], onType[n.Comment] = true, true
			case *ast.StructType:
				for _, fd := range n.Fields.List {
					onField[fd.Doc], onField[fd.Comment] = true, true
				}
			}
			return true
		})
		delete(onType, nil)
		delete(onField, nil)
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if fixed, ok := spacedDirective(c.Text); ok {
					b.errorf(c.Slash, "%q is not read as a directive: write %s, in lower case with no spaces", c.Text, fixed)
					continue
				}
				d, ok := ast.ParseDirective(c.Slash, c.Text)
				if !ok || d.Tool != directive.Prefix {
					continue
				}
				b.placeDirective(f, cg, d, onType[cg], onField[cg], onGroup[cg])
			}
		}
	}
}

// placeDirective reports a directive with an unknown name, or one that is
// not where it applies.
func (b *builder) placeDirective(f *ast.File, cg *ast.CommentGroup, d ast.Directive, onType, onField, onGroup bool) {
	switch d.Name {
	case directive.Form:
		switch {
		case onType:
			return
		case onField:
			b.errorf(d.Slash, "//%s:%s belongs on a type, not on a field", directive.Prefix, d.Name)
		case onGroup:
			b.errorf(d.Slash, "//%s:%s above a group of types marks none of them: put it directly above the type inside the parentheses", directive.Prefix, d.Name)
		default:
			b.errorf(d.Slash, "//%s:%s marks no type%s", directive.Prefix, d.Name, b.detachedHint(f, cg))
		}
	case directive.AllowCredential:
		switch {
		case onField:
			return
		case onType, onGroup:
			b.errorf(d.Slash, "//%s:%s belongs on a field, not on a type", directive.Prefix, d.Name)
		default:
			b.errorf(d.Slash, "//%s:%s applies to no field: put it directly above the field, or at the end of its line", directive.Prefix, d.Name)
		}
	default:
		msg := "unknown directive //" + directive.Prefix + ":" + d.Name
		if s := subset.Suggest(d.Name, directiveNames); s != "" {
			msg += ": did you mean //" + directive.Prefix + ":" + s
		}
		b.errorf(d.Slash, "%s", msg)
	}
}

// detachedHint says why a form directive marks nothing: most often a blank
// line between it and the type, which detaches the comment from the
// declaration.
func (b *builder) detachedHint(f *ast.File, cg *ast.CommentGroup) string {
	for _, decl := range f.Decls {
		if decl.Pos() < cg.End() {
			continue
		}
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE || len(gd.Specs) == 0 {
			break
		}
		name := gd.Specs[0].(*ast.TypeSpec).Name.Name
		if b.src.Fset.Position(gd.Pos()).Line > b.src.Fset.Position(cg.End()).Line+1 {
			return ": a blank line separates it from type " + name + "; remove the blank line"
		}
		break
	}
	return ": put it directly above a struct type declaration, with no blank line between"
}

// spacedDirective recognises an elicit directive written like a comment,
// "// elicit:form", "//Elicit:form" or "//elicit: form", which Go does not
// read as a directive, and returns it as it should be written.
func spacedDirective(text string) (string, bool) {
	body, ok := strings.CutPrefix(text, "//")
	if !ok {
		return "", false
	}
	trimmed := strings.TrimLeft(body, " \t")
	prefix := directive.Prefix + ":"
	if len(trimmed) <= len(prefix) || !strings.EqualFold(trimmed[:len(prefix)], prefix) {
		return "", false
	}
	name := trimmed[len(prefix):]
	if !unicode.IsLetter(rune(name[0])) {
		// "//elicit: form" is a directive with a stray space; "// elicit:
		// ask the user" is prose.
		word, _, _ := strings.Cut(strings.TrimLeft(name, " \t"), " ")
		if trimmed != body || !slices.Contains(directiveNames, word) {
			return "", false
		}
		name = strings.TrimLeft(name, " \t")
		return "//" + prefix + name, true
	}
	if trimmed == body && trimmed[:len(prefix)] == prefix {
		return "", false // a directive, parsed as one
	}
	return "//" + prefix + name, true
}
