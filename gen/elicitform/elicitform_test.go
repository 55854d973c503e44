package elicitform_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/go-elicit/elicit/gen/elicitform"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), elicitform.Analyzer, "a")
}

// TestStale runs the analyzer on a package whose generated file predates
// edits to its forms. The package needs the runtime, so it is copied into
// a module made here that requires this one, with this module's
// requirements and sums: nothing to keep in step by hand.
func TestStale(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []string
	for _, m := range regexp.MustCompile(`(?s)require \((.*?)\)`).FindAllSubmatch(mod, -1) {
		for _, line := range strings.Split(string(m[1]), "\n") {
			if line, _, _ = strings.Cut(line, "//"); strings.TrimSpace(line) != "" {
				reqs = append(reqs, "\t"+strings.TrimSpace(line)+" // indirect")
			}
		}
	}
	dir := t.TempDir()
	gomod := "module example.com/stale\n\ngo 1.26.0\n\nrequire github.com/go-elicit/elicit v0.0.0\n\nrequire (\n" +
		strings.Join(reqs, "\n") + "\n)\n\nreplace github.com/go-elicit/elicit => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "deploy"), os.DirFS(filepath.Join("testdata", "stale", "deploy"))); err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, elicitform.Analyzer, "example.com/stale/deploy")
}
