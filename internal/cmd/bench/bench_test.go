package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the servers' child process, as the bench
// binary does.
func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		os.Exit(serveChild(name))
	}
	selfCommand = func() (*exec.Cmd, error) { return exec.Command(os.Args[0]), nil }
	os.Exit(m.Run())
}

// TestFlowsOnce runs every flow's exchange against its server: one round
// trip on a fresh worker, then a second on the same connections (keep-alive
// must leave them usable), then a few held at once and answered.
func TestFlowsOnce(t *testing.T) {
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			c, err := startChild(f)
			if err != nil {
				t.Fatal(err)
			}
			defer c.stop()
			w := newWorker(f, c.addr)
			defer w.Close()
			if err := w.openSession(); err != nil {
				t.Fatal(err)
			}
			if f.needsSession() && w.session == "" {
				t.Fatal("no session id after initialize")
			}
			for i := range 2 {
				if err := w.roundTrip(); err != nil {
					t.Fatalf("round trip %d: %v", i, err)
				}
			}
			pc, err := measurePending(c, 2*sessionPending+3)
			if err != nil {
				t.Fatal(err)
			}
			if pc.n != 2*sessionPending+3 {
				t.Errorf("pending n = %d", pc.n)
			}
			if f.era == eraLegacy && pc.goroutines <= 0 {
				t.Errorf("legacy pending elicitations hold %.2f goroutines each; want > 0", pc.goroutines)
			}
		})
	}
}

// TestTaskFlow: task lives at two concurrencies and tasks waiting at once
// against the ours-task server, each result checked; a waiting task holds
// no goroutine.
func TestTaskFlow(t *testing.T) {
	c, err := startChild(taskFlow)
	if err != nil {
		t.Fatal(err)
	}
	defer c.stop()
	for _, conc := range []int{1, 4} {
		tc, err := measureTaskLives(c, conc, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if tc.n < conc || tc.pollsPerTask() < 2 || tc.perTask() <= 0 || tc.allocs <= 0 {
			t.Errorf("concurrency %d: %d tasks, %.1f polls each, %v each, %.0f allocations each", conc, tc.n, tc.pollsPerTask(), tc.perTask(), tc.allocs)
		}
	}
	w, err := measureWaitingTasks(c, openers+3)
	if err != nil {
		t.Fatal(err)
	}
	if w.n != openers+3 || w.goroutines >= 0.5 {
		t.Errorf("waiting tasks: %+v, want %d holding no goroutine each", w, openers+3)
	}
}

// TestClientRejectsWrongAnswers: the harness fails loudly on a server that
// answers something else, instead of counting it as a round trip.
func TestClientRejectsWrongAnswers(t *testing.T) {
	f, _ := flowByName("floor-modern")
	c, err := startChild(f)
	if err != nil {
		t.Fatal(err)
	}
	defer c.stop()
	w := newWorker(f, c.addr)
	defer w.Close()
	w.f.era = eraLegacy // speak legacy to a modern server: no SSE stream comes back
	if err := w.roundTrip(); err == nil {
		t.Fatal("legacy exchange against the modern floor succeeded")
	}
	w2 := newWorker(f, "127.0.0.1:1") // nothing listens there
	defer w2.Close()
	if err := w2.roundTrip(); err == nil {
		t.Fatal("round trip to a closed port succeeded")
	}
}

// TestQuickReport runs the whole program in its smallest form (decode and
// generator left out: TestGenerateSmall covers the latter) and checks that
// the report has every table.
func TestQuickReport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts seven servers")
	}
	out := t.TempDir()
	var stdout strings.Builder
	code := run([]string{"-quick", "-window", "20ms", "-pending", "60", "-skip-decode", "-skip-generate", "-out", out}, &stdout)
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	text := stdout.String()
	for _, want := range []string{"## Round trip", "| ours-legacy | 64 |", "| floor-modern | 1 |", "## Memory per pending elicitation", "## Tasks", "Memory per task waiting for its person", "## Targets", "gosdk-legacy", "mcpgo-legacy"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, name := range []string{"REPORT.md", "roundtrip.txt", "pending.txt", "tasks.txt"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "roundtrip.txt" && !strings.Contains(string(b), "BenchmarkRoundTrip/flow=ours-modern/conc=64") {
			t.Errorf("roundtrip.txt lacks the ours-modern line:\n%s", b)
		}
	}
	// The plot is well-formed SVG with a line per flow in each panel.
	svg, err := os.ReadFile(filepath.Join(out, "roundtrip.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName   xml.Name
		Polylines []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("roundtrip.svg: %v", err)
	}
	if len(doc.Polylines) != 2*len(flows) {
		t.Errorf("roundtrip.svg has %d lines, want %d", len(doc.Polylines), 2*len(flows))
	}
	for _, pl := range doc.Polylines {
		if n := len(strings.Fields(pl.Points)); n != 2 || strings.Contains(pl.Points, "NaN") || strings.Contains(pl.Points, "Inf") {
			t.Errorf("polyline points %q, want 2 finite points (concurrency 1 and 64)", pl.Points)
		}
	}
}

// TestGenerateSmall times the generator on a tiny package.
func TestGenerateSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := os.MkdirTemp("testdata", "gen")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(work)
		os.Remove("testdata") // only if this test left it empty
	})
	var lines []string
	res, err := measureGenerate(work, []int{2}, 1, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].forms != 2 || res[0].fresh <= 0 || res[0].again <= 0 || res[0].load <= 0 || res[0].fresh > time.Minute {
		t.Errorf("results %+v", res)
	}
	if len(lines) != 4 {
		t.Errorf("raw lines %q", lines)
	}
}

func TestParseFlags(t *testing.T) {
	for _, bad := range [][]string{{"-rounds", "-1"}, {"-window", "1ms"}, {"-pending", "-1"}, {"extra"}, {"-flows", "nope"}, {"-flows", taskFlow.name}, {"-conc", "64,1"}, {"-conc", "0"}, {"-conc", "1,x"}, {"-conc", "1,1"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("parseFlags(%q) succeeded", bad)
		}
	}
	o, err := parseFlags([]string{"-quick"})
	if err != nil || o.rounds != 1 || o.window != 100*time.Millisecond || o.pending != 1000 || !slices.Equal(o.concs, []int{1, 64}) {
		t.Errorf("parseFlags(-quick) = %+v, %v", o, err)
	}
}
