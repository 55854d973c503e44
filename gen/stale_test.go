package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const staleSource = `package deploy

// Environment is where to deploy.
type Environment string

const (
	Staging    Environment = "staging"    // Staging environment
	Production Environment = "production" // Production environment
)

// DeployForm asks where to deploy.
//
//elicit:form
type DeployForm struct {
	// Env is the target.
	Env    Environment ` + "`json:\"env\"`" + `
	Reason string      ` + "`json:\"reason\" validate:\"min=3\"`" + `
}
`

// generateDoc is a file with the package's //go:generate line.
const generateDoc = "// Package deploy is a test's.\npackage deploy\n\n" + generateLine + "\n"

// staleCase writes a package from src (with doc.go, its //go:generate
// line, when withLine), generates it, then replaces the source with edited
// and runs stale on the result.
func staleCase(t *testing.T, dir, src, edited string, withLine bool) []string {
	t.Helper()
	if withLine {
		if err := os.WriteFile(filepath.Join(dir, "doc.go"), []byte(generateDoc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "deploy.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgs, err := Load(dir, []string{"."}, "")
	if err != nil {
		t.Fatal(err)
	}
	src2 := pkgs[0]
	var got []string
	for _, d := range stale(src2, os.ReadFile) {
		p := src2.Fset.Position(d.Pos)
		got = append(got, filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line)+": "+d.Message)
	}
	return got
}

func TestStale(t *testing.T) {
	root := goldenRoot(t)
	const formLine = "deploy.go:14: "
	cases := []struct {
		name   string
		edited string
		want   []string
	}{
		{"unchanged", staleSource, nil},
		{"constant added", strings.Replace(staleSource, "\tProduction ", "\tCanary Environment = \"canary\" // Canary\n\tProduction ", 1),
			[]string{"deploy.go:15: generated code for DeployForm is out of date (its schema in deploy_elicit.go differs): run go generate"}},
		{"title changed", strings.Replace(staleSource, "// Staging environment", "// Staging", 1),
			[]string{formLine + "generated code for DeployForm is out of date (its schema in deploy_elicit.go differs): run go generate"}},
		{"description changed", strings.Replace(staleSource, "// Env is the target.", "// Env is where it goes.", 1),
			[]string{formLine + "generated code for DeployForm is out of date (its schema in deploy_elicit.go differs): run go generate"}},
		{"validate tag changed", strings.Replace(staleSource, `validate:"min=3"`, `validate:"min=3,alpha"`, 1),
			[]string{formLine + "generated code for DeployForm is out of date (its struct tag check in deploy_elicit.go differs): run go generate"}},
		{"form added", staleSource + "\n//elicit:form\ntype OtherForm struct {\n\tName string `json:\"name\"`\n}\n",
			[]string{"deploy.go:21: generated code for OtherForm is out of date (deploy_elicit.go has none): run go generate"}},
		// go generate would do nothing: the report says which line to add.
		{"no go:generate line", strings.Replace(staleSource, "// Staging environment", "// Staging", 1),
			[]string{formLine + "generated code for DeployForm is out of date (its schema in deploy_elicit.go differs): run go generate once deploy.go has the line //go:generate go tool elicitgen (no //go:generate line of package deploy runs elicitgen; the line needs the tool: go get -tool github.com/go-elicit/elicit/cmd/elicitgen)"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, "stale"+strconv.Itoa(i))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			got := staleCase(t, dir, staleSource, c.edited, c.name != "no go:generate line")
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("Stale:\n got: %q\nwant: %q", got, c.want)
			}
		})
	}
}

// TestEnumGuardFailsBuild changes an enum constant's value after
// generation: the package must stop compiling at the guard.
func TestEnumGuardFailsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root := goldenRoot(t)
	dir := filepath.Join(root, "guard")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "deploy.go")
	if err := os.WriteFile(file, []byte(staleSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	build := func() (string, error) {
		cmd := exec.Command("go", "build", ".")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := build(); err != nil {
		t.Fatalf("fresh output does not build: %v\n%s", err, out)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(staleSource, `"staging"`, `"stage"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := build()
	if err == nil {
		t.Fatal("the package still builds after an enum constant changed its value")
	}
	// The compiler prints the duplicate key, which says what to do.
	if !strings.Contains(out, "deploy_elicit.go") || !strings.Contains(out, `duplicate key "Staging is no longer \"staging\": run go generate`) {
		t.Errorf("build error does not point at the guard, or does not say to run go generate:\n%s", out)
	}
	// A value that sorts after the old one trips the other pair of keys.
	if err := os.WriteFile(file, []byte(strings.Replace(staleSource, `"staging"`, `"testing"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = build()
	if err == nil || !strings.Contains(out, "deploy_elicit.go") || !strings.Contains(out, "run go generate") {
		t.Errorf("value after the old one: err %v\n%s", err, out)
	}
	// A field whose type changed: the conversion guard names its alias.
	if err := os.WriteFile(file, []byte(strings.Replace(staleSource, "Reason string", "Reason []byte", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = build()
	if err == nil || !strings.Contains(out, "cannot convert elicit_DeployForm_changed_run_go_generate{}") || strings.Contains(out, "struct{") {
		t.Errorf("changed field type: err %v\n%s", err, out)
	}
}

// TestStaleNeverGenerated: a package with a form and no generated file at
// all gets a report at the form. When no //go:generate line of the package
// runs elicitgen, go generate would do nothing: the report says which line
// to add, and to which file.
func TestStaleNeverGenerated(t *testing.T) {
	const (
		plain = "demo.go: no generated code for DemoForm (there is no demo_elicit.go): run go generate"
		hint  = plain + " once demo.go has the line //go:generate go tool elicitgen (no //go:generate line of package demo runs elicitgen; the line needs the tool: go get -tool github.com/go-elicit/elicit/cmd/elicitgen)"
	)
	other := func(directive string) string {
		return "package demo\n\n" + directive + "\n\n// Plain is no form.\ntype Plain struct{}\n"
	}
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no line", map[string]string{"demo.go": mainForm, "other.go": other("")}, hint},
		{"go tool", map[string]string{"demo.go": mainForm, "other.go": other("//go:generate go tool elicitgen")}, plain},
		{"go run", map[string]string{"demo.go": mainForm, "other.go": other("//go:generate\tgo run github.com/go-elicit/elicit/cmd/elicitgen -type DemoForm")}, plain},
		// go generate reads test files too; the loaded package has none.
		{"in a test file", map[string]string{"demo.go": mainForm, "other.go": other(""), "demo_test.go": other("//go:generate go tool elicitgen")}, plain},
		{"another generator", map[string]string{"demo.go": mainForm, "other.go": other("//go:generate go tool stringer -type Plain")}, hint},
		// Not at the start of its line: go generate does not read it.
		{"indented", map[string]string{"demo.go": mainForm, "other.go": "package demo\n\n// Plain is no form.\ntype Plain struct {\n\t//go:generate go tool elicitgen\n}\n"}, hint},
		{"misspelt directive", map[string]string{"demo.go": mainForm, "other.go": other("//go:generateelicitgen")}, hint},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := scratchPackage(t, c.files)
			pkgs, err := Load(dir, []string{"."}, "")
			if err != nil {
				t.Fatal(err)
			}
			src := pkgs[0]
			var got []string
			for _, d := range stale(src, os.ReadFile) {
				got = append(got, filepath.Base(src.Fset.Position(d.Pos).Filename)+": "+d.Message)
			}
			if strings.Join(got, "\n") != c.want {
				t.Errorf("Stale:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}
