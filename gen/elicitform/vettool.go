package elicitform

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
	"github.com/go-elicit/elicit/gen/internal/directive"
)

// Main runs Analyzer as a go vet tool, with os.Args as go vet passes them
// (the -flags and -V=full queries, then one .cfg file per package), and
// never returns; cmd/elicitvet calls it for go vet's arguments. It differs
// from unitchecker.Main in one case: when a package does not type-check
// only because forms lack their generated methods (a handler already
// calls runtime.Elicit[LoginForm] before the first go generate), it loads
// the package as elicitgen does, which lets exactly those errors pass,
// and reports what the analyzer would: the forms' problems, or that their
// code is not generated. The compiler's "missing method" would hide both.
func Main() {
	args := os.Args[1:]
	if len(args) > 0 && strings.HasSuffix(args[len(args)-1], ".cfg") && os.Getenv(retryEnv) == "" {
		if code, ok := typeErrorFallback(args[len(args)-1], os.Stdout, os.Stderr); ok {
			os.Exit(code)
		}
	}
	singlechecker.Main(Analyzer)
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
	srcs, err := gen.Load(cfg.Dir, []string{"."}, "")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1, true
	}
	src := srcs[0]
	if !sameFiles(src, cfg.GoFiles) {
		// Built with other tags or files than go vet's: keep its error.
		stderr.Write(childErr.Bytes())
		return exit.ExitCode(), true
	}
	diags := gen.Diagnose(src)
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
		if b, err := os.ReadFile(name); err == nil && bytes.Contains(b, []byte(directive.FormComment)) {
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
		if !directive.MissingFormMethod(line) {
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
