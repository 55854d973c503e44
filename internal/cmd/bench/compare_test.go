package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCompareHead runs a tiny bench-compare of HEAD against the working
// tree: BASE checked out and built in a temporary worktree, six servers,
// two rounds, and a report with every row, the spreads and the load
// average; the temporary worktree is gone afterwards.
func TestCompareHead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a commit's bench program")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := git(root, "rev-parse", "HEAD"); err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	before, _ := git(root, "worktree", "list")
	o := &options{compare: "HEAD", out: t.TempDir(), rounds: 2, window: 20 * time.Millisecond, pending: 30, concs: []int{1, 2}, quick: true}
	var out strings.Builder
	if err := runCompare(o, &out); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, want := range []string{
		"BASE ", "Load average (1, 5, 15 min): ", "-quick: a smoke run",
		"| base-legacy |", "| new-legacy |", "| floor-legacy |",
		"per pending elicitation: ",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	rows := regexp.MustCompile(`(?m)^\| (2025-11-25|2026-07-28) \| (1|2) \| \d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\) \| \d+\.\d\d× \(\d+\.\d\d–\d+\.\d\d\) \| ≤1\.1[05]× \| (met|\*\*missed\*\*) \| \d+ \| \d+ \| \d+ \|$`)
	if n := len(rows.FindAllString(report, -1)); n != 4 {
		t.Errorf("%d round-trip rows with a ratio and spread for base and new, want 4:\n%s", n, report)
	}
	if after, _ := git(root, "worktree", "list"); after != before {
		t.Errorf("the temporary worktree was left behind:\n%s", after)
	}
}

func TestCompareBadBase(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buildBase(root, "no-such-commit-anywhere"); err == nil || !strings.Contains(err.Error(), `BASE "no-such-commit-anywhere"`) {
		t.Fatalf("buildBase of a missing commit: %v", err)
	}
}
