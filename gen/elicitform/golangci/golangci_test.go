package golangci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golangci/plugin-module-register/register"

	"github.com/go-elicit/elicit/gen/elicitform"
)

func TestPlugin(t *testing.T) {
	newPlugin, err := register.GetPlugin("elicitform")
	if err != nil {
		t.Fatal(err)
	}
	for _, settings := range []any{nil, map[string]any{}} {
		p, err := newPlugin(settings)
		if err != nil {
			t.Fatalf("settings %v: %v", settings, err)
		}
		as, err := p.BuildAnalyzers()
		if err != nil || len(as) != 1 || as[0] != elicitform.Analyzer {
			t.Errorf("BuildAnalyzers() = %v, %v; want elicit's analyzer", as, err)
		}
		if m := p.GetLoadMode(); m != register.LoadModeTypesInfo {
			t.Errorf("GetLoadMode() = %q, want %q", m, register.LoadModeTypesInfo)
		}
	}
	_, err = New(map[string]any{"strict": true})
	if err == nil || !strings.Contains(err.Error(), `elicitform takes no settings`) || !strings.Contains(err.Error(), `"strict"`) {
		t.Errorf("New with a setting: %v; want an error naming it", err)
	}
}

// The golangci-lint release the test builds, and docs/editors.md documents.
const (
	golangciModule  = "github.com/golangci/golangci-lint/v2"
	golangciVersion = "v2.15.0"
	golangciRepo    = "https://github.com/golangci/golangci-lint.git"
)

// TestCustomBinary does what an adopter does, with docs/editors.md's own
// .custom-gcl.yml and .golangci.yml: it installs golangci-lint, runs
// "golangci-lint custom" to build a binary with this plugin, and runs that
// binary on a package with a broken form and a stale generated file.
//
// "golangci-lint custom" clones golangci-lint's git repository from
// GitHub at the configured tag. With no network but the module proxy,
// the clone comes from a local git repository made from the module
// proxy's copy of the same release, which git substitutes for the GitHub
// URL (url.<base>.insteadOf, passed in GIT_CONFIG_* variables, which
// "custom" hands on to git); everything else is golangci-lint's own code.
//
// It needs the module proxy. Where the proxy cannot be reached it skips,
// saying so, except under CI=true, where it fails.
func TestCustomBinary(t *testing.T) {
	ci := os.Getenv("CI") == "true"
	if testing.Short() && !ci {
		t.Skip("builds golangci-lint twice (minutes on a cold build cache); skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	if _, err := exec.LookPath("git"); err != nil {
		if ci {
			t.Fatalf("golangci-lint custom needs git: %v; CI must run this test", err)
		}
		t.Skipf("golangci-lint custom needs git: %v: skipping the golangci-lint plugin test", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")

	// The release's source, as the module proxy serves it.
	out, err := command(ctx, tmp, nil, "go", "mod", "download", "-json", golangciModule+"@"+golangciVersion)
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal([]byte(out), &mod); err != nil || jerr != nil || mod.Dir == "" {
		msg := fmt.Sprintf("cannot download %s@%s from the module proxy (%v %s)", golangciModule, golangciVersion, err, mod.Error)
		if ci {
			t.Fatalf("%s; CI must run this test", msg)
		}
		t.Skipf("%s: skipping the golangci-lint plugin test", msg)
	}

	start := time.Now()
	env := []string{"GOBIN=" + bin}
	if out, err := command(ctx, tmp, env, "go", "install", golangciModule+"/cmd/golangci-lint@"+golangciVersion); err != nil {
		t.Fatalf("go install golangci-lint: %v\n%s", err, out)
	}
	t.Logf("go install golangci-lint@%s: %v", golangciVersion, time.Since(start).Round(time.Second))

	// The git repository "custom" clones, made from that source.
	mirror := filepath.Join(tmp, "golangci-lint.git")
	if err := os.CopyFS(mirror, os.DirFS(mod.Dir)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=elicit test", "-c", "user.email=test@invalid", "-c", "commit.gpgsign=false", "commit", "-q", "-m", golangciVersion},
		{"tag", golangciVersion},
	} {
		if out, err := command(ctx, mirror, nil, "git", args...); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	// The adopter's module, with docs/editors.md's configuration files.
	proj := filepath.Join(tmp, "proj")
	if err := os.CopyFS(filepath.Join(proj, "lintme"), os.DirFS(filepath.Join("testdata", "lintme"))); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	custom, golangci := readmeConfigs(t, filepath.Join(root, "docs", "editors.md"))
	// docs/editors.md pins the plugin by version; here it is this working tree:
	// the plugin's module from its directory, and first, since nothing is
	// published, the root module it requires (its own go.mod's replace does
	// not apply in golangci-lint's build; docs/modules.md).
	custom = regexp.MustCompile(`(?m)^(\s+)version: .*$`).ReplaceAllString(custom, "${1}path: "+filepath.Join(root, "gen", "elicitform", "golangci"))
	custom = strings.Replace(custom, "plugins:\n", "plugins:\n  - module: github.com/go-elicit/elicit\n    import: github.com/go-elicit/elicit/gen/elicitform\n    path: "+root+"\n", 1)
	for name, data := range map[string]string{
		"go.mod":          "module example.com/proj\n\ngo 1.26.0\n\nrequire github.com/go-elicit/elicit v0.0.0\n\ntool github.com/go-elicit/elicit/cmd/elicitgen\n\nreplace github.com/go-elicit/elicit => " + root + "\n",
		"go.sum":          string(sum),
		".custom-gcl.yml": custom,
		".golangci.yml":   golangci,
	} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"mod", "tidy"},
		{"tool", "elicitgen", "./lintme/peer"},
		{"mod", "tidy"},
	} {
		if out, err := command(ctx, proj, nil, "go", args...); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Edit the field's doc (its schema's description) after go generate.
	forms := filepath.Join(proj, "lintme", "peer", "peer.go")
	src, err := os.ReadFile(forms)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(forms, []byte(strings.Replace(string(src), "// Address of the peer.", "// Address of the BGP peer.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}

	start = time.Now()
	gitEnv := []string{
		"GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=url." + mirror + ".insteadOf",
		"GIT_CONFIG_VALUE_0=" + golangciRepo,
	}
	if out, err := command(ctx, proj, gitEnv, filepath.Join(bin, "golangci-lint"), "custom", "-v"); err != nil {
		t.Fatalf("golangci-lint custom: %v\n%s", err, out)
	}
	t.Logf("golangci-lint custom: %v", time.Since(start).Round(time.Second))

	out, err = command(ctx, proj, []string{"GOLANGCI_LINT_CACHE=" + filepath.Join(tmp, "lint-cache")},
		filepath.Join(proj, "custom-gcl"), "run", "--output.text.print-issued-lines=false", "--output.text.colors=false", "./...")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("custom-gcl run: %v, want exit status 1 (issues found)\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, " (elicitform)") {
			got = append(got, line)
		}
	}
	want := []string{
		"lintme/bad/bad.go:9:2: field Name: minLength 5 is greater than maxLength 2 (elicitform)",
		"lintme/bad/bad.go:10:2: field Tags: map map[string]string is not allowed: elicitation forms are flat (elicitform)",
		"lintme/peer/peer.go:9:6: generated code for Form is out of date (its schema in peer_elicit.go differs): run go generate (elicitform)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("custom-gcl run reported\n%s\nwant\n%s\nfull output:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), out)
	}
}

// TestDocMatchesReadme: the package doc shows docs/editors.md's configuration
// files, line for line.
func TestDocMatchesReadme(t *testing.T) {
	custom, golangci := readmeConfigs(t, filepath.Join("..", "..", "..", "docs", "editors.md"))
	src, err := os.ReadFile("golangci.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(custom+golangci), "\n") {
		if !strings.Contains(string(src), "\n//\t"+line+"\n") {
			t.Errorf("golangci.go's doc lacks the docs/editors.md line %q", line)
		}
	}
}

// readmeConfigs returns docs/editors.md's .custom-gcl.yml and .golangci.yml,
// the yaml blocks that follow a line naming each file.
func readmeConfigs(t *testing.T, readme string) (custom, golangci string) {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)`(\\.custom-gcl\\.yml|\\.golangci\\.yml)`[^`]*?```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		switch m[1] {
		case ".custom-gcl.yml":
			custom = m[2]
		case ".golangci.yml":
			golangci = m[2]
		}
	}
	if custom == "" || golangci == "" {
		t.Fatalf("%s: want a yaml block after `.custom-gcl.yml` and one after `.golangci.yml`", readme)
	}
	return custom, golangci
}

// command runs name in dir with env added to the test's, and returns its
// combined output.
func command(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
