package gen

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-elicit/elicit/gen/internal/directive"
)

// Config is one run of the generator. The zero Config generates for the
// package in the current directory. cmd/elicitgen fills it from its flags.
type Config struct {
	// Patterns name the packages to load, as for go list, relative to
	// Dir; nil means ".".
	Patterns []string
	// Types are the struct types to generate for, marked or not (like
	// stringer's -type); nil means every type marked //elicit:form.
	Types []string
	// Output is the file to write, which must be in the package's
	// directory (one package only); "" means <package>_elicit.go beside
	// the package's sources.
	Output string
	// Tags is a comma-separated list of build tags to apply when loading.
	Tags string
	// Dir is the directory to run in and to show positions relative to;
	// "" is the current directory.
	Dir string
}

// Result says what a run did.
type Result struct {
	Files   []string // the generated files, written or not
	Written []string // the files whose bytes changed
}

// ConfigError is a Config that cannot work: Output with several
// packages, or outside the package's directory. cmd/elicitgen reports it
// as a usage error.
type ConfigError struct{ msg string }

func (e *ConfigError) Error() string { return e.msg }

// DiagnosticsError holds every problem found in the source, formatted
// "file:line:col: message" (file names relative to Config.Dir when that is
// shorter) and sorted by file, line and column.
type DiagnosticsError struct{ Lines []string }

func (e *DiagnosticsError) Error() string { return strings.Join(e.Lines, "\n") }

// Generate loads the packages cfg names, builds and checks every form, and
// writes one file per package, leaving a file whose bytes did not change
// untouched. On any problem in the source it writes nothing and returns a
// *DiagnosticsError; on a bad cfg, a *ConfigError; when a package does not
// load (it does not compile, or no package matches), an error saying so.
func Generate(cfg Config) (*Result, error) {
	// Absolute, so that positions can be shown relative to it.
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	pkgs, err := load(dir, patterns, cfg.Tags)
	if err != nil {
		return nil, err
	}
	if err := checkContract(dir, cfg.Tags, pkgs); err != nil {
		return nil, err
	}
	if cfg.Output != "" && len(pkgs) > 1 {
		return nil, &ConfigError{fmt.Sprintf("-output needs exactly one package, patterns %q match %d", patterns, len(pkgs))}
	}
	type output struct {
		path string
		src  []byte
	}
	var outs []output
	var diags []positioned
	for _, p := range pkgs {
		forms, ds := build(p.src, cfg.Types)
		ds = append(ds, checkForms(forms)...)
		for _, d := range ds {
			diags = append(diags, positioned{pos: p.src.Fset.Position(d.Pos), msg: d.Message})
		}
		if len(ds) > 0 {
			continue
		}
		if len(forms) == 0 {
			diags = append(diags, positioned{msg: fmt.Sprintf("no forms in package %s: mark a struct type //%s:%s or name it with -type", p.src.Pkg.Path(), directive.Prefix, directive.Form)})
			continue
		}
		src, err := emitForms(p.src.Pkg, forms)
		if err != nil {
			return nil, err
		}
		path := cfg.Output
		if path == "" {
			path = filepath.Join(p.dir, strings.ToLower(p.src.Pkg.Name())+"_elicit.go")
		} else if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		outs = append(outs, output{path, src})
	}
	if cfg.Output != "" && len(outs) == 1 {
		// The output declares methods of the package's types: anywhere
		// else it does not compile, or joins another package.
		if out := filepath.Dir(outs[0].path); !sameDir(out, pkgs[0].dir) {
			return nil, &ConfigError{fmt.Sprintf("-output %s: the file must be in the package directory %s, not %s", cfg.Output, pkgs[0].dir, out)}
		}
	}
	if len(diags) > 0 {
		return nil, &DiagnosticsError{Lines: formatDiagnostics(dir, diags)}
	}
	res := &Result{}
	for _, o := range outs {
		res.Files = append(res.Files, o.path)
		old, err := os.ReadFile(o.path)
		if err == nil && bytes.Equal(old, o.src) {
			continue // unchanged: keep the mtime and the build cache
		}
		if err := os.WriteFile(o.path, o.src, 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, o.path)
	}
	return res, nil
}

// sameDir reports whether a and b name one directory, through symbolic
// links when both exist.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ea, err1 := filepath.EvalSymlinks(a)
	eb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ea == eb
}

type positioned struct {
	pos token.Position
	msg string
}

// formatDiagnostics renders diagnostics compiler-style, sorted by file,
// line, column, with file names as go vet prints them: relative to dir
// (the current directory) when that is shorter.
func formatDiagnostics(dir string, ds []positioned) []string {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].pos, ds[j].pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return ds[i].msg < ds[j].msg
	})
	var lines []string
	for _, d := range ds {
		if !d.pos.IsValid() {
			line := d.msg
			if len(lines) == 0 || lines[len(lines)-1] != line {
				lines = append(lines, line)
			}
			continue
		}
		name := d.pos.Filename
		if rel, err := filepath.Rel(dir, name); err == nil && len(rel) < len(name) {
			name = rel
		}
		line := fmt.Sprintf("%s:%d:%d: %s", name, d.pos.Line, d.pos.Column, d.msg)
		if len(lines) == 0 || lines[len(lines)-1] != line {
			lines = append(lines, line)
		}
	}
	return lines
}
