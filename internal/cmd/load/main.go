package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// The default run: sized for two cores and well under a minute.
const (
	defaultSessions    = 50
	defaultConcurrency = 20
	defaultRounds      = 20
	defaultDeadline    = 90 * time.Second
)

// run is the command: parse flags, run, print the report. Exit status 0
// when the run found nothing wrong, 1 when it found a violation, 2 for a
// bad command line.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/cmd/load [flags]")
		fs.PrintDefaults()
	}
	eraFlag := fs.String("era", "both", "protocol era: legacy, modern or both")
	sessions := fs.Int("sessions", defaultSessions, "legacy sessions, and as many 2026-07-28 clients")
	concurrency := fs.Int("concurrency", defaultConcurrency, fmt.Sprintf("concurrent eliciting calls per session (at most %d)", runtime.DefaultMaxPendingElicitations))
	rounds := fs.Int("rounds", defaultRounds, "measured calls per worker, after one warm-up call")
	seed := fs.Uint64("seed", 1, "seed of the outcome mix: the same seed makes the same calls")
	mixFlag := fs.String("mix", defaultMix.String(), "relative weight of each outcome")
	deadline := fs.Duration("deadline", defaultDeadline, "the whole run must end within this")
	elicitTimeout := fs.Duration("elicit-timeout", 20*time.Second, "the server's elicitation timeout (a lost answer becomes a timeout)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	hostileFlag := fs.Bool("hostile", false, "run the hostile mix beside the measured rounds (see hostile.go)")
	hostileRounds := fs.Int("hostile-rounds", 20, "at most this many rounds of the hostile mix")
	maxRSS := fs.Int64("max-rss", 0, fmt.Sprintf("peak RSS bound of a hostile run, in bytes (0: %d)", DefaultMaxRSS))
	heapTol := fs.Int64("heap-tolerance", 0, fmt.Sprintf("live heap growth allowed over the measured rounds, in bytes (0: %d)", DefaultHeapTolerance))
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "load: unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return 2
	}
	eras, err := parseEras(*eraFlag)
	if err != nil {
		fmt.Fprintf(stderr, "load: -era: %v\n", err)
		return 2
	}
	m, err := parseMix(*mixFlag)
	if err != nil {
		fmt.Fprintf(stderr, "load: -mix: %v\n", err)
		return 2
	}
	cfg := Config{
		Eras: eras, Sessions: *sessions, Concurrency: *concurrency, Rounds: *rounds,
		Seed: *seed, Mix: m, Deadline: *deadline, ElicitTimeout: *elicitTimeout, HeapTolerance: *heapTol,
		Hostile: *hostileFlag, HostileRounds: *hostileRounds, MaxRSS: *maxRSS,
	}
	if err := cfg.validate(); err != nil {
		fmt.Fprintf(stderr, "load: %v\n", err)
		return 2
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "load: -cpuprofile: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "load: -cpuprofile: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "load: %v\n", err)
		return 1
	}
	rep.Write(stdout)
	if !rep.OK() {
		return 1
	}
	return 0
}

// Write prints the report: per era the clients, calls, elicitations per
// second and round-trip percentiles of the measured rounds, the outcome
// counts of every call, then the checks, lost=N and PASS or FAIL.
func (r *Report) Write(w io.Writer) {
	c := r.Config
	eras := make([]string, len(c.Eras))
	for i, e := range c.Eras {
		eras[i] = e.String()
	}
	fmt.Fprintf(w, "load: eras=%s sessions=%d concurrency=%d rounds=1+%d seed=%d\n", strings.Join(eras, ","), c.Sessions, c.Concurrency, c.Rounds, c.Seed)
	fmt.Fprintf(w, "mix: %s\n", c.Mix)
	for _, er := range r.Eras {
		measured := er.Calls - er.WarmupCalls
		rate := 0.0
		if er.Elapsed > 0 {
			rate = float64(measured) / er.Elapsed.Seconds()
		}
		var versions []string
		for _, v := range []string{runtime.Version20250618, runtime.Version20251125, runtime.Version20260728} {
			if n := er.Versions[v]; n > 0 {
				versions = append(versions, fmt.Sprintf("%d×%s", n, v))
			}
		}
		kind := "sessions"
		if er.Era == eraModern {
			kind = "clients"
		}
		fmt.Fprintf(w, "%s: %s=%d (%s) calls=%d (%d warm-up) measured=%d in %v: %.0f elicitations/s, round trip p50=%s p99=%s\n",
			er.Era, kind, er.Clients, strings.Join(versions, ", "), er.Calls, er.WarmupCalls, measured,
			er.Elapsed.Round(time.Millisecond), rate, latency(er.P50), latency(er.P99))
		fmt.Fprintf(w, "  %-12s %8s %8s %8s\n", "outcome", "sent", "server", "received")
		for _, o := range clientOutcomes {
			fmt.Fprintf(w, "  %-12s %8d %8d %8d\n", o, er.Sent[o], er.Server[o], er.Received[o])
		}
		if n := er.Server[outcomeUnexpected] + er.Server[outcomeNone] + er.Server[outcomeInputRequired]; n > 0 {
			fmt.Fprintf(w, "  %-12s %8s %8d\n", "other", "", n)
		}
		fmt.Fprintf(w, "  lost=%d mismatched=%d\n", er.Lost, er.Mismatched)
	}
	measuredCalls := 0
	for _, er := range r.Eras {
		measuredCalls += er.Calls - er.WarmupCalls
	}
	perCall := int64(0)
	if measuredCalls > 0 {
		perCall = c.heapTolerance() / int64(measuredCalls)
	}
	fmt.Fprintf(w, "handlers: entered=%d returned=%d\n", r.HandlersEntered, r.HandlersExited)
	fmt.Fprintf(w, "heap: baseline=%s end=%s delta=%s tolerance=%s (a leak of %dB per measured call would show)\n",
		bytesString(int64(r.HeapBaseline)), bytesString(int64(r.HeapFinal)), bytesString(int64(r.HeapFinal)-int64(r.HeapBaseline)),
		bytesString(c.heapTolerance()), perCall)
	fmt.Fprintf(w, "goroutines: before=%d after-shutdown=%d; sessions left=%d\n", r.GoroutinesBaseline, r.GoroutinesAfter, r.SessionsLeft)
	if r.Hostile != nil {
		r.Hostile.write(w)
	}
	fmt.Fprintf(w, "lost=%d\n", r.Lost)
	if r.OK() {
		fmt.Fprintln(w, "PASS")
		return
	}
	for _, v := range r.FirstViolation {
		fmt.Fprintf(w, "violation: %s\n", v)
	}
	if more := r.Violations - len(r.FirstViolation); more > 0 {
		fmt.Fprintf(w, "... and %d more violations\n", more)
	}
	fmt.Fprintf(w, "FAIL: %d violations\n", r.Violations)
}

// latency prints a percentile; n/a when no call waited for a result.
func latency(d time.Duration) string {
	if d <= 0 {
		return "n/a"
	}
	return d.Round(time.Microsecond).String()
}
