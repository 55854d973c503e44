//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBaseline(t *testing.T) {
	b, err := parseBaseline("b.txt", strings.NewReader(`
# comment
0.1.16-active prompts-list:prompts-list  out of scope: no prompts
0.2-2026-07-28 tasks-lifecycle          unscored extension
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.entries) != 2 || b.entries[0].reason != "out of scope: no prompts" || b.entries[1].line != 4 {
		t.Fatalf("entries %+v %+v", b.entries[0], b.entries[1])
	}
	if e := b.match("0.1.16-active", "prompts-list", "prompts-list"); e != b.entries[0] {
		t.Errorf("exact match: %v", e)
	}
	if e := b.match("0.1.16-active", "prompts-list", "wire-schema-valid"); e != nil {
		t.Errorf("another check of a listed scenario matched %v", e)
	}
	if e := b.match("0.2-2026-07-28", "tasks-lifecycle", "any-check"); e != b.entries[1] {
		t.Errorf("whole-scenario match: %v", e)
	}
	if e := b.match("0.2-active", "tasks-lifecycle", "any-check"); e != nil {
		t.Errorf("entry of another suite matched: %v", e)
	}

	_, err = parseBaseline("b.txt", strings.NewReader(`0.1.16-active ping
nosuch ping:ping because
0.2-active a:b reason
0.2-active a:b reason again
`))
	if err == nil {
		t.Fatal("bad baseline accepted")
	}
	for _, want := range []string{"b.txt:1: want <suite>", `b.txt:2: unknown suite "nosuch"`, "b.txt:4: 0.2-active a:b is listed already on line 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestReadChecksAndReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name, "checks.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("server-tools-list-2026-12-02T13-02-32-232Z", `[{"id":"tools-list","status":"SUCCESS"},{"id":"tools-name-format","status":"WARNING","errorMessage":"bad\nname"}]`)
	write("server-prompts-list-2026-12-02T13-02-32-233Z", `[{"id":"prompts-list","status":"FAILURE"},{"id":"x","status":"INFO"}]`)
	write("not-a-scenario", `garbage`)
	out, err := readChecks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 || out[0].scenario != "prompts-list" || out[2].scenario != "tools-list" {
		t.Fatalf("outcomes %+v", out)
	}

	base, _ := parseBaseline("b.txt", strings.NewReader("0.2-active prompts-list:prompts-list no prompts\n0.2-active ping:ping was fixed\n"))
	s := suites[1]
	var w strings.Builder
	failed := report(&w, []suiteResult{{suite: s, outcomes: out}}, base, []suite{s})
	got := w.String()
	if !failed {
		t.Error("report passed with an unexpected warning and a stale entry")
	}
	for _, want := range []string{
		"0.2-active       checks: passed=1 failed=1 warnings=1 (baselined=1 unexpected=1)",
		"UNEXPECTED WARNING tools-list:tools-name-format: bad name",
		"STALE baseline entry (it passes now: remove it) b.txt:2: 0.2-active ping:ping",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}

	base, _ = parseBaseline("b.txt", strings.NewReader("0.2-active prompts-list no prompts\n0.2-active tools-list:tools-name-format names\n"))
	w.Reset()
	if report(&w, []suiteResult{{suite: s, outcomes: out}}, base, []suite{s}) {
		t.Errorf("fully baselined run failed:\n%s", w.String())
	}
}
