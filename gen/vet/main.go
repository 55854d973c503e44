package vet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis/singlechecker"
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/go-elicit/elicit/gen"
)

// Main is the whole elicitvet command; manual is its documentation, which
// "elicitvet help" prints. It never returns.
//
//   - "elicitvet help" (or -h, -help, --help) prints the manual.
//   - Run by go vet (-vettool), it is a unitchecker: go vet asks for its
//     flags (-flags) and version (-V=full), then runs it once per package
//     with a .cfg file. When that package does not type-check only because
//     forms lack their generated methods (a handler already calls
//     runtime.Elicit[LoginForm] before the first go generate), it loads
//     the package as elicitgen does, which lets exactly those errors pass,
//     and reports what the analyzer would: the forms' problems, or that
//     their code is not generated. The compiler's "missing method" would
//     hide both.
//   - Otherwise the arguments are go vet's: "elicitvet ./..." runs
//     "go vet -vettool=<this program> ./...", so positions, caching and
//     exit codes are go vet's.
func Main(manual string) {
	args := os.Args[1:]
	switch {
	case len(args) == 0:
		fmt.Fprintln(os.Stderr, "usage: elicitvet [go vet flags] packages\n       go vet -vettool=$(which elicitvet) packages\nRun \"elicitvet help\" for the manual.")
		os.Exit(2)
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Print(manual)
		os.Exit(0)
	case !calledByGoVet(args):
		os.Exit(goVet(args))
	}
	if cfg := args[len(args)-1]; strings.HasSuffix(cfg, ".cfg") && os.Getenv(retryEnv) == "" {
		if code, ok := typeErrorFallback(cfg, os.Stdout, os.Stderr); ok {
			os.Exit(code)
		}
	}
	singlechecker.Main(Analyzer)
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

// goVet runs go vet with this program as its vet tool.
func goVet(args []string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "elicitvet: %v\n", err)
		return 1
	}
	cmd := exec.Command("go", append([]string{"vet", "-vettool=" + self}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "elicitvet: %v\n", err)
		return 1
	}
	return 0
}

// retryEnv marks the unitchecker run that typeErrorFallback starts.
const retryEnv = "ELICITVET_UNITCHECKER"

// typeErrorFallback runs the unit as the unitchecker would, in a child
// process, when the package marks forms; if it failed only because forms
// lack their generated methods, it reports the analyzer's diagnostics from
// a package loaded as elicitgen loads it. ok is false when the unit is
// left to the unitchecker in this process.
func typeErrorFallback(cfgFile string, stdout, stderr io.Writer) (code int, ok bool) {
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		return 0, false
	}
	var cfg unitchecker.Config
	if json.Unmarshal(data, &cfg) != nil || cfg.VetxOnly || !marksForms(cfg.GoFiles) {
		// Dependencies are analysed only for their facts; a package
		// without forms has nothing to fall back to.
		return 0, false
	}
	self, err := os.Executable()
	if err != nil {
		return 0, false
	}
	var childErr bytes.Buffer
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Env = append(os.Environ(), retryEnv+"=1")
	cmd.Stdout, cmd.Stderr = stdout, &childErr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, false
	}
	if err == nil || !onlyMissingMethods(childErr.String()) {
		stderr.Write(childErr.Bytes())
		if err == nil {
			return 0, true
		}
		return exit.ExitCode(), true
	}
	pkgs, err := gen.Load(cfg.Dir, []string{"."}, "")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1, true
	}
	src := pkgs[0].Source
	if !sameFiles(src, cfg.GoFiles) {
		// Built with other tags or files than go vet's: keep its error.
		stderr.Write(childErr.Bytes())
		return exit.ExitCode(), true
	}
	diags := diagnose(src, os.ReadFile)
	if len(diags) == 0 {
		stderr.Write(childErr.Bytes()) // a type that is not a marked form
		return exit.ExitCode(), true
	}
	for _, d := range diags {
		// Absolute positions, as the unitchecker prints them; go vet
		// shortens them.
		fmt.Fprintf(stderr, "%s: %s\n", src.Fset.Position(d.Pos), d.Message)
	}
	return 1, true
}

// marksForms reports whether a file mentions the form directive.
func marksForms(files []string) bool {
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && bytes.Contains(b, []byte(gen.FormDirective)) {
			return true
		}
	}
	return false
}

// onlyMissingMethods reports whether every line of a unitchecker's error
// output is a form's missing generated method.
func onlyMissingMethods(out string) bool {
	found := false
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !gen.MissingFormMethod(line) {
			return false
		}
		found = true
	}
	return found
}

// sameFiles reports whether src was loaded from the non-test files of
// goFiles.
func sameFiles(src *gen.Source, goFiles []string) bool {
	want := map[string]bool{}
	for _, name := range goFiles {
		if !strings.HasSuffix(name, "_test.go") {
			want[filepath.Clean(name)] = true
		}
	}
	if len(src.Files) != len(want) {
		return false
	}
	for _, f := range src.Files {
		if !want[filepath.Clean(src.Fset.File(f.FileStart).Name())] {
			return false
		}
	}
	return true
}
