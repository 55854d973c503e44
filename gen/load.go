package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-elicit/elicit/gen/internal/directive"
	"golang.org/x/tools/go/packages"
)

// LoadMode is what the generator asks of go/packages. The benchmarks
// (internal/cmd/bench) load with it to measure the generator against the
// packages.Load floor.
const LoadMode = packages.NeedName | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedSyntax | packages.NeedFiles

// loaded is one loaded package and its directory.
type loaded struct {
	src *Source
	dir string
}

// errLoad is matched by errors from loading packages.
var errLoad = errors.New("cannot load packages")

// Load type-checks the packages that patterns name, relative to dir, with
// build tags, as Generate loads them: it stops on any package error,
// listing them all, except a form's missing generated methods. elicitvet
// uses it when go vet's own type-check stops on those.
func Load(dir string, patterns []string, tags string) ([]*Source, error) {
	pkgs, err := load(dir, patterns, tags)
	if err != nil {
		return nil, err
	}
	srcs := make([]*Source, len(pkgs))
	for i, p := range pkgs {
		srcs[i] = p.src
	}
	return srcs, nil
}

// load is Load, keeping each package's directory.
//
// A previously generated file may no longer compile against the edited
// struct (its guards exist to make sure of that), which would block its own
// regeneration, and type-checking it costs more than everything else the
// generator does. So each file elicitgen wrote is parsed as stubs of its
// ElicitForm and ElicitDecode methods: code in the package that uses the
// forms still type-checks, and nothing in the old output matters.
func load(dir string, patterns []string, tags string) ([]*loaded, error) {
	var mu sync.Mutex
	stubbed := map[string]bool{}
	parse := func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		if bytes.HasPrefix(src, []byte("// "+header+"\n")) {
			if stub, ok := stubOf(src); ok {
				mu.Lock()
				stubbed[filename] = true
				mu.Unlock()
				src = stub
			}
		}
		return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	}
	cfg := &packages.Config{Mode: LoadMode, Dir: dir, ParseFile: parse}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errLoad, err)
	}
	var msgs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			switch {
			case e.Kind == packages.ListError && onlyIn(e.Msg, dir, stubbed):
				// The go command compiled the stale output itself (or
				// the package before its first generation); the stubs
				// and this run's output stand in for it.
				continue
			case e.Kind == packages.TypeError && directive.MissingFormMethod(e.Msg):
				continue
			}
			msgs = append(msgs, e.Error())
		}
	}
	if len(msgs) > 0 {
		sort.Strings(msgs)
		return nil, fmt.Errorf("%w:\n\t%s", errLoad, strings.Join(msgs, "\n\t"))
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%w: no packages match %q", errLoad, patterns)
	}
	out := make([]*loaded, 0, len(pkgs))
	for _, p := range pkgs {
		if len(p.GoFiles) == 0 {
			return nil, fmt.Errorf("%w: package %s has no Go files", errLoad, p.PkgPath)
		}
		out = append(out, &loaded{
			src: &Source{Fset: p.Fset, Files: p.Syntax, Pkg: p.Types, Info: p.TypesInfo},
			dir: filepath.Dir(p.GoFiles[0]),
		})
	}
	return out, nil
}

// onlyIn reports whether every "file:line" line of a go command error
// names one of files (relative names are taken relative to dir) or is a
// missing form method.
func onlyIn(msg, dir string, files map[string]bool) bool {
	found := false
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if directive.MissingFormMethod(line) {
			found = true
			continue
		}
		name, _, ok := strings.Cut(line, ":")
		if !ok {
			return false
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if !files[filepath.Clean(name)] {
			return false
		}
		found = true
	}
	return found
}

// stubOf keeps the package clause and the form methods of a generated
// file, with bodies that only panic. It reads the file as text: elicitgen
// writes each method's signature on one line, and parsing a large
// generated file would cost more than loading the package.
func stubOf(src []byte) ([]byte, bool) {
	var pkg string
	var methods, fields []string
	for _, line := range strings.Split(string(src), "\n") {
		if name, ok := strings.CutPrefix(line, "package "); ok && pkg == "" {
			pkg = strings.TrimSpace(name)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "var "); ok && strings.Contains(rest, " = formimpl.NewChoicesField(") {
			// A choices field's name (contract 5), which handlers use.
			fields = append(fields, rest[:strings.IndexByte(rest, ' ')])
			continue
		}
		if !strings.HasPrefix(line, "func (") || !strings.HasSuffix(line, " {") {
			continue
		}
		if strings.Contains(line, ") ElicitForm() ") || strings.Contains(line, ") ElicitDecode(") {
			methods = append(methods, strings.TrimSuffix(line, " {"))
		}
	}
	if pkg == "" {
		return nil, false
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage %s\n\n", header, pkg)
	if len(methods) > 0 || len(fields) > 0 {
		fmt.Fprintf(&b, "import %q\n\n", formimplPath)
	}
	for _, m := range methods {
		fmt.Fprintf(&b, "%s { panic(\"elicitgen: stub\") }\n", m)
	}
	for _, f := range fields {
		fmt.Fprintf(&b, "var %s formimpl.ChoicesField\n", f)
	}
	return b.Bytes(), true
}
