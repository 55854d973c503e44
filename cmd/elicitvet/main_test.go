package main

import (
	"errors"
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
	if _, err := gen.Generate(gen.Config{Dir: filepath.Join(dir, "app"), Patterns: []string{"."}}); err != nil {
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

const loginForm = `package app

import (
	"context"

	"github.com/go-elicit/elicit/runtime"
)

//elicit:form
type LoginForm struct {
	User string ` + "`json:\"user\"`" + `
	BAD
}

// ask uses the form before its first go generate.
func ask(ctx context.Context) (LoginForm, error) {
	return runtime.Elicit[LoginForm](ctx, "Who are you?")
}
`

// diagnosticLines keeps the file:line:col lines of go command output.
func diagnosticLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Count(l, ":") >= 3 && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestVetMissingGeneratedMethods vets, with the real go vet, a package
// that calls runtime.Elicit[LoginForm] before LoginForm's code was ever
// generated. Its type check fails only for the missing methods; elicitvet
// reports the form's own problems, then that the code is not generated,
// instead of the compiler's "missing method". Diagnostics read as
// elicitgen's, paths and all, and "elicitvet ./..." prints what go vet
// prints.
func TestVetMissingGeneratedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tool and runs go vet")
	}
	bin := buildVettool(t)
	bad := strings.Replace(loginForm, "BAD", "Tags map[string]string `json:\"tags\"`", 1)
	dir, _ := scratch(t, map[string]string{"app/login.go": bad})
	vetOut, err := goIn(dir, "vet", "-vettool="+bin, "./...")
	if err == nil {
		t.Fatalf("go vet passed:\n%s", vetOut)
	}
	if strings.Contains(vetOut, "missing method") {
		t.Errorf("the compiler's error hides the form's problems:\n%s", vetOut)
	}
	// elicitgen, run from the same directory, reports the same lines.
	var genErr strings.Builder
	cmd := exec.Command("go", "run", "github.com/go-elicit/elicit/cmd/elicitgen", "./app")
	cmd.Dir, cmd.Stderr = dir, &genErr
	if cmd.Run() == nil {
		t.Fatal("elicitgen accepted a map field")
	}
	want := diagnosticLines(genErr.String())
	if len(want) == 0 {
		t.Fatalf("elicitgen printed no diagnostic:\n%s", genErr.String())
	}
	if got := diagnosticLines(vetOut); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("go vet and elicitgen disagree:\ngo vet:\n%s\nelicitgen:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range want {
		if !strings.HasPrefix(l, "app/login.go:") {
			t.Errorf("path not relative to the current directory: %s", l)
		}
	}

	// The form fixed, still not generated: that is what is reported.
	if err := os.WriteFile(filepath.Join(dir, "app", "login.go"), []byte(strings.Replace(loginForm, "BAD\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	vetOut, err = goIn(dir, "vet", "-vettool="+bin, "./...")
	wantLine := "app/login.go:10:6: no generated code for LoginForm (there is no app_elicit.go): run go generate"
	if err == nil || !strings.Contains(vetOut, wantLine) || strings.Contains(vetOut, "missing method") {
		t.Errorf("not generated: err %v, want %q in:\n%s", err, wantLine, vetOut)
	}
	// elicitvet on its own runs go vet with itself.
	cmd = exec.Command(bin, "./...")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Join(diagnosticLines(string(out)), "\n") != strings.Join(diagnosticLines(vetOut), "\n") {
		t.Errorf("elicitvet ./... (err %v) differs from go vet:\n%s\n--- go vet ---\n%s", err, out, vetOut)
	}

	if _, err := gen.Generate(gen.Config{Dir: filepath.Join(dir, "app"), Patterns: []string{"."}}); err != nil {
		t.Fatal(err)
	}
	if out, err := goIn(dir, "vet", "-vettool="+bin, "./..."); err != nil {
		t.Errorf("generated: %v\n%s", err, out)
	}
}

// TestHelp: "elicitvet help" and -h print the manual, the package doc.
func TestHelp(t *testing.T) {
	bin := buildVettool(t)
	for _, arg := range []string{"help", "-h", "--help"} {
		out, err := exec.Command(bin, arg).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "go vet -vettool=$(which elicitvet) ./...") || !strings.HasPrefix(string(out), "Elicitvet runs") {
			t.Errorf("elicitvet %s: err %v\n%s", arg, err, out)
		}
	}
	out, err := exec.Command(bin).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "elicitvet help") {
		t.Errorf("no arguments: err %v\n%s", err, out)
	}
}
