package internal_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// heavyModules are the modules an adopter of the root module must not get:
// each is needed only by a module of its own (docs/modules.md).
var heavyModules = []string{
	"github.com/modelcontextprotocol/go-sdk", // runtime/gosdk, examples, internal/cmd
	"github.com/mark3labs/mcp-go",            // runtime/mcpgo, examples/mcpgo, internal/cmd
	"github.com/nats-io/nats-server/v2",      // runtime/natscluster, internal/cmd
	"github.com/nats-io/nats.go",             // runtime/natscluster, internal/cmd
	"github.com/golangci/",                   // gen/elicitform/golangci (a prefix: every golangci module)
}

// heavy returns the entry of heavyModules that the module path mod is, or "".
func heavy(mod string) string {
	for _, h := range heavyModules {
		if mod == h || strings.HasSuffix(h, "/") && strings.HasPrefix(mod, h) {
			return h
		}
	}
	return ""
}

// TestRootModuleRequiresNoHeavyModule: no package of the root module, tests
// included, resolves to a heavy module, read with GOWORK=off so that the
// workspace (where the adapters' modules provide go-sdk and the rest) cannot
// hide an import the root's go.mod does not cover.
func TestRootModuleRequiresNoHeavyModule(t *testing.T) {
	pkgs := goListEnv(t, ".", []string{"GOWORK=off"}, "-e", "-deps", "-test", "-json=ImportPath,Module,Error", "./...")
	for _, p := range pkgs {
		if p.Module == nil {
			continue
		}
		if h := heavy(p.Module.Path); h != "" {
			t.Errorf("the root module needs %s (package %s): only its own module may import it; move the import to runtime/gosdk, runtime/mcpgo, runtime/natscluster, gen/elicitform/golangci, examples or internal/cmd (docs/modules.md)", p.Module.Path, p.ImportPath)
		}
	}
}

// TestAdopterModuleGraph builds the module graph of an adopter: a scratch
// module outside the repository that imports runtime and runs elicitgen as
// a tool, with the root module replaced by this checkout. None of the heavy
// modules may be in it. It needs the module cache (or GOPROXY) for tidy.
func TestAdopterModuleGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the adopter's go mod tidy is skipped")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/adopter\n\ngo 1.26.0\n\nrequire "+module+" v0.0.0\n\nreplace "+module+" => "+repo+"\n\ntool "+module+"/cmd/elicitgen\n")
	write("main.go", "package main\n\nimport \"github.com/go-elicit/elicit/runtime\"\n\nfunc main() { _ = runtime.NewServer }\n")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s in the adopter: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return string(out)
	}
	run("mod", "tidy")
	graph := strings.Split(strings.TrimSpace(run("mod", "graph")), "\n")
	modules := map[string]bool{}
	for _, edge := range graph {
		for _, end := range strings.Fields(edge) {
			mod, _, _ := strings.Cut(end, "@")
			modules[mod] = true
			if h := heavy(mod); h != "" {
				t.Errorf("an adopter of runtime and elicitgen gets %s in its module graph (edge %q): the root module must not require it (docs/modules.md)", end, edge)
			}
		}
	}
	t.Logf("the adopter's module graph: %d edges, %d modules", len(graph), len(modules))
}

// TestEveryModuleInWorkAndMakefile: every go.mod of the tree is a module of
// go.work and of the Makefile's MODULES, and nothing else is.
func TestEveryModuleInWorkAndMakefile(t *testing.T) {
	var tree []string
	for _, dir := range treeDirs(t) {
		if _, err := os.Stat(filepath.Join("..", dir, "go.mod")); err == nil {
			tree = append(tree, dir)
		}
	}
	work := workModules(t)
	slices.Sort(work)
	if !slices.Equal(tree, work) {
		t.Errorf("go.work uses %v; the tree's modules are %v: add or remove a use line", work, tree)
	}
	makefile, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MODULES \?= ((?:.*\\\n)*.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile has no MODULES ?= line")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\\n", " "))
	slices.Sort(listed)
	if !slices.Equal(tree, listed) {
		t.Errorf("the Makefile's MODULES are %v; the tree's modules are %v", listed, tree)
	}
}

// TestEveryModuleStandsAlone: every module's packages and tests resolve
// with GOWORK=off, from its own go.mod and go.sum (its replace directives
// take the repository's other modules from their directories).
func TestEveryModuleStandsAlone(t *testing.T) {
	for _, dir := range workModules(t) {
		goListEnv(t, dir, []string{"GOWORK=off"}, "-e", "-deps", "-test", "-json=ImportPath,Error", "./...")
	}
}
