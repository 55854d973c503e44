package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mainForm = `package demo

//elicit:form
type DemoForm struct {
	Name string ` + "`json:\"name\" jsonschema:\"maxLength=10\"`" + `
}
`

// scratchPackage writes a package into a new directory inside the module
// (so that go list resolves it) and returns the directory.
func scratchPackage(t *testing.T, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	rel, err := os.MkdirTemp("testdata", "scratch")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runMain runs the command with args and returns its exit status and
// what it wrote to standard error.
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, &stderr)
	return code, stderr.String()
}

func TestMainUsage(t *testing.T) {
	for _, args := range [][]string{{"-nosuchflag"}, {"-type", "A,,B", "."}} {
		code, stderr := runMain(t, args...)
		if code != 2 {
			t.Errorf("run(%q) = %d, want 2; stderr:\n%s", args, code, stderr)
		}
		if !strings.Contains(stderr, "usage: elicitgen") && !strings.HasPrefix(stderr, "elicitgen: ") {
			t.Errorf("run(%q) stderr lacks usage or prefix:\n%s", args, stderr)
		}
	}
	if code, _ := runMain(t, "-h"); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
}

func TestMainOutputFlag(t *testing.T) {
	dir := scratchPackage(t, map[string]string{"demo.go": mainForm})
	out := filepath.Join(dir, "custom_name.go")
	if code, stderr := runMain(t, "-output", out, dir); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo_elicit.go")); !os.IsNotExist(err) {
		t.Errorf("default output written despite -output")
	}
}

func TestMainOutputOutsidePackage(t *testing.T) {
	dir := scratchPackage(t, map[string]string{"demo.go": mainForm})
	out := filepath.Join(filepath.Dir(dir), "elsewhere_elicit.go")
	code, stderr := runMain(t, "-output", out, dir)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, stderr)
	}
	if want := "the file must be in the package directory"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written outside the package: %v", err)
	}
}

func TestMainDiagnostics(t *testing.T) {
	dir := scratchPackage(t, map[string]string{"demo.go": `package demo

//elicit:form
type DemoForm struct {
	B map[string]int ` + "`json:\"b\"`" + `
	A []string       ` + "`json:\"a\"`" + `
}
`})
	code, stderr := runMain(t, dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 diagnostics and a summary, got:\n%s", stderr)
	}
	if !strings.HasSuffix(lines[0], "demo.go:5:2: field B: map map[string]int is not allowed: elicitation forms are flat") ||
		!strings.Contains(lines[1], "demo.go:6:2: field A: slice []string") {
		t.Errorf("diagnostics not as expected:\n%s", stderr)
	}
	if lines[2] != "elicitgen: 2 problems; nothing written" {
		t.Errorf("summary = %q", lines[2])
	}
	if _, err := os.Stat(filepath.Join(dir, "demo_elicit.go")); !os.IsNotExist(err) {
		t.Errorf("output written despite diagnostics")
	}
}

func TestMainLoadError(t *testing.T) {
	dir := scratchPackage(t, map[string]string{"demo.go": "package demo\n\nvar x int = \"s\"\n"})
	code, stderr := runMain(t, dir)
	if code != 1 || !strings.HasPrefix(stderr, "elicitgen: cannot load packages") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

func TestMainNoForms(t *testing.T) {
	dir := scratchPackage(t, map[string]string{"demo.go": "package demo\n\ntype T struct{}\n"})
	code, stderr := runMain(t, dir)
	if code != 1 || !strings.Contains(stderr, "no forms in package") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

func TestMainTags(t *testing.T) {
	tagged := "//go:build special\n\n" + mainForm
	dir := scratchPackage(t, map[string]string{"demo.go": tagged, "other.go": "package demo\n"})
	if code, stderr := runMain(t, dir); code != 1 || !strings.Contains(stderr, "no forms in package") {
		t.Errorf("without -tags: exit %d:\n%s", code, stderr)
	}
	if code, stderr := runMain(t, "-tags", "special", dir); code != 0 {
		t.Fatalf("with -tags: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo_elicit.go")); err != nil {
		t.Error(err)
	}
}
