package ts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const askFiles = "Commit which files?"

// commitCases drive examples/commit over stdio, the SDK starting
// "commit -C REPO" on a scratch git repository with the new files a.go and
// b.go on branch main: run-time choices and a prefilled branch, end to end.
var commitCases = map[string]want{
	"commit-choices": {protocol: "2025-11-25", text: "committed b.go on main", asked: []string{askFiles}, required: []string{"files"}},
	"commit-outside-choices": {protocol: "2025-11-25", isError: true, asked: []string{askFiles},
		contains: []string{`not committed: elicit: invalid content: "files" item 0 ("secret.txt") must be one of "a.go", "b.go"`}},
}

// TestTypeScriptSDKClientChoices runs the commitCases.
func TestTypeScriptSDKClientChoices(t *testing.T) {
	node := setUp(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on PATH: examples/commit needs it")
	}
	casesMatch(t, node, "--list-commit", commitCases)

	bin := filepath.Join(t.TempDir(), "commit")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/go-elicit/elicit/examples/commit").CombinedOutput(); err != nil {
		t.Fatalf("building examples/commit: %v\n%s", err, out)
	}
	for name, w := range commitCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each case has its own repository and child
			repo := t.TempDir()
			for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
				if out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %s: %v\n%s", args[0], err, out)
				}
			}
			for _, f := range []string{"a.go", "b.go"} {
				if err := os.WriteFile(filepath.Join(repo, f), []byte("package a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := runCase(t, node, []string{"--commit", bin, repo}, name)
			check(t, r, w)
			if t.Failed() && r.Stderr != nil {
				t.Logf("commit's stderr:\n%s", *r.Stderr)
			}
			if len(r.Elicitations) == 0 {
				return
			}
			// The client received the repository's files as titled choices
			// and the checked-out branch as the default.
			got, _ := json.Marshal(r.Elicitations[0].RequestedSchema)
			for _, part := range []string{
				`"items":{"anyOf":[{"const":"a.go","title":"a.go (new)"},{"const":"b.go","title":"b.go (new)"}]}`,
				`"branch":{"default":"main"`,
				`"enum":["main"]`,
			} {
				if !strings.Contains(string(got), part) {
					t.Errorf("requestedSchema %s lacks %s", got, part)
				}
			}
		})
	}
}
