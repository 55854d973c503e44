package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-elicit/elicit/runtime"
)

// Repo is the repository the tool commits to.
type Repo interface {
	// Changes lists the changed files, e.g. {Path: "a.go", Status: "modified"}.
	Changes() ([]Change, error)
	// Branches lists the local branches and names the checked-out one.
	Branches() (all []string, current string, err error)
	// Commit commits files on branch with message.
	Commit(branch string, files []string, message string) error
}

// Change is one changed file.
type Change struct{ Path, Status string }

// newServer returns a server with the commit tool on repo. A call without
// a message asks the user for it before the tool runs (AskMissing).
func newServer(repo Repo) *runtime.Server {
	srv := runtime.NewServer(runtime.Options{Name: "commit", Version: "1.0.0"})
	runtime.AddTool(srv, runtime.Tool{Name: "commit", Description: "Commit changed files; the user picks which, and the branch."},
		func(ctx context.Context, _ *runtime.CallToolRequest, args CommitArgs) (*runtime.CallToolResult, error) {
			return commit(ctx, repo, args)
		}, runtime.AskMissing("What is the commit message?"))
	return srv
}

// commit asks which changed files to commit, and on which branch (the
// current one prefilled), then commits them.
func commit(ctx context.Context, repo Repo, args CommitArgs) (*runtime.CallToolResult, error) {
	changes, err := repo.Changes()
	if err != nil || len(changes) == 0 {
		return runtime.ErrorResult("nothing to commit (%v)", err), nil
	}
	branches, current, err := repo.Branches()
	if err != nil {
		return runtime.ErrorResult("not committed: %v", err), nil
	}
	files := make([]runtime.Choice, len(changes))
	for i, c := range changes {
		files[i] = runtime.Choice{Value: c.Path, Title: c.Path + " (" + c.Status + ")"}
	}
	onto := make([]runtime.Choice, len(branches))
	for i, b := range branches {
		onto[i] = runtime.Choice{Value: b}
	}
	form, err := runtime.Elicit[CommitForm](ctx, "Commit which files?",
		runtime.WithChoices(CommitForm_Files, files...),
		runtime.WithChoices(CommitForm_Branch, onto...),
		runtime.WithDefaults(CommitForm{Branch: current}))
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, err // 2026-07-28: commit runs again with the answer
	case err != nil:
		return runtime.ErrorResult("not committed: %v", err), nil
	}
	if err := repo.Commit(form.Branch, form.Files, args.Message); err != nil {
		return runtime.ErrorResult("not committed: %v", err), nil
	}
	return runtime.TextResult(fmt.Sprintf("committed %s on %s", strings.Join(form.Files, ", "), form.Branch)), nil
}
