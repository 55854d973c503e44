// Command bench measures the elicitation round trip, decoding and code
// generation of elicit side by side with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), mcp-go
// (github.com/mark3labs/mcp-go) and a floor of bare net/http, and prints a
// markdown report. It is what make bench runs:
//
//	go run ./internal/cmd/bench            # the full run, a few minutes on 2 cores
//	go run ./internal/cmd/bench -quick     # a smoke run of every part, seconds
//
// # What runs
//
// The flow, identical on every server: a tool "ask" that elicits a two-field
// form (a string and an integer, the generated AskForm) and returns the two
// values; the client accepts with {"name":"ada","count":3}.
//
//	ours-legacy    this runtime, 2025-11-25: runtime.Elicit[AskForm], the
//	               elicitation on the call's SSE stream, the answer POSTed
//	gosdk-legacy   go-sdk, ServerSession.Elicit on a stateful handler
//	mcpgo-legacy   mcp-go, MCPServer.RequestElicitation
//	floor-legacy   bare net/http: hand-written SSE frames, a channel
//	ours-modern    this runtime, 2026-07-28: input_required, then the retry
//	gosdk-modern   go-sdk, InputRequests on a stateless handler
//	floor-modern   bare net/http: two hand-written JSON answers
//	traced-legacy  ours-legacy with OpenTelemetry SDK providers (spans
//	traced-modern  batched to an exporter that drops them, metrics into a
//	               manual reader): the cost of telemetry
//
// Beside ours-modern, the same tool runs as a task (tasks.go: ours-task, the
// 2026-07-28 tasks extension on the embedded store): the cost of a task's
// whole life at each concurrency, and the memory a task waiting for its
// person holds (up to 1000 of them, at most -pending).
//
// Every server runs in a child process of its own (this binary again), so
// that its allocations and memory are read without the client's. One client
// harness, hand-rolled HTTP/1.1 over keep-alive loopback connections, drives
// all of them, with the same code for every server. Round trips are
// measured in rounds; each round gives every flow one window at each
// concurrency, the flows in an order rotated every round, so drift hits
// every row alike.
//
// # Output
//
// The report goes to stdout and to OUT/REPORT.md (and to -report, when
// given); OUT also receives the raw figures in the format benchstat reads
// (roundtrip.txt, decode.txt, generate.txt), pending.txt, tasks.txt, and CPU and
// allocation profiles (*.pprof) of our flows when a round-trip target is
// missed. OUT defaults to .tools/bench under the module root, which git
// ignores.
//
// # Flags
//
//	-quick         one short round of everything: proves the harness, measures little
//	-out DIR       where the raw output goes (default MODULE/.tools/bench)
//	-report FILE   also write the report there (the committed one: -report internal/cmd/bench/REPORT.md)
//	-rounds N      round-trip rounds (default 15; 1 with -quick)
//	-window D      length of one round-trip window (default 300ms; 100ms with -quick)
//	-pending N     elicitations held at once for the memory figures (default 10000; 1000 with -quick)
//	-profile       record the profiles of our flows even when the targets are met
//	-flows LIST    run only these flows (comma-separated names from the list above)
//	-compare BASE  instead of the above: BASE's servers against the working
//	               tree's and the floor, interleaved in one run (see compare.go;
//	               make bench-compare BASE=<commit>)
//	-skip-decode, -skip-generate   leave those parts out
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if name := os.Getenv(serveEnv); name != "" {
		os.Exit(serveChild(name))
	}
	log.SetFlags(0)
	log.SetPrefix("bench: ")
	os.Exit(run(os.Args[1:], os.Stdout))
}

// options is the command line.
type options struct {
	quick      bool
	out        string
	report     string
	rounds     int
	window     time.Duration
	pending    int
	profile    bool
	skipGen    bool
	skipDecode bool
	flows      []flow
	concs      []int
	plot       string
	compare    string // -compare BASE: base against the working tree (compare.go)
}

func parseFlags(args []string) (*options, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	o := &options{}
	fs.BoolVar(&o.quick, "quick", false, "one short round of everything (a smoke run)")
	fs.StringVar(&o.out, "out", "", "directory for raw output (default MODULE/.tools/bench)")
	fs.StringVar(&o.report, "report", "", "also write the markdown report to this file")
	fs.IntVar(&o.rounds, "rounds", 0, "round-trip rounds (default 15, 1 with -quick)")
	fs.DurationVar(&o.window, "window", 0, "length of one round-trip window (default 300ms, 100ms with -quick)")
	fs.IntVar(&o.pending, "pending", 0, "elicitations held at once for the memory figures (default 10000, 1000 with -quick)")
	fs.BoolVar(&o.profile, "profile", false, "record CPU profiles of our flows even when the targets are met")
	fs.BoolVar(&o.skipGen, "skip-generate", false, "leave out the generator timing")
	fs.BoolVar(&o.skipDecode, "skip-decode", false, "leave out the decode benchmarks")
	only := fs.String("flows", "", "comma-separated flows to run (default: all)")
	concList := fs.String("conc", "1,64", "comma-separated concurrencies of the round trips, ascending")
	fs.StringVar(&o.compare, "compare", "", "compare the round trip and pending memory of this commit's servers with the working tree's, against the floor (what make bench-compare runs)")
	fs.StringVar(&o.plot, "plot", "", "also write the plot of round trips/s and p50 latency against concurrency (SVG) to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.flows = flows
	if *only != "" {
		o.flows = nil
		for _, name := range strings.Split(*only, ",") {
			f, ok := flowByName(strings.TrimSpace(name))
			if !ok || f == taskFlow { // the tasks' server runs beside ours-modern, not as a flow
				return nil, fmt.Errorf("-flows: unknown flow %q", name)
			}
			o.flows = append(o.flows, f)
		}
	}
	for _, f := range strings.Split(*concList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 256 || (len(o.concs) > 0 && n <= o.concs[len(o.concs)-1]) {
			return nil, fmt.Errorf("-conc: %q: want ascending whole numbers from 1 to 256", *concList)
		}
		o.concs = append(o.concs, n)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.rounds == 0 {
		switch {
		case o.quick && o.compare != "":
			o.rounds = 3 // a spread needs a few rounds
		case o.quick:
			o.rounds = 1
		default:
			o.rounds = 15
		}
	}
	if o.window == 0 {
		o.window = 300 * time.Millisecond
		if o.quick {
			o.window = 100 * time.Millisecond
		}
	}
	if o.pending == 0 {
		o.pending = 10000
		if o.quick {
			o.pending = 1000
		}
	}
	switch {
	case o.rounds < 1:
		return nil, errors.New("-rounds must be at least 1")
	case o.window < 10*time.Millisecond:
		return nil, errors.New("-window must be at least 10ms")
	case o.pending < 0 || o.pending > 15000:
		return nil, errors.New("-pending must be between 1 and 15000 (each legacy one holds a connection)")
	}
	return o, nil
}

func run(args []string, stdout io.Writer) int {
	o, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		log.Print(err)
		return 2
	}
	if o.compare != "" {
		if err := runCompare(o, stdout); err != nil {
			log.Print(err)
			return 1
		}
		return 0
	}
	rep, err := measure(o)
	if err != nil {
		log.Print(err)
		return 1
	}
	text := rep.markdown()
	fmt.Fprint(stdout, text)
	if len(rep.concs) > 1 {
		for _, p := range []string{filepath.Join(o.out, "roundtrip.svg"), o.plot} {
			if p == "" {
				continue
			}
			if err := rep.plotSVG(p); err != nil {
				log.Print(err)
				return 1
			}
		}
	}
	for _, p := range []string{filepath.Join(o.out, "REPORT.md"), o.report} {
		if p == "" {
			continue
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			log.Print(err)
			return 1
		}
	}
	return 0
}

// rawFile collects benchstat lines for one file of OUT.
type rawFile struct {
	path string
	buf  bytes.Buffer
}

func newRawFile(dir, name string, m machine) *rawFile {
	f := &rawFile{path: filepath.Join(dir, name)}
	fmt.Fprintf(&f.buf, "goos: %s\ngoarch: %s\npkg: github.com/go-elicit/elicit/internal/cmd/bench\ncpu: %s\n", m.goos, m.goarch, m.cpu)
	return f
}

func (f *rawFile) add(line string) { f.buf.WriteString(strings.TrimRight(line, "\n") + "\n") }

func (f *rawFile) save() error { return os.WriteFile(f.path, f.buf.Bytes(), 0o644) }

// measure runs every part and gathers the report.
func measure(o *options) (*report, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	if o.out == "" {
		o.out = filepath.Join(root, ".tools", "bench")
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	rep := &report{machine: describeMachine(), quick: o.quick, rounds: o.rounds, started: time.Now(), pendingN: o.pending}
	progress := func(format string, args ...any) { log.Printf(format, args...) }

	children := make([]*child, 0, len(o.flows))
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	for _, f := range o.flows {
		c, err := startChild(f)
		if err != nil {
			return nil, err
		}
		children = append(children, c)
	}

	// Round trips.
	concs := o.concs
	pools := make([]*pool, len(children))
	for i, c := range children {
		p, err := newPool(c, concs[len(concs)-1])
		if err != nil {
			return nil, err
		}
		defer p.Close()
		pools[i] = p
	}
	cfg := roundTripConfig{concs: concs, rounds: o.rounds, window: o.window, warmup: o.window / 3, maxOps: 1 << 20}
	progress("round trips: %d flows x %v concurrency x %d rounds of %v", len(o.flows), concs, o.rounds, o.window)
	rtRaw := newRawFile(o.out, "roundtrip.txt", rep.machine)
	rows, err := measureRoundTrips(pools, cfg, rtRaw.add)
	if err != nil {
		return nil, err
	}
	if err := rtRaw.save(); err != nil {
		return nil, err
	}
	rep.rows, rep.concs = rows, concs

	// Profiles of our flows where a target is missed (or when asked).
	for _, era := range []string{eraLegacy, eraModern} {
		missed := rep.roundTripMissed(era)
		if o.quick || (!o.profile && len(missed) == 0) {
			continue
		}
		for i, c := range children {
			if c.f.server != serverOurs || c.f.era != era {
				continue
			}
			cpuPath := filepath.Join(o.out, c.f.name+".cpu.pprof")
			allocPath := filepath.Join(o.out, c.f.name+".allocs.pprof")
			progress("profiling %s at concurrency %d (%s)", c.f.name, concs[len(concs)-1], strings.Join(missed, "; "))
			if err := profileFlow(pools[i], 5*time.Second, cpuPath, allocPath); err != nil {
				return nil, err
			}
			top, err := pprofTop(cpuPath, allocPath)
			if err != nil {
				return nil, err
			}
			rep.profiles = append(rep.profiles, profileNote{flow: c.f.name, path: cpuPath, allocPath: allocPath, top: top})
		}
	}
	for _, p := range pools {
		p.Close()
	}

	// Memory per pending elicitation.
	progress("pending: %d elicitations held at once, per server", o.pending)
	pendRaw := newRawFile(o.out, "pending.txt", rep.machine)
	rep.pending = map[string]pendingCost{}
	for _, c := range children {
		pc, err := measurePending(c, o.pending)
		if err != nil {
			return nil, err
		}
		rep.pending[c.f.name] = pc
		pendRaw.add(fmt.Sprintf("BenchmarkPending/flow=%s \t%d\t%.0f heap-B/op\t%.0f stack-B/op\t%.3f goroutines/op", c.f.name, pc.n, pc.heap, pc.stacks, pc.goroutines))
	}
	if err := pendRaw.save(); err != nil {
		return nil, err
	}

	// Tasks, beside the 2026-07-28 round trip they compare with.
	if slices.ContainsFunc(o.flows, func(f flow) bool { return f.name == "ours-"+eraModern }) {
		if err := measureTasks(o, rep, progress); err != nil {
			return nil, err
		}
	}

	// Decode.
	if !o.skipDecode {
		benchtime, count := "300ms", 6
		if o.quick {
			benchtime, count = "20ms", 1
		}
		progress("decode: go test -bench Decode %s (-count %d)", decodePackage, count)
		decRaw := &rawFile{path: filepath.Join(o.out, "decode.txt")} // go test prints its own header
		dec, err := measureDecode(root, benchtime, count, decRaw.add)
		if err != nil {
			return nil, err
		}
		if err := decRaw.save(); err != nil {
			return nil, err
		}
		rep.decode = dec
	}

	// Generator.
	if !o.skipGen {
		sizes, reps := []int{10, 100, 1000}, 3
		if o.quick {
			sizes, reps = []int{10, 100}, 1
		}
		progress("generate: %v forms, %d runs each", sizes, reps)
		genRaw := newRawFile(o.out, "generate.txt", rep.machine)
		gens, err := measureGenerate(filepath.Join(o.out, "gen"), sizes, reps, genRaw.add)
		if err != nil {
			return nil, err
		}
		if err := genRaw.save(); err != nil {
			return nil, err
		}
		rep.gen = gens
	}
	rep.elapsed = time.Since(rep.started)
	rep.machine.loadEnd = loadAverage()
	return rep, nil
}

// profileFlow records a CPU and an allocation profile of the pool's server
// while its workers run at full concurrency.
func profileFlow(p *pool, d time.Duration, cpuPath, allocPath string) error {
	errc := make(chan error, 2)
	go func() { errc <- p.c.profile("profile", d, cpuPath) }()
	go func() { errc <- p.c.profile("allocs", d, allocPath) }()
	time.Sleep(50 * time.Millisecond) // let the profiles start before the load
	w, err := p.run(len(p.workers), d, 1<<20, nil)
	if err != nil {
		return err
	}
	// With the count, a profile's total over it is the server's CPU time
	// per round trip, which compares across flows and commits.
	log.Printf("profiled %d round trips into %s", w.n, filepath.Base(cpuPath))
	return errors.Join(<-errc, <-errc)
}
