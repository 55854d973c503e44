package main

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Comparing a base commit with the working tree (-compare BASE, what make
// bench-compare runs). What is built from BASE is its own bench program
// (internal/cmd/bench, or internal/bench before the layout moved it), from
// a git worktree of BASE in a temporary directory, and only its server
// side runs: the child process that serves ours-legacy and ours-modern with
// BASE's runtime, through BASE's API. Everything else is this working
// tree's: the load generator (one hand-rolled HTTP/1.1 client for every
// server), the floor servers and this report. So the two runtimes are
// driven by the same client, the same flows and the same floor.
//
// The six servers (base, new and floor, in each era) run at once, each in
// its own process; every round gives each one window at each concurrency,
// the order rotated every round (base, new, floor, ...; new, floor, ...),
// so machine noise reaches all of them alike. A ratio to the floor is taken
// within each round, between windows that ran seconds apart, and reported
// as the median over rounds with the interquartile range.

// The targets of issue 23, as cost ÷ the floor, and memory per pending
// elicitation.
const (
	targetSession       = 1.10  // 2025-11-25, at every concurrency
	targetInputRequired = 1.15  // 2026-07-28
	targetPendingBytes  = 37000 // 37 kB per pending elicitation (2025-11-25)
)

// compareFlow is one server of the comparison: f names it in the run,
// serve is the flow its binary serves, base whether it is BASE's binary.
type compareFlow struct {
	f     flow
	serve string
	base  bool
}

var compareFlows = []compareFlow{
	{flow{"base-legacy", serverOurs, eraLegacy}, "ours-legacy", true},
	{flow{"new-legacy", serverOurs, eraLegacy}, "ours-legacy", false},
	{flow{"floor-legacy", serverFloor, eraLegacy}, "floor-legacy", false},
	{flow{"base-modern", serverOurs, eraModern}, "ours-modern", true},
	{flow{"new-modern", serverOurs, eraModern}, "ours-modern", false},
	{flow{"floor-modern", serverFloor, eraModern}, "floor-modern", false},
}

// baseBuild is BASE checked out and its bench program built.
type baseBuild struct {
	commit string // full hash
	title  string // short hash and subject
	bin    string
	remove func()
}

// git runs git in dir and returns its trimmed output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// buildBase checks BASE out into a temporary git worktree of root's
// repository and builds its bench program there; remove undoes both.
func buildBase(root, base string) (*baseBuild, error) {
	commit, err := git(root, "rev-parse", "--verify", base+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("BASE %q: %w", base, err)
	}
	title, err := git(root, "log", "-1", "--format=%h %cs %s", commit)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "elicit-bench-compare-")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "src")
	b := &baseBuild{commit: commit, title: title, bin: filepath.Join(dir, "bench-base")}
	b.remove = func() {
		if _, err := git(root, "worktree", "remove", "--force", src); err != nil {
			log.Print(err)
		}
		_ = os.RemoveAll(dir)
	}
	if _, err := git(root, "worktree", "add", "--detach", src, commit); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	pkg := ""
	for _, p := range []string{"internal/cmd/bench", "internal/bench"} {
		if _, err := os.Stat(filepath.Join(src, p, "servers.go")); err == nil {
			pkg = "./" + p
			break
		}
	}
	if pkg == "" {
		b.remove()
		return nil, fmt.Errorf("BASE %s has no bench program (internal/cmd/bench or internal/bench) to build its servers from", title)
	}
	cmd := exec.Command(goTool(), "build", "-o", b.bin, pkg)
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		b.remove()
		return nil, fmt.Errorf("building %s of BASE %s: %w", pkg, title, err)
	}
	return b, nil
}

// compareReport is what a comparison measured.
type compareReport struct {
	base, head         string
	machine            machine
	rounds             int
	window             time.Duration
	concs              []int
	rows               map[rtKey]*rtRow
	pending            map[string]pendingCost
	pendingN           int
	started            time.Time
	elapsed            time.Duration
	loadStart, loadEnd string
	quick              bool
}

func runCompare(o *options, stdout io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if o.out == "" {
		o.out = filepath.Join(root, ".tools", "bench")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	rep := &compareReport{machine: describeMachine(), rounds: o.rounds, window: o.window, concs: o.concs,
		pendingN: o.pending, started: time.Now(), loadStart: loadAverage(), quick: o.quick}
	rep.head, err = git(root, "log", "-1", "--format=%h %cs %s")
	if err != nil {
		return err
	}
	if dirty, _ := git(root, "status", "--porcelain", "--untracked-files=no"); dirty != "" {
		rep.head += " (with uncommitted changes)"
	}
	log.Printf("building BASE %s", o.compare)
	b, err := buildBase(root, o.compare)
	if err != nil {
		return err
	}
	defer b.remove()
	rep.base = b.title

	children := make([]*child, 0, len(compareFlows))
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	for _, cf := range compareFlows {
		cmd, err := selfCommand()
		if cf.base {
			cmd, err = exec.Command(b.bin), nil
		}
		if err != nil {
			return err
		}
		c, err := startChildCmd(cf.f, cf.serve, cmd)
		if err != nil {
			return err
		}
		children = append(children, c)
	}
	pools := make([]*pool, len(children))
	for i, c := range children {
		p, err := newPool(c, o.concs[len(o.concs)-1])
		if err != nil {
			return err
		}
		defer p.Close()
		pools[i] = p
	}
	log.Printf("round trips: base, new and floor in both eras x %v concurrency x %d rounds of %v", o.concs, o.rounds, o.window)
	cfg := roundTripConfig{concs: o.concs, rounds: o.rounds, window: o.window, warmup: o.window / 3, maxOps: 1 << 20}
	raw := newRawFile(o.out, "compare.txt", rep.machine)
	if rep.rows, err = measureRoundTrips(pools, cfg, raw.add); err != nil {
		return err
	}
	for _, p := range pools {
		p.Close()
	}
	log.Printf("pending: %d elicitations held at once, per server", o.pending)
	rep.pending = map[string]pendingCost{}
	for _, c := range children {
		if c.f.era != eraLegacy { // 2026-07-28 servers hold nothing between the POSTs
			continue
		}
		pc, err := measurePending(c, o.pending)
		if err != nil {
			return err
		}
		rep.pending[c.f.name] = pc
		raw.add(fmt.Sprintf("BenchmarkPending/flow=%s \t%d\t%.0f heap-B/op\t%.0f stack-B/op\t%.3f goroutines/op", c.f.name, pc.n, pc.heap, pc.stacks, pc.goroutines))
	}
	if err := raw.save(); err != nil {
		return err
	}
	rep.elapsed = time.Since(rep.started)
	rep.loadEnd = loadAverage()
	fmt.Fprint(stdout, rep.markdown())
	return nil
}

// ratioCell is the median of a row's ratios to the floor, with their
// interquartile range.
func ratioCell(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	q1, q3 := quartiles(v)
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", median(v), q1, q3)
}

func (r *compareReport) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# bench-compare\n\nBASE %s\nagainst the working tree at %s\n\n", r.base, r.head)
	fmt.Fprintf(&b, "%s, %d CPUs (GOMAXPROCS %d), %s. Run %s, took %s; %d rounds of %v windows.\n",
		r.machine.cpu, r.machine.cpus, r.machine.procs, r.machine.goVersion, r.started.UTC().Format("2006-01-02 15:04 UTC"),
		r.elapsed.Round(time.Second), r.rounds, r.window)
	fmt.Fprintf(&b, "Load average (1, 5, 15 min): %s at the start, %s at the end.\n", r.loadStart, r.loadEnd)
	if r.quick {
		b.WriteString("\n**-quick: a smoke run.** Few short windows: the ratios below are noise, not a measurement.\n")
	}
	b.WriteString("\n## Round trip: time per round trip ÷ the bare net/http floor's\n\n")
	b.WriteString("Median over rounds of the ratio within each round (interquartile range); server allocations per round trip, median over windows.\n\n")
	b.WriteString("| protocol | concurrency | base ÷ floor | new ÷ floor | target | new | base allocs/rt | new allocs/rt | floor allocs/rt |\n|---|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, era := range []struct {
		name, version string
		target        float64
	}{{eraLegacy, legacyVersion, targetSession}, {eraModern, modernVersion, targetInputRequired}} {
		for _, conc := range r.concs {
			floor := "floor-" + era.name
			baseV := r.roundRatios("base-"+era.name, floor, conc)
			newV := r.roundRatios("new-"+era.name, floor, conc)
			allocs := func(flow string) string {
				row := r.rows[rtKey{flow, conc}]
				if row == nil {
					return "–"
				}
				return fmt.Sprintf("%.0f", row.median(window.allocsPerOp))
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | ≤%.2f× | %s | %s | %s | %s |\n", era.version, conc,
				ratioCell(baseV), ratioCell(newV), era.target, mark(len(newV) > 0 && median(newV) <= era.target),
				allocs("base-"+era.name), allocs("new-"+era.name), allocs(floor))
		}
	}
	b.WriteString("\n## Server CPU per round trip\n\nThe server process's user and system time (getrusage) over a window's round trips, median over windows: what the server spends, whatever the load generator beside it on the same machine spends.\n\n")
	b.WriteString("| protocol | concurrency | base | new | floor | new ÷ floor |\n|---|---:|---:|---:|---:|---:|\n")
	for _, era := range []struct{ name, version string }{{eraLegacy, legacyVersion}, {eraModern, modernVersion}} {
		for _, conc := range r.concs {
			cpu := func(flow string) float64 {
				if row := r.rows[rtKey{flow, conc}]; row != nil {
					return row.median(window.cpuPerOp)
				}
				return 0
			}
			base, nw, floor := cpu("base-"+era.name), cpu("new-"+era.name), cpu("floor-"+era.name)
			ratio := "–"
			if floor > 0 {
				ratio = fmt.Sprintf("%.2f×", nw/floor)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", era.version, conc, micros(base), micros(nw), micros(floor), ratio)
		}
	}
	fmt.Fprintf(&b, "\n## Memory per pending elicitation (%s, %d held at once)\n\n", legacyVersion, r.pendingN)
	b.WriteString("Server heap objects and stacks after two GCs, while they wait, less before, over their number (1 kB = 1000 B); the floor's is what net/http itself holds per connection.\n\n")
	b.WriteString("| server | heap | stacks | total | goroutines |\n|---|---:|---:|---:|---:|\n")
	for _, name := range []string{"base-legacy", "new-legacy", "floor-legacy"} {
		pc, ok := r.pending[name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.1f kB | %.1f kB | %.1f kB | %.2f |\n", name, pc.heap/1000, pc.stacks/1000, pc.total()/1000, pc.goroutines)
	}
	if pc, ok := r.pending["new-legacy"]; ok {
		fmt.Fprintf(&b, "\nTarget: at most %.0f kB per pending elicitation: %s.\n", float64(targetPendingBytes)/1000, mark(pc.total() <= targetPendingBytes))
	}
	return b.String()
}

// micros formats ns as microseconds; "–" for none (a base whose server
// does not report its CPU).
func micros(ns float64) string {
	if ns <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f µs", ns/1000)
}

// roundRatios are a ÷ b in time per round trip, round by round.
func (r *compareReport) roundRatios(a, b string, conc int) []float64 {
	return (&report{rows: r.rows}).roundRatios(a, b, conc)
}
