// Command commit is a git commit helper served over stdio: its commit tool
// asks the user which of the repository's changed files to commit and on
// which branch, with the options known only when it runs (run-time
// choices) and the checked-out branch prefilled (a per-call default).
//
//	go run ./examples/commit -C path/to/repo
//
// Flags:
//
//	-C  the repository (default: the working directory)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// run serves MCP on stdin/stdout until the client closes stdin or ctx ends.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("commit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("C", ".", "the repository")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := newServer(gitRepo(*dir)).ServeStdioProcess(ctx); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "commit: %v\n", err)
		return 1
	}
	return 0
}

// gitRepo is the git repository in a directory, driven by the git command.
type gitRepo string

func (r gitRepo) git(args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", string(r)}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// statusWords names git's short status letters.
var statusWords = map[byte]string{'M': "modified", 'A': "added", 'D': "deleted", 'R': "renamed", '?': "new", 'T': "type changed"}

func (r gitRepo) Changes() ([]Change, error) {
	out, err := r.git("status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	var changes []Change
	for _, entry := range strings.Split(out, "\x00") {
		if len(entry) < 4 {
			continue // the rename source after a rename, or the end
		}
		code := entry[1]
		if code == ' ' {
			code = entry[0]
		}
		status, ok := statusWords[code]
		if !ok {
			status = "changed"
		}
		changes = append(changes, Change{Path: entry[3:], Status: status})
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

func (r gitRepo) Branches() ([]string, string, error) {
	out, err := r.git("branch", "--format=%(refname:short)")
	if err != nil {
		return nil, "", err
	}
	cur, err := r.git("branch", "--show-current")
	if err != nil {
		return nil, "", err
	}
	current := strings.TrimSpace(cur)
	all := strings.Fields(out)
	if len(all) == 0 && current != "" {
		all = []string{current} // a repository without commits yet
	}
	return all, current, nil
}

func (r gitRepo) Commit(branch string, files []string, message string) error {
	if _, cur, err := r.Branches(); err != nil {
		return err
	} else if branch != cur {
		if _, err := r.git("switch", branch); err != nil {
			return err
		}
	}
	if _, err := r.git(append([]string{"add", "--"}, files...)...); err != nil {
		return err
	}
	_, err := r.git(append([]string{"commit", "-q", "-m", message, "--"}, files...)...)
	return err
}
