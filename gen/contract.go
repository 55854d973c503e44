package gen

import (
	"fmt"
	"go/constant"
	"go/types"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/go/packages"
)

// contractVersion is the version of the contract with runtime/formimpl
// that this generator writes code for. A runtime accepts the versions from
// its formimpl.MinVersion to its formimpl.MaxVersion.
const contractVersion = 5

// The names in runtime/formimpl that the version check uses. They never
// change: every runtime has them, so the check itself always compiles.
const (
	minVersionName = "MinVersion"
	maxVersionName = "MaxVersion"
	// The compiler prints these names when the check fails ("constant -1
	// overflows formimpl.<name>"), so they say what to do.
	tooNewName = "GeneratedCodeNeedsNewerRuntime_RunGoGetGithubComGoElicitElicitAtLatest"
	tooOldName = "GeneratedCodeTooOld_RegenerateWithGoToolElicitgen"
)

// The advice for each direction, in the generated comment and in
// elicitgen's own error.
const (
	updateRuntime = "go get github.com/go-elicit/elicit@latest"
	matchRuntime  = "go tool elicitgen"
)

// emitContractCheck writes the constants that compile only against a
// runtime that accepts contractVersion: MaxVersion - N and N - MinVersion
// overflow an unsigned type when N is out of range.
func emitContractCheck(f *jen.File) {
	f.Comment(fmt.Sprintf("This file is version %d of the generated-code contract. When the runtime in", contractVersion))
	f.Comment("go.mod does not accept it, a line below stops compiling and the type it names")
	f.Comment(fmt.Sprintf("says what to do: update the runtime (%s),", updateRuntime))
	f.Comment(fmt.Sprintf("or generate with the elicitgen of the runtime in go.mod (%s).", matchRuntime))
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(formimplPath, tooNewName).Call(jen.Qual(formimplPath, maxVersionName).Op("-").Lit(contractVersion)),
		jen.Id("_").Op("=").Qual(formimplPath, tooOldName).Call(jen.Lit(contractVersion).Op("-").Qual(formimplPath, minVersionName)),
	)
}

// checkContract reports, before anything is written, that the runtime the
// packages build with does not accept the code this elicitgen writes: the
// generated file would not compile. A build without the runtime passes:
// go build then says how to add it.
func checkContract(dir, tags string, pkgs []*loaded) error {
	fi := findImport(pkgs, formimplPath)
	if fi == nil {
		// The packages do not import it yet (first generation): load it as
		// their build would.
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes, Dir: dir}
		if tags != "" {
			cfg.BuildFlags = []string{"-tags=" + tags}
		}
		ps, err := packages.Load(cfg, formimplPath)
		if err != nil || len(ps) != 1 || len(ps[0].Errors) > 0 || ps[0].Types == nil {
			return nil
		}
		fi = ps[0].Types
	}
	return contractError(fi, contractVersion)
}

// findImport finds the package path among the packages' imports, direct or
// not, when its type information is complete: a package known only through
// another's export data holds just the names that one uses.
func findImport(pkgs []*loaded, path string) *types.Package {
	seen := map[*types.Package]bool{}
	var walk func(p *types.Package) *types.Package
	walk = func(p *types.Package) *types.Package {
		if p == nil || seen[p] {
			return nil
		}
		seen[p] = true
		if p.Path() == path {
			if !p.Complete() {
				return nil
			}
			return p
		}
		for _, q := range p.Imports() {
			if found := walk(q); found != nil {
				return found
			}
		}
		return nil
	}
	for _, p := range pkgs {
		if found := walk(p.src.Pkg); found != nil {
			return found
		}
	}
	return nil
}

// contractError says why formimpl (as loaded) does not accept version, or
// returns nil.
func contractError(formimpl *types.Package, version int64) error {
	lo, okLo := intConst(formimpl, minVersionName)
	hi, okHi := intConst(formimpl, maxVersionName)
	if !okLo || !okHi {
		// Before the range, a runtime accepted exactly its Version.
		v, ok := intConst(formimpl, "Version")
		if !ok {
			return fmt.Errorf("the runtime in this build (%s) has no contract version: update it with %s", formimpl.Path(), updateRuntime)
		}
		lo, hi = v, v
	}
	accepts := fmt.Sprintf("versions %d to %d", lo, hi)
	if lo == hi {
		accepts = fmt.Sprintf("only version %d", lo)
	}
	switch {
	case version > hi:
		return fmt.Errorf("this elicitgen writes version %d of the generated-code contract, but the runtime in this build (%s) accepts %s: update the runtime with %s, or generate with the elicitgen of the runtime in go.mod: %s", version, formimpl.Path(), accepts, updateRuntime, matchRuntime)
	case version < lo:
		return fmt.Errorf("this elicitgen writes version %d of the generated-code contract, but the runtime in this build (%s) accepts %s: this elicitgen is older than the runtime; generate with the elicitgen of the runtime in go.mod: %s", version, formimpl.Path(), accepts, matchRuntime)
	}
	return nil
}

// intConst is the value of the integer constant name in pkg.
func intConst(pkg *types.Package, name string) (int64, bool) {
	c, ok := pkg.Scope().Lookup(name).(*types.Const)
	if !ok {
		return 0, false
	}
	v, exact := constant.Int64Val(constant.ToInt(c.Val()))
	return v, exact
}
