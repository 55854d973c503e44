package gen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Main is the whole elicitgen command: it parses args (without the program
// name), generates, and returns the exit code: 0 on success, 1 when the
// source has problems or generation fails, 2 for a usage error. Messages go
// to stderr with the "elicitgen: " prefix; diagnostics are
// "file:line:col: message" lines, all of them, sorted.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("elicitgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	typeNames := fs.String("type", "", "comma-separated list of struct type names to generate for; default: every type marked //elicit:form")
	fs.StringVar(&cfg.Output, "output", "", "output file name; default: <package>_elicit.go in the package directory")
	fs.StringVar(&cfg.Tags, "tags", "", "comma-separated list of build tags to apply when loading the package")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: elicitgen [flags] [package directory or pattern]\n")
		fmt.Fprintf(stderr, "For more information, see: go doc github.com/go-elicit/elicit/cmd/elicitgen\n")
		fmt.Fprintf(stderr, "Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *typeNames != "" {
		for _, n := range strings.Split(*typeNames, ",") {
			if n = strings.TrimSpace(n); n == "" {
				fmt.Fprintf(stderr, "elicitgen: -type: empty type name in %q\n", *typeNames)
				return 2
			}
			cfg.Types = append(cfg.Types, strings.TrimSpace(n))
		}
	}
	cfg.Patterns = fs.Args()
	if len(cfg.Patterns) == 0 {
		cfg.Patterns = []string{"."}
	}
	res, err := Run(&cfg)
	if err != nil {
		var usage *UsageError
		if errors.As(err, &usage) {
			fmt.Fprintf(stderr, "elicitgen: %v\n", err)
			fs.Usage()
			return 2
		}
		var de *DiagnosticsError
		if errors.As(err, &de) {
			for _, line := range de.Lines {
				fmt.Fprintln(stderr, line)
			}
			fmt.Fprintf(stderr, "elicitgen: %d problem%s; nothing written\n", len(de.Lines), plural(len(de.Lines)))
			return 1
		}
		fmt.Fprintf(stderr, "elicitgen: %v\n", err)
		return 1
	}
	_, _ = res, stdout // like stringer, elicitgen says nothing on success
	return 0
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Config is one elicitgen run.
type Config struct {
	Patterns []string // packages to load, as for go list; "." by default
	Types    []string // -type; nil means every //elicit:form type
	Output   string   // -output; "" means <package>_elicit.go beside the sources
	Tags     string   // -tags
	// Dir is the directory to run in and to show positions relative to;
	// "" is the current directory.
	Dir string
}

// Result says what a run did.
type Result struct {
	Files   []string // the generated files, written or not
	Written []string // the files whose bytes changed
}

// UsageError is a bad command line.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// DiagnosticsError holds every problem found in the source, formatted
// "file:line:col: message" and sorted.
type DiagnosticsError struct{ Lines []string }

func (e *DiagnosticsError) Error() string { return strings.Join(e.Lines, "\n") }

// Run generates code for cfg. On any problem in the source it writes
// nothing and returns a *DiagnosticsError.
func Run(cfg *Config) (*Result, error) {
	dir := cfg.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	pkgs, err := Load(dir, cfg.Patterns, cfg.Tags)
	if err != nil {
		return nil, err
	}
	if err := checkContract(dir, cfg.Tags, pkgs); err != nil {
		return nil, err
	}
	if cfg.Output != "" && len(pkgs) > 1 {
		return nil, &UsageError{fmt.Sprintf("-output needs exactly one package, patterns %q match %d", cfg.Patterns, len(pkgs))}
	}
	type output struct {
		path string
		src  []byte
	}
	var outs []output
	var diags []positioned
	for _, p := range pkgs {
		forms, ds := Build(p.Source, cfg.Types)
		ds = append(ds, Check(forms)...)
		for _, d := range ds {
			diags = append(diags, positioned{pos: p.Source.Fset.Position(d.Pos), msg: d.Message})
		}
		if len(ds) > 0 {
			continue
		}
		if len(forms) == 0 {
			diags = append(diags, positioned{msg: fmt.Sprintf("no forms in package %s: mark a struct type //%s:%s or name it with -type", p.Source.Pkg.Path(), DirectivePrefix, DirectiveForm)})
			continue
		}
		src, err := Emit(p.Source.Pkg, forms)
		if err != nil {
			return nil, err
		}
		path := cfg.Output
		if path == "" {
			path = filepath.Join(p.Dir, strings.ToLower(p.Source.Pkg.Name())+"_elicit.go")
		} else if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		outs = append(outs, output{path, src})
	}
	if cfg.Output != "" && len(outs) == 1 {
		// The output declares methods of the package's types: anywhere
		// else it does not compile, or joins another package.
		if out := filepath.Dir(outs[0].path); !sameDir(out, pkgs[0].Dir) {
			return nil, &UsageError{fmt.Sprintf("-output %s: the file must be in the package directory %s, not %s", cfg.Output, pkgs[0].Dir, out)}
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
