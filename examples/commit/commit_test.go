package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRepo is a repository with two changed files on branch main.
type fakeRepo struct {
	mu        sync.Mutex
	committed []string
}

func (*fakeRepo) Changes() ([]Change, error) {
	return []Change{{Path: "a.go", Status: "modified"}, {Path: "docs/b.md", Status: "new"}}, nil
}

func (*fakeRepo) Branches() ([]string, string, error) { return []string{"dev", "main"}, "main", nil }

func (r *fakeRepo) Commit(branch string, files []string, message string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.committed = append(r.committed, branch+": "+strings.Join(files, " ")+": "+message)
	return nil
}

// TestCommit drives the tool on every protocol and transport: the files
// and branches are the repository's, the current branch is prefilled and
// fills in an answer that leaves it out, and an answer outside the choices
// is refused. 2025-06-18 has no multi-select: the tool says so.
func TestCommit(t *testing.T) {
	repo := &fakeRepo{}
	args := CommitArgs{Message: "fix"}
	elicittest.NewServer(t, newServer(repo)).Each(t, func(t *testing.T, c *elicittest.Client) {
		if c.Protocol() == runtime.Version20250618 {
			c.Call(t, "commit", args).WantError(t, `not committed: elicit: not supported by this client: form main.CommitForm: multi-select (property "files") needs protocol 2025-11-25`)
			return
		}
		res := c.Call(t, "commit", args, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
			const want = `{"type":"object","properties":{` +
				`"files":{"description":"The changed files to commit.","items":{"anyOf":[{"const":"a.go","title":"a.go (modified)"},{"const":"docs/b.md","title":"docs/b.md (new)"}]},"minItems":1,"title":"Files","type":"array"},` +
				`"branch":{"default":"main","description":"The branch to commit on.","enum":["dev","main"],"title":"Branch","type":"string"}},` +
				`"required":["files"]}`
			if string(e.Schema) != want {
				t.Errorf("schema\n%s\nwant\n%s", e.Schema, want)
			}
			return elicittest.AcceptRaw(`{"files":["a.go"]}`)
		}))
		res.WantText(t, "committed a.go on main")
		res.WantAsked(t, "Commit which files?")
		c.Call(t, "commit", args, elicittest.Accept(CommitForm{Files: []string{"docs/b.md", "a.go"}, Branch: "dev"})).
			WantText(t, "committed docs/b.md, a.go on dev")
		c.Call(t, "commit", args, elicittest.AcceptRaw(`{"files":["a.go","x.go"],"branch":"prod"}`)).
			WantError(t, `not committed: elicit: invalid content: "branch" must be one of "dev", "main"; "files" item 1 ("x.go") must be one of "a.go", "docs/b.md"`)
		c.Call(t, "commit", args, elicittest.AcceptRaw(`{"files":[]}`)).WantError(t, `"files" must have at least 1 item`)
	})
	if n := len(repo.committed); n != 2*2*2 {
		t.Errorf("%d commits, want 8: %q", n, repo.committed)
	}
}

// TestCommitAsksForMessage: a call without the required message asks for
// it before the tool runs, then the tool asks which files; a client that
// cannot be asked gets the missing argument named.
func TestCommitAsksForMessage(t *testing.T) {
	repo := &fakeRepo{}
	elicittest.NewServer(t, newServer(repo)).Each(t, func(t *testing.T, c *elicittest.Client) {
		if c.Protocol() == runtime.Version20250618 {
			c.Call(t, "commit", nil, elicittest.Accept(CommitArgs{Message: "fix"})).WantError(t, `multi-select (property "files") needs protocol 2025-11-25`)
			return
		}
		res := c.Call(t, "commit", nil, elicittest.Accept(CommitArgs{Message: "fix"}), elicittest.Accept(CommitForm{Files: []string{"a.go"}, Branch: "main"}))
		res.WantText(t, "committed a.go on main")
		res.WantAsked(t, "What is the commit message?", "Commit which files?")
	})
	if n := len(repo.committed); n != 2*2 || repo.committed[0] != "main: a.go: fix" {
		t.Errorf("commits %q, want 4 of \"main: a.go: fix\"", repo.committed)
	}
	noAsk := elicittest.NewServer(t, newServer(&fakeRepo{})).Connect(t, elicittest.Conn{Protocol: runtime.Version20251125, Transport: elicittest.HTTP, Elicitation: elicittest.NoElicitation})
	noAsk.Call(t, "commit", nil).WantError(t, "missing required argument: message")
}

// TestGitRepo runs the git-backed Repo on a scratch repository.
func TestGitRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	r := gitRepo(dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
		if _, err := r.git(args...); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changes, err := r.Changes()
	if err != nil || !slices.Equal(changes, []Change{{"a.go", "new"}, {"b.go", "new"}}) {
		t.Fatalf("changes %v, %v", changes, err)
	}
	if all, cur, err := r.Branches(); err != nil || cur != "main" || !slices.Equal(all, []string{"main"}) {
		t.Fatalf("branches %v %q, %v", all, cur, err)
	}
	if err := r.Commit("main", []string{"a.go"}, "add a"); err != nil {
		t.Fatal(err)
	}
	if changes, err := r.Changes(); err != nil || !slices.Equal(changes, []Change{{"b.go", "new"}}) {
		t.Fatalf("after the commit: %v, %v", changes, err)
	}
}
