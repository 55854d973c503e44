package gen

import "go/token"

// Generated output, and the order of diagnostics, must not depend on the
// order go/packages (or go vet) happened to add a package's files to the
// file set: token.Pos values of different files compare by that order,
// which varies from run to run. So the generator never compares positions
// of different files. Forms are ordered by name (see build); everything
// else that follows the source is ordered by sourceLess.

// sourceLess orders two positions as they appear in the source: by file
// name, then line and column. Files of one package share a directory, so
// this is their base names' order, the order go list gives them in, which
// does not change when files are parsed in another order.
func sourceLess(fset *token.FileSet, a, b token.Pos) bool {
	pa, pb := fset.Position(a), fset.Position(b)
	if pa.Filename != pb.Filename {
		return pa.Filename < pb.Filename
	}
	if pa.Line != pb.Line {
		return pa.Line < pb.Line
	}
	return pa.Column < pb.Column
}
