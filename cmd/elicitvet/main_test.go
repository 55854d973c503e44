package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/gen"
)

// buildVettool builds this command into a temporary directory.
func buildVettool(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "elicitvet")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// scratch makes a directory inside the module (so its packages can import
// the runtime) holding files, and returns it with its import path.
func scratch(t *testing.T, files map[string]string) (dir, importPath string) {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := os.MkdirTemp("testdata", "vet")
	if err != nil {
		t.Fatal(err)
	}
	dir, err = filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	importPath = "github.com/go-elicit/elicit/cmd/elicitvet/testdata/" + filepath.Base(dir)
	for name, src := range files {
		name = filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(strings.ReplaceAll(src, "SCRATCH", importPath)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, importPath
}

// goIn runs the go command in dir.
func goIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

const regionSource = `package region

// Region is where a server runs.
type Region string

const (
	EU Region = "eu" // Europe
	US Region = "us" // United States
)
`

const appSource = `package app

import "SCRATCH/region"

// AppForm asks where to deploy.
//
//elicit:form
type AppForm struct {
	Region region.Region ` + "`json:\"region\"`" + `
}
`

// TestVetWarmCacheCrossPackageTitle runs the real go vet with this tool,
// on a warm cache, before and after an edit of nothing but the comment
// (the title) of an enum constant in another package than the form's. The
// edit changes neither package's export data, so without analysis facts
// go vet reused the form package's cached result and said nothing.
func TestVetWarmCacheCrossPackageTitle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tool and runs go vet")
	}
	bin := buildVettool(t)
	dir, _ := scratch(t, map[string]string{"region/region.go": regionSource, "app/app.go": appSource})
	if _, err := gen.Run(&gen.Config{Dir: filepath.Join(dir, "app"), Patterns: []string{"."}}); err != nil {
		t.Fatal(err)
	}
	vet := func(extra ...string) (string, error) {
		return goIn(dir, append(append([]string{"vet"}, extra...), "-vettool="+bin, "./...")...)
	}
	if out, err := vet(); err != nil {
		t.Fatalf("fresh code: %v\n%s", err, out)
	}
	out, err := vet("-x")
	if err != nil {
		t.Fatalf("fresh code, second run: %v\n%s", err, out)
	}
	if strings.Contains(out, bin) {
		t.Fatalf("the second run did not come from the cache; the test proves nothing:\n%s", out)
	}
	file := filepath.Join(dir, "region", "region.go")
	if err := os.WriteFile(file, []byte(strings.Replace(regionSource, "// Europe", "// European Union", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = vet()
	want := "app/app.go:8:6: generated code for AppForm is out of date (its schema in app_elicit.go differs): run go generate"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("after retitling region.EU: err %v, want %q in:\n%s", err, want, out)
	}
}
