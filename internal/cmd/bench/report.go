package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// notes is the hand-written reading of the figures and profiles, kept
// beside the code and appended to every report.
//
//go:embed notes.md
var notes string

// machine is where the run happened.
type machine struct {
	goos, goarch, cpu, kernel, mem, goVersion string
	cpus, procs                               int
	loadStart, loadEnd                        string // /proc/loadavg: 1, 5, 15 minutes
}

// loadAverage is the first three fields of /proc/loadavg, "" elsewhere.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func describeMachine() machine {
	m := machine{goos: runtime.GOOS, goarch: runtime.GOARCH, cpu: "unknown", goVersion: runtime.Version(),
		cpus: runtime.NumCPU(), procs: runtime.GOMAXPROCS(0), loadStart: loadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		if _, v, ok := strings.Cut(line, ":"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%f kB", &kb); err == nil {
				m.mem = fmt.Sprintf("%.0f GiB RAM", kb/(1<<20))
			}
		}
	}
	return m
}

type profileNote struct {
	flow, path, allocPath, top string
}

// report is everything one run measured.
type report struct {
	machine  machine
	quick    bool
	rounds   int
	started  time.Time
	elapsed  time.Duration
	concs    []int
	rows     map[rtKey]*rtRow
	pending  map[string]pendingCost
	pendingN int
	tasks    []taskCost  // by concurrency; nil when not run
	waiting  pendingCost // per task waiting for its answer
	decode   map[string]*decodeResult
	gen      []genResult
	profiles []profileNote
}

// timeRatio is ours ÷ other in time per round trip: the median over rounds
// of the ratio within each round, whose windows ran close together, so that
// drift between rounds cancels out.
func (r *report) timeRatio(ours, other string, conc int) float64 {
	return median(r.roundRatios(ours, other, conc))
}

// roundRatios are ours ÷ other in time per round trip, round by round.
func (r *report) roundRatios(ours, other string, conc int) []float64 {
	o, x := r.rows[rtKey{ours, conc}], r.rows[rtKey{other, conc}]
	if o == nil || x == nil {
		return nil
	}
	var v []float64
	for i := range min(len(o.windows), len(x.windows)) {
		v = append(v, o.windows[i].nsPerOp()/x.windows[i].nsPerOp())
	}
	return v
}

// quartiles are the first and third quartile of v.
func quartiles(v []float64) (q1, q3 float64) {
	if len(v) == 0 {
		return 0, 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/4], s[(3*(len(s)-1)+3)/4]
}

// peersOf are the flows ours is compared with in an era, the floor first.
func peersOf(era string) []string {
	if era == eraLegacy {
		return []string{"floor-legacy", "gosdk-legacy", "mcpgo-legacy"}
	}
	return []string{"floor-modern", "gosdk-modern"}
}

const floorTarget = 1.3

// roundTripMissed lists the round-trip targets ours misses in an era.
func (r *report) roundTripMissed(era string) []string {
	var missed []string
	ours := "ours-" + era
	for _, conc := range r.concs {
		for _, p := range peersOf(era) {
			q := r.timeRatio(ours, p, conc)
			if q == 0 {
				continue
			}
			if strings.HasPrefix(p, "floor") {
				if q > floorTarget {
					missed = append(missed, fmt.Sprintf("%.2fx the floor at concurrency %d", q, conc))
				}
			} else if q >= 1 {
				missed = append(missed, fmt.Sprintf("behind %s at concurrency %d", p, conc))
			}
		}
	}
	return missed
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	}
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<20 || b <= -(1<<20):
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 10<<10 || b <= -(10<<10):
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", b)
	}
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func mark(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

func (r *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	m := r.machine
	p("# Benchmarks: elicit vs go-sdk v1.8.0, mcp-go v1.2.1 and a bare net/http floor\n\n")
	if r.quick {
		p("> **-quick smoke run**: one short round; the figures prove the harness, not the speed.\n\n")
	}
	p("Produced by `make bench` (`go run ./internal/cmd/bench`); raw benchstat-format output in `.tools/bench/`.\n")
	p("Machine: %s, %d CPUs (GOMAXPROCS %d), %s, %s/%s, Linux %s, %s. Run %s, took %s.\n\n",
		m.cpu, m.cpus, m.procs, m.mem, m.goos, m.goarch, m.kernel, m.goVersion, r.started.UTC().Format("2006-01-02 15:04 MST"), r.elapsed.Round(time.Second))
	if m.loadStart != "" {
		p("Load average (1, 5, 15 min) %s at the start, %s at the end: other work on the machine shows up as noise in the absolute figures; the interleaving spreads it over every row, so compare the ratios.\n\n", m.loadStart, m.loadEnd)
	}

	p("## The flow\n\n")
	p("A tool `ask` elicits a two-field form (a string and an integer: `AskForm`, generated by elicitgen, the same `requestedSchema` bytes for every server), the client accepts `{\"name\":\"ada\",\"count\":3}`, the tool returns `ada 3`. ")
	p("**Legacy** (2025-11-25): `tools/call` POST upgraded to SSE, `elicitation/create` on it, the answer POSTed (202), the result on the stream. ")
	p("**Modern** (2026-07-28): `tools/call` answered `input_required`, the retry carries `inputResponses` (and `requestState`) and gets the result. ")
	p("Each server runs in its own process; one hand-rolled HTTP/1.1 client with keep-alive drives them all over loopback, in %d interleaved rounds (the flow order rotates each round); a worker holds its own session and two connections (calls, answers). ", r.rounds)
	p("Time per round trip is wall time over round trips (the inverse of throughput), median over the rounds; its ratios are the median of the ratios within each round (windows that ran seconds apart); p50/p99 pool every round trip's latency. Server allocations are the child's `/gc/heap/allocs` counters (runtime/metrics) read right before and after each window, over the window's round trips: server only, client excluded.\n\n")

	p("## Round trip\n\n")
	p("| flow | concurrency | round trips/s | time/rt | p50 | p99 | server allocs/rt | server bytes/rt |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, f := range flows {
		for _, conc := range r.concs {
			row := r.rows[rtKey{f.name, conc}]
			if row == nil {
				continue
			}
			p("| %s | %d | %.0f | %s | %s | %s | %.0f | %s |\n", f.name, conc, row.median(window.perSecond),
				fmtDur(time.Duration(row.median(window.nsPerOp))), fmtDur(row.percentile(0.50)), fmtDur(row.percentile(0.99)),
				row.median(window.allocsPerOp), fmtBytes(row.median(window.bytesPerOp)))
		}
	}
	p("\nRatios, ours ÷ the other (time, latency, allocations: below 1 means ours is cheaper); time/rt is the median of the per-round ratios, with their interquartile range:\n\n")
	p("| ours ÷ | concurrency | time/rt (IQR) | p50 | p99 | allocs/rt | bytes/rt |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, era := range []string{eraLegacy, eraModern} {
		ours := "ours-" + era
		for _, other := range peersOf(era) {
			for _, conc := range r.concs {
				o, x := r.rows[rtKey{ours, conc}], r.rows[rtKey{other, conc}]
				if o == nil || x == nil {
					continue
				}
				q1, q3 := quartiles(r.roundRatios(ours, other, conc))
				p("| %s | %d | %.2f× (%.2f–%.2f) | %s | %s | %s | %s |\n", other, conc,
					r.timeRatio(ours, other, conc), q1, q3,
					ratio(float64(o.percentile(0.5)), float64(x.percentile(0.5))),
					ratio(float64(o.percentile(0.99)), float64(x.percentile(0.99))),
					ratio(o.median(window.allocsPerOp), x.median(window.allocsPerOp)),
					ratio(o.median(window.bytesPerOp), x.median(window.bytesPerOp)))
			}
		}
	}

	if r.rows[rtKey{"traced-" + eraLegacy, r.concs[0]}] != nil || r.rows[rtKey{"traced-" + eraModern, r.concs[0]}] != nil {
		p("\n### The cost of telemetry\n\n")
		p("`traced-*` is ours with OpenTelemetry's SDK as Options.TracerProvider (a batch span processor to an exporter that drops the spans) and Options.MeterProvider (a manual reader): every request's span and duration, every elicitation's span and metrics. Without providers (`ours-*`) nothing is recorded and nothing allocated for it.\n\n")
		p("| traced ÷ ours | concurrency | time/rt (IQR) | allocs/rt | bytes/rt |\n|---|---:|---:|---:|---:|\n")
		for _, era := range []string{eraLegacy, eraModern} {
			ours, traced := "ours-"+era, "traced-"+era
			for _, conc := range r.concs {
				o, x := r.rows[rtKey{ours, conc}], r.rows[rtKey{traced, conc}]
				if o == nil || x == nil {
					continue
				}
				q1, q3 := quartiles(r.roundRatios(traced, ours, conc))
				p("| %s | %d | %.2f× (%.2f–%.2f) | %.0f → %.0f | %s → %s |\n", era, conc, r.timeRatio(traced, ours, conc), q1, q3,
					o.median(window.allocsPerOp), x.median(window.allocsPerOp), fmtBytes(o.median(window.bytesPerOp)), fmtBytes(x.median(window.bytesPerOp)))
			}
		}
	}

	p("\n## Memory per pending elicitation\n\n")
	p("%d elicitations waiting at once (legacy: each a `tools/call` holding its SSE stream, %d per session, sessions opened beforehand; modern: each an `input_required` the client holds). Server heap objects and stack memory from runtime/metrics (`/memory/classes/heap/objects`, `/memory/classes/heap/stacks`) after two GCs, before and while they wait, divided by %d. The legacy figures include what the connection itself costs net/http (its goroutine, buffers): the floor shows that part.\n\n", r.pendingN, sessionPending, r.pendingN)
	p("| flow | heap/pending | stacks/pending | total/pending | goroutines/pending | ours ÷ |\n|---|---:|---:|---:|---:|---:|\n")
	for _, f := range flows {
		pc, ok := r.pending[f.name]
		if !ok {
			continue
		}
		rel := ""
		if f.server != serverOurs {
			if o, ok := r.pending["ours-"+f.era]; ok && f.era == eraLegacy {
				rel = ratio(o.total(), pc.total())
			}
		}
		p("| %s | %s | %s | %s | %.2f | %s |\n", f.name, fmtBytes(pc.heap), fmtBytes(pc.stacks), fmtBytes(pc.total()), pc.goroutines, rel)
	}
	if o, ok := r.pending["ours-legacy"]; ok {
		if fl, ok := r.pending["floor-legacy"]; ok {
			p("\nAbove the floor, ours holds %s per pending legacy elicitation", fmtBytes(o.total()-fl.total()))
			for _, peer := range []string{"gosdk-legacy", "mcpgo-legacy"} {
				if x, ok := r.pending[peer]; ok {
					p("; %s %s", peer, fmtBytes(x.total()-fl.total()))
				}
			}
			p(".\n")
		}
	}

	if len(r.tasks) > 0 {
		r.tasksMarkdown(p)
	}

	if r.decode != nil {
		p("\n## Decoding and validating an answer\n\n")
		p("The generator engineer's benchmarks in `gen/internal/benchform` (form `PeerForm`: a string with `validate:\"required,ip\"`, a bounded integer, an enum, a multi-select, a bool), run with `go test -bench Decode`; median of %d runs.\n\n", r.decode["Generated"].samples)
		p("| path | ns/op | B/op | allocs/op | ÷ generated |\n|---|---:|---:|---:|---:|\n")
		g := r.decode["Generated"]
		for _, row := range []struct{ key, what string }{
			{"Generated", "generated `ElicitDecode`: bytes → validated struct"},
			{"GoSDKUser", "go-sdk user: map → json.Marshal → json.Unmarshal → validator"},
			{"GoSDKUserFromBytes", "the same, plus the SDK's bytes → map"},
			{"JSONSchema", "jsonschema-go validation + the go-sdk user's path"},
		} {
			d := r.decode[row.key]
			p("| %s | %.0f | %.0f | %.0f | %s |\n", row.what, d.ns, d.bytes, d.allocs, ratio(d.ns, g.ns))
		}
	}

	if len(r.gen) > 0 {
		p("\n## Generator\n\n")
		p("`gen.Generate` in process on a package of N forms shaped like `BenchmarkGenerate200`'s, against `packages.Load` of the same package in `gen.LoadMode` (the floor every go/packages generator pays): without the generated file for the first run, with it for a later run; median of the runs.\n\n")
		p("| forms | first run (writes) | floor: Load without output | ÷ floor | later run (unchanged) | floor: Load with output | ÷ floor |\n|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, g := range r.gen {
			p("| %d | %s | %s | %s | %s | %s | %s |\n", g.forms, fmtDur(g.fresh), fmtDur(g.load), ratio(float64(g.fresh), float64(g.load)),
				fmtDur(g.again), fmtDur(g.loadOut), ratio(float64(g.again), float64(g.loadOut)))
		}
	}

	p("\n## Targets\n\n")
	p("| target | result |\n|---|---|\n")
	for _, era := range []string{eraLegacy, eraModern} {
		for _, conc := range r.concs {
			if q := r.timeRatio("ours-"+era, "floor-"+era, conc); q > 0 {
				p("| %s round trip within %.1f× the floor, concurrency %d | %s (%.2f×) |\n", era, floorTarget, conc, mark(q <= floorTarget), q)
			}
			for _, peer := range peersOf(era)[1:] {
				if q := r.timeRatio("ours-"+era, peer, conc); q > 0 {
					p("| %s round trip ahead of %s, concurrency %d | %s (%.2f× its time) |\n", era, peer, conc, mark(q < 1), q)
				}
			}
		}
	}
	if o, ok := r.pending["ours-legacy"]; ok {
		for _, peer := range []string{"gosdk-legacy", "mcpgo-legacy"} {
			if x, ok := r.pending[peer]; ok {
				p("| memory per pending elicitation below %s | %s (%s vs %s) |\n", peer, mark(o.total() < x.total()), fmtBytes(o.total()), fmtBytes(x.total()))
			}
		}
	}
	if r.decode != nil {
		g := r.decode["Generated"].ns
		for _, k := range []string{"GoSDKUser", "GoSDKUserFromBytes"} {
			x := r.decode[k].ns
			p("| decode ≥5× faster than the go-sdk user's path (%s) | %s (%.1f×) |\n", k, mark(x/g >= 5), x/g)
		}
	}

	for _, pr := range r.profiles {
		p("\n## Profile: %s at concurrency %d\n\n`%s` and `%s` (the server process, 5 s under load; `go tool pprof -top`):\n\n```\n%s```\n", pr.flow, r.concs[len(r.concs)-1], filepath.Base(pr.path), filepath.Base(pr.allocPath), pr.top)
	}
	if notes != "" {
		p("\n%s", notes)
	}
	return b.String()
}

// pprofTop is the head of the flat and the cumulative CPU top of a
// profile, our functions only in the latter, and where the allocations come
// from.
func pprofTop(cpuPath, allocPath string) (string, error) {
	var out strings.Builder
	views := []struct {
		title string
		args  []string
		ours  bool
		max   int
	}{
		{"CPU, flat:", []string{"-top", "-nodecount=15", cpuPath}, false, 0},
		{"CPU, cumulative, github.com/go-elicit functions:", []string{"-top", "-cum", "-nodecount=300", cpuPath}, true, 20},
		{"allocated objects, cumulative, github.com/go-elicit functions:", []string{"-top", "-cum", "-sample_index=alloc_objects", "-nodecount=300", allocPath}, true, 15},
		{"allocated objects, flat:", []string{"-top", "-sample_index=alloc_objects", "-nodecount=12", allocPath}, false, 0},
	}
	for _, v := range views {
		cmd := exec.Command(goTool(), append([]string{"tool", "pprof"}, v.args...)...)
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go tool pprof %s: %w", strings.Join(v.args, " "), err)
		}
		out.WriteString(v.title + "\n")
		n := 0
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case l == "", strings.HasPrefix(l, "File:"), strings.HasPrefix(l, "Type:"), strings.HasPrefix(l, "Time:"),
				strings.HasPrefix(l, "Build ID:"), strings.HasPrefix(l, "Dropped"), strings.HasPrefix(l, "Showing top"):
				continue
			case v.ours && !strings.Contains(l, "go-elicit/elicit"):
				continue
			}
			if v.ours && n >= v.max {
				break
			}
			out.WriteString(l + "\n")
			n++
		}
		out.WriteString("\n")
	}
	return out.String(), nil
}

// tasksMarkdown is the report's section on tasks (tasks.go).
func (r *report) tasksMarkdown(p func(string, ...any)) {
	p("\n## Tasks\n\n")
	p("`ours-task`: the same tool, form and answer, run as a task (the 2026-07-28 extension `%s`, the tool `TaskRequired`) on the embedded store, `runtime/taskstore` (bbolt, a file in a temporary directory: every write committed to disk before it returns, the writes that wait at once in one transaction). ", tasksExtension)
	p("A task's life, as its client lives it: `tools/call` answered with the task; `tasks/get` polled (%v apart) until the task is `input_required`; `tasks/update` with the answer; `tasks/get` polled until it is `completed`; its result checked. ", pollPause)
	p("Time per task is wall time over the tasks completed by that many clients at once, ÷ round trip compares it with the same exchange as a 2026-07-28 `input_required` round trip (`ours-modern` above, same concurrency); server CPU is the server process's user and system time (getrusage) over the tasks, polls included.\n\n")
	p("| concurrency | tasks | tasks/s | time/task | ÷ round trip | polls/task | server CPU/task | server allocs/task | server bytes/task |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range r.tasks {
		rel := ""
		if row := r.rows[rtKey{"ours-" + eraModern, t.conc}]; row != nil {
			rel = ratio(float64(t.perTask()), row.median(window.nsPerOp))
		}
		p("| %d | %d | %.0f | %s | %s | %.1f | %s | %.0f | %s |\n", t.conc, t.n, float64(t.n)/t.wall.Seconds(), fmtDur(t.perTask()), rel, t.pollsPerTask(), fmtDur(t.cpu), t.allocs, fmtBytes(t.bytes))
	}
	w := r.waiting
	p("\nMemory per task waiting for its person: %d tasks `input_required` at once, measured as the pending elicitations above (heap objects and stacks after two GCs, before and while they wait, over their number): %s heap, %s stacks, %.2f goroutines. A waiting task is a record in the store, not a goroutine or a connection.\n", w.n, fmtBytes(w.heap), fmtBytes(w.stacks), w.goroutines)
}
