// Package internal_test enforces the repository's layout: what ships never
// depends on a program or on test support, the runtime never depends on the
// generator, programs live where programs go, docs/layout.md lists the
// tree line for line, and an adopter of the root module gets none
// of the heavy modules that only the adapters, natscluster, the golangci
// plugin, the examples and the developer programs need (docs/modules.md).
// The import rules are read from `go list -json` over every module of
// go.work, so a new import that breaks one fails here with both ends named.
package internal_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/go-elicit/elicit"

// shippedInternals are the packages under internal/ that ship: code that
// cmd/, gen/ or runtime/ compiles in. Adding one is a decision, so it is a
// line here.
var shippedInternals = []string{
	"internal/formcore",  // what generated code runs on, behind runtime/formimpl
	"internal/mcpclient", // the client behind cmd/mcptest and runtime/elicittest
	"internal/roundtrip", // answer routing state, runtime
	"internal/subset",    // the schema subset checker, gen and runtime
}

// testOnly are the folders of test support inside cmd/, gen and runtime:
// only tests compile them, so no shipped package may depend on them.
var testOnly = []string{
	"gen/internal/benchform",
	"gen/internal/goldencheck",
	"runtime/internal/adaptertest",
	"runtime/internal/netfault",
	"runtime/internal/testform",
}

// listedPackage is the part of `go list -json` the rules read.
type listedPackage struct {
	ImportPath string
	Name       string
	Deps       []string
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// rel is an import path relative to the module ("" for the root).
func rel(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, module+"/")
	return r, ok
}

// under reports whether the module-relative path p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// hasElement reports whether the slash-separated path p has elem as one of
// its elements.
func hasElement(p, elem string) bool {
	return slices.Contains(strings.Split(p, "/"), elem)
}

// workModules returns the directories of go.work's modules, relative to
// the repository root ("." for the root module).
func workModules(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "work", "edit", "-json")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", err)
	}
	var work struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &work); err != nil {
		t.Fatalf("reading go work edit -json: %v", err)
	}
	var dirs []string
	for _, u := range work.Use {
		dirs = append(dirs, path.Clean(u.DiskPath))
	}
	if !slices.Contains(dirs, ".") {
		t.Fatalf("go.work does not use the root module: %v", dirs)
	}
	return dirs
}

// listModule runs `go list -json` over every package of every module of
// go.work.
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	var pkgs []listedPackage
	for _, dir := range workModules(t) {
		pkgs = append(pkgs, goList(t, dir, "-e", "-json=ImportPath,Name,Deps,Error", "./...")...)
	}
	return pkgs
}

// goList runs `go list args...` in the module directory dir (relative to
// the repository root) and decodes the packages it prints; env is added to
// the environment.
func goList(t *testing.T, dir string, args ...string) []listedPackage {
	t.Helper()
	return goListEnv(t, dir, nil, args...)
}

func goListEnv(t *testing.T, dir string, env []string, args ...string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = filepath.Join("..", dir) // this test runs in internal/
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list output: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list in %s: %s: %s", dir, p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %s in %s listed no package", strings.Join(args, " "), dir)
	}
	return pkgs
}

// moduleDeps returns the module-relative paths of p's dependencies inside
// the module, sorted.
func moduleDeps(p listedPackage) []string {
	var deps []string
	for _, d := range p.Deps {
		if r, ok := rel(d); ok {
			deps = append(deps, r)
		}
	}
	slices.Sort(deps)
	return deps
}

// shippedRoot reports whether the module-relative path p is a package an
// adopter imports or installs: under cmd/, gen or runtime, outside any
// internal/ folder.
func shippedRoot(p string) bool {
	return (under(p, "cmd") || under(p, "gen") || under(p, "runtime")) && !hasElement(p, "internal")
}

func TestShippedPackagesDependOnNoProgramAndNoTestSupport(t *testing.T) {
	roots := 0
	for _, p := range listModule(t) {
		r, _ := rel(p.ImportPath)
		if !shippedRoot(r) {
			continue
		}
		roots++
		deps := moduleDeps(p)
		t.Logf("%s ships with: %s", r, strings.Join(deps, " "))
		for _, d := range deps {
			switch {
			case under(d, "internal/cmd"):
				t.Errorf("%s ships and depends on the program %s: move what it needs out of internal/cmd into a shipped package", r, d)
			case under(d, "internal/testsupport"):
				t.Errorf("%s ships and depends on the test support %s: shipped code may not import internal/testsupport; move what it needs into a shipped package", r, d)
			case slices.ContainsFunc(testOnly, func(dir string) bool { return under(d, dir) }):
				t.Errorf("%s ships and depends on %s, which only tests may compile: move what it needs into a shipped package", r, d)
			case under(d, "cmd"), under(d, "gen"), under(d, "runtime"):
			case slices.Contains(shippedInternals, d):
			default:
				t.Errorf("%s ships and depends on %s, which is not a shipped package: add it to shippedInternals in internal/layout_test.go and to docs/layout.md if it is meant to ship, or drop the import", r, d)
			}
		}
	}
	if roots == 0 {
		t.Fatal("no shipped package found under cmd/, gen or runtime")
	}
}

func TestRuntimeDependsOnNoGenerator(t *testing.T) {
	for _, p := range listModule(t) {
		r, _ := rel(p.ImportPath)
		if !under(r, "runtime") {
			continue
		}
		for _, d := range moduleDeps(p) {
			if under(d, "gen") {
				t.Errorf("%s depends on %s: the runtime may not depend on the generator (a server would link the code generator); move what both need into runtime or a shipped internal package", r, d)
			}
		}
	}
}

// TestShippedPackagesUseOnlyTheOpenTelemetryAPI: what ships imports
// OpenTelemetry's API, never its SDK or an exporter, which are the
// application's choice (docs/modules.md).
func TestShippedPackagesUseOnlyTheOpenTelemetryAPI(t *testing.T) {
	sawAPI := false
	for _, p := range listModule(t) {
		r, ok := rel(p.ImportPath)
		if !ok || !shippedRoot(r) {
			continue
		}
		for _, d := range p.Deps {
			switch {
			case d == "go.opentelemetry.io/otel/trace":
				sawAPI = true
			case strings.HasPrefix(d, "go.opentelemetry.io/otel/sdk"), strings.HasPrefix(d, "go.opentelemetry.io/otel/exporters"):
				t.Errorf("%s ships and depends on %s: shipped code uses only the OpenTelemetry API (otel, otel/trace, otel/metric)", r, d)
			}
		}
	}
	if !sawAPI {
		t.Fatal("no shipped package depends on go.opentelemetry.io/otel/trace: is the runtime still instrumented?")
	}
}

func TestProgramsLiveInCmdOrExamples(t *testing.T) {
	for _, p := range listModule(t) {
		r, _ := rel(p.ImportPath)
		inProgramDir := under(r, "cmd") || under(r, "internal/cmd") || under(r, "examples")
		switch {
		case p.Name == "main" && !inProgramDir:
			t.Errorf("%s is a program (package main) outside cmd/, internal/cmd/ and examples/: move it to cmd/ if it ships, to internal/cmd/ if it is a developer program", r)
		case p.Name != "main" && under(r, "internal/cmd"):
			t.Errorf("%s is a library (package %s) under internal/cmd/, which holds only programs: move it to internal/testsupport/ or to a shipped package", r, p.Name)
		}
	}
}

// layoutDoc returns the first field of every line of the code block under
// docs/layout.md's "# Layout" heading, and the lines that have no
// description.
func layoutDoc(t *testing.T) (dirs, bare []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	section, inBlock := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") && !inBlock:
			if section {
				return dirs, bare
			}
			section = line == "# Layout"
		case section && strings.HasPrefix(line, "```"):
			if inBlock {
				return dirs, bare
			}
			inBlock = true
		case inBlock:
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			dirs = append(dirs, fields[0])
			if len(fields) == 1 {
				bare = append(bare, fields[0])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatal("docs/layout.md has no code block under \"# Layout\"")
	return nil, nil
}

// treeDirs returns the module's directories that hold a file git tracks or
// would track (not ignored: so not .tools, bin, node_modules, nor what a
// running test writes under an ignored folder), as `find . -type d | sort`
// names them: "." for the root, no "./" prefix; empty ones are left out.
func treeDirs(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git ls-files: %v (CI needs a git work tree to check docs/layout.md)", err)
		}
		t.Skipf("git ls-files: %v: docs/layout.md is checked in a git work tree only", err)
	}
	seen := map[string]bool{".": true}
	for _, file := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		for dir := path.Dir(file); dir != "." && !seen[dir]; dir = path.Dir(dir) {
			seen[dir] = true
		}
	}
	dirs := make([]string, 0, len(seen))
	for dir := range seen {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	return dirs
}

func TestLayoutDocMatchesTree(t *testing.T) {
	listed, bare := layoutDoc(t)
	for _, dir := range bare {
		t.Errorf("docs/layout.md: %s has no description: add one phrase after it", dir)
	}
	if !slices.IsSorted(listed) {
		t.Errorf("docs/layout.md: the directories are not in sorted order: list them as find . -type d | sort does")
	}
	tree := treeDirs(t)
	for _, dir := range tree {
		if !slices.Contains(listed, dir) {
			t.Errorf("docs/layout.md lacks %s: add a line for it with one phrase", dir)
		}
	}
	for _, dir := range listed {
		if !slices.Contains(tree, dir) {
			t.Errorf("docs/layout.md lists %s, which is not in the tree: remove its line", dir)
		}
	}
}
