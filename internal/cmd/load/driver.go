package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	goruntime "runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"go.uber.org/goleak"
)

// Config sizes and seeds a run.
type Config struct {
	Eras        []era
	Sessions    int // legacy sessions, and as many 2026-07-28 clients
	Concurrency int // calls in flight per session, each eliciting
	Rounds      int // measured calls per worker, after one warm-up call
	Seed        uint64
	Mix         mix
	// Deadline bounds the whole run; past it every request is abandoned
	// and the run fails.
	Deadline time.Duration
	// ElicitTimeout is the server's: a lost answer surfaces as a timeout.
	ElicitTimeout time.Duration
	// HeapTolerance is how much more live heap the end of the run may hold
	// than its baseline (0: DefaultHeapTolerance).
	HeapTolerance int64
	// Hostile runs the hostile mix (hostile.go) beside the measured
	// rounds, for at most HostileRounds rounds, and bounds the peak RSS by
	// MaxRSS (0: DefaultMaxRSS).
	Hostile       bool
	HostileRounds int
	MaxRSS        int64
}

// Bounds of a configuration: a run must stay a bounded loopback run.
const (
	maxSessions = 1000
	maxRounds   = 100000
	maxCalls    = 4 << 20
	// maxHostileRounds bounds the hostile mix: a round sends about 8 MiB.
	maxHostileRounds = 1000
)

// DefaultHeapTolerance is the heap growth a run may show. A forced GC makes
// "live heap" exact, so what remains between baseline and end is bounded
// noise that does not scale with the number of calls: runtime maps that do
// not shrink (sessions, pending, calls, net/http's connection sets), the
// goroutine descriptors the runtime keeps for reuse, timer and scheduler
// structures, and connection buffers when a close is still in flight. The
// warm-up round runs at full concurrency, so these peaks are already in the
// baseline; what the measured rounds add is well under 1 MiB at any size
// tried. 4 MiB leaves room for that noise and still catches a leak of a few
// hundred bytes per call in a default run (the report prints the bound per
// call).
const DefaultHeapTolerance = 4 << 20

func (c Config) totalRounds() int { return c.Rounds + 1 }

func (c Config) heapTolerance() int64 {
	if c.HeapTolerance > 0 {
		return c.HeapTolerance
	}
	return DefaultHeapTolerance
}

func (c Config) validate() error {
	switch {
	case len(c.Eras) == 0:
		return errors.New("no era to run")
	case c.Sessions < 1 || c.Sessions > maxSessions:
		return fmt.Errorf("sessions must be from 1 to %d, not %d", maxSessions, c.Sessions)
	case c.Concurrency < 1 || c.Concurrency > runtime.DefaultMaxPendingElicitations:
		// One more would be refused with ErrElicitTooMany, by design.
		return fmt.Errorf("concurrency must be from 1 to %d (the pending elicitations a session may have), not %d", runtime.DefaultMaxPendingElicitations, c.Concurrency)
	case c.Rounds < 1 || c.Rounds > maxRounds:
		return fmt.Errorf("rounds must be from 1 to %d, not %d", maxRounds, c.Rounds)
	case int(numEras)*c.Sessions*c.Concurrency*c.totalRounds() > maxCalls:
		return fmt.Errorf("sessions × concurrency × rounds is more than %d calls per era", maxCalls/int(numEras))
	case c.Deadline <= 0:
		return errors.New("deadline must be positive")
	case c.ElicitTimeout <= 0:
		return errors.New("elicit timeout must be positive")
	case c.HeapTolerance < 0:
		return errors.New("heap tolerance must not be negative")
	case c.Hostile && (c.HostileRounds < 1 || c.HostileRounds > maxHostileRounds):
		return fmt.Errorf("hostile rounds must be from 1 to %d, not %d", maxHostileRounds, c.HostileRounds)
	case c.MaxRSS < 0:
		return errors.New("max RSS must not be negative")
	}
	total := 0
	for _, o := range clientOutcomes {
		if c.Mix[o] < 0 {
			return fmt.Errorf("mix weight of %s is negative", o)
		}
		total += c.Mix[o]
	}
	if total == 0 {
		return errors.New("mix: every weight is 0")
	}
	return nil
}

// driver runs a plan against the server and checks what happened.
type driver struct {
	cfg     Config
	plan    *plan
	srv     *server
	wire    *wire
	clients [numEras][]*client
	viol    *violations
}

// Report is what a run measured and every violation it found.
type Report struct {
	Config Config
	Eras   []EraReport

	HandlersEntered, HandlersExited int64
	HeapBaseline, HeapFinal         uint64
	GoroutinesBaseline              int
	GoroutinesAfter                 int
	SessionsLeft                    int
	Lost                            int
	Hostile                         *HostileReport // with Config.Hostile

	Violations     int
	FirstViolation []string // the first few, in the order found
}

// EraReport holds one era's figures.
type EraReport struct {
	Era         era
	Clients     int
	Versions    map[string]int // clients per protocol version
	Calls       int            // every call, warm-up included
	WarmupCalls int
	Elapsed     time.Duration // the measured rounds
	P50, P99    time.Duration // round trip of the measured calls that got a result
	Sent        [numOutcomes]int
	Server      [numOutcomes]int
	Received    [numOutcomes]int
	Lost        int
	Mismatched  int
}

// OK reports whether the run found nothing wrong.
func (r *Report) OK() bool { return r.Violations == 0 }

// Run drives one load run and checks it. Its error is for a run that
// cannot start (a bad configuration, no loopback port); everything the run
// finds is in the report.
func Run(parent context.Context, cfg Config) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	ignore := goleak.IgnoreCurrent()
	rep := &Report{Config: cfg, GoroutinesBaseline: goruntime.NumGoroutine()}
	d := &driver{cfg: cfg, plan: newPlan(cfg), viol: &violations{}}
	srv, err := startServer(cfg, d.plan.records, d.viol)
	if err != nil {
		return nil, err
	}
	d.srv = srv
	d.wire = newWire(srv.url, 2*cfg.Sessions*cfg.Concurrency+16)

	ctx, cancel := context.WithTimeout(parent, cfg.Deadline)
	d.drive(ctx, rep)
	deadlineErr := ctx.Err()
	cancel()
	switch {
	case errors.Is(deadlineErr, context.DeadlineExceeded):
		d.viol.add("the run did not finish within its deadline (%v)", cfg.Deadline)
	case deadlineErr != nil:
		d.viol.add("the run was interrupted: %v", context.Cause(parent))
	}
	d.stop(rep, ignore)
	d.verify(rep)
	rep.Violations, rep.FirstViolation = d.viol.snapshot()
	return rep, nil
}

// drive opens the sessions, runs the warm-up round, takes the heap
// baseline, runs the measured rounds era by era and takes the final heap.
func (d *driver) drive(ctx context.Context, rep *Report) {
	for _, e := range d.cfg.Eras {
		d.clients[e] = make([]*client, d.cfg.Sessions)
		for i := range d.clients[e] {
			c := &client{index: i, era: e, version: modernVersion}
			if e == eraLegacy {
				c.version = legacyVersionOf(i)
				if err := d.initialize(ctx, c); err != nil {
					d.viol.add("legacy session %d (%s): %v", i, c.version, err)
					return
				}
			}
			d.clients[e][i] = c
		}
	}
	// The warm-up round runs at full concurrency, so the structures that
	// keep their peak size are in the baseline (see DefaultHeapTolerance).
	for _, e := range d.cfg.Eras {
		d.phase(ctx, e, 0, 1)
	}
	d.quiesce()
	rep.HeapBaseline = liveHeap()
	var h *hostile
	hctx, stopHostile := context.WithCancel(ctx)
	defer stopHostile()
	if d.cfg.Hostile {
		rep.Hostile = &HostileReport{}
		h = d.startHostile(ctx, hctx, rep.Hostile)
	}
	rep.Eras = make([]EraReport, len(d.cfg.Eras))
	for i, e := range d.cfg.Eras {
		rep.Eras[i].Era = e
		rep.Eras[i].Elapsed = d.phase(ctx, e, 1, d.cfg.totalRounds())
	}
	if h != nil {
		stopHostile()
		h.stop(ctx)
	}
	d.quiesce()
	rep.HeapFinal = liveHeap()
	if grow := int64(rep.HeapFinal) - int64(rep.HeapBaseline); grow > d.cfg.heapTolerance() {
		d.viol.add("live heap grew by %s over the measured rounds (baseline %s, end %s), more than the %s tolerated",
			bytesString(grow), bytesString(int64(rep.HeapBaseline)), bytesString(int64(rep.HeapFinal)), bytesString(d.cfg.heapTolerance()))
	}
}

// phase runs rounds [from, to) of every worker of every client of era e
// and returns how long it took.
func (d *driver) phase(ctx context.Context, e era, from, to int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for s, c := range d.clients[e] {
		for w := range d.cfg.Concurrency {
			wg.Go(func() {
				for round := from; round < to && ctx.Err() == nil; round++ {
					call := d.plan.index(e, s, w, round)
					if e == eraLegacy {
						d.legacyCall(ctx, c, call)
					} else {
						d.modernCall(ctx, c, call)
					}
				}
			})
		}
	}
	wg.Wait()
	return time.Since(start)
}

// settle is how long the driver waits for the server to catch up with the
// clients (handlers returning after a disconnect, connections closing).
const settle = 10 * time.Second

// quiesce waits until no handler runs and no connection is open.
func (d *driver) quiesce() {
	if !waitFor(settle, func() bool { return d.srv.entered.Load() == d.srv.exited.Load() }) {
		d.viol.add("handlers still running %v after the clients finished: %d entered, %d returned", settle, d.srv.entered.Load(), d.srv.exited.Load())
	}
	d.wire.tr.CloseIdleConnections()
	if !waitFor(settle, func() bool { return d.srv.conns.Load() == 0 }) {
		d.viol.add("%d server connections still open %v after the clients closed theirs", d.srv.conns.Load(), settle)
	}
}

// waitFor polls cond until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

// liveHeap is the heap reachable after a full collection. Two: the first
// moves sync.Pool contents to their victim caches, the second frees them.
func liveHeap() uint64 {
	goruntime.GC()
	goruntime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// stop closes the sessions, shuts the server down and checks that nothing
// is left running.
func (d *driver) stop(rep *Report, ignore goleak.Option) {
	ctx, cancel := context.WithTimeout(context.Background(), settle)
	defer cancel()
	for _, c := range d.clients[eraLegacy] {
		if c == nil || c.session == "" {
			continue
		}
		if err := d.closeSession(ctx, c); err != nil {
			d.viol.add("%v", err)
		}
	}
	if rep.SessionsLeft = d.srv.rt.SessionCount(); rep.SessionsLeft != 0 {
		d.viol.add("%d sessions still live after every client DELETEd its own", rep.SessionsLeft)
	}

	// Shutdown must return: the run guards against it hanging.
	done := make(chan error, 1)
	go func() { done <- d.srv.rt.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			d.viol.add("runtime Shutdown: %v", err)
		}
	case <-time.After(settle + time.Second):
		d.viol.add("runtime Shutdown did not return within %v", settle)
	}
	if err := d.srv.hs.Shutdown(ctx); err != nil {
		d.viol.add("http.Server Shutdown: %v", err)
	}
	select {
	case err := <-d.srv.served:
		if !errors.Is(err, http.ErrServerClosed) {
			d.viol.add("http.Server Serve returned %v", err)
		}
	case <-ctx.Done():
		d.viol.add("http.Server Serve did not return after Shutdown")
	}
	d.wire.tr.CloseIdleConnections()
	rep.HandlersEntered, rep.HandlersExited = d.srv.entered.Load(), d.srv.exited.Load()

	if err := leftover(ignore, settle); err != nil {
		d.viol.add("goroutines left after Shutdown: %v", err)
	}
	rep.GoroutinesAfter = goruntime.NumGoroutine()

}

// leftover reports the goroutines that ignore does not cover, with their
// stacks (goleak), after giving those that end asynchronously (connection
// loops) up to wait.
func leftover(ignore goleak.Option, wait time.Duration) error {
	var leak error
	waitFor(wait, func() bool {
		leak = goleak.Find(ignore)
		return leak == nil
	})
	if leak == nil {
		return nil
	}
	msg := leak.Error()
	if len(msg) > 4000 {
		msg = msg[:4000] + "\n..."
	}
	return errors.New(msg)
}

// verify checks every call of the plan against what the server and the
// client recorded, and counts the outcomes.
func (d *driver) verify(rep *Report) {
	if rep.Eras == nil { // the run stopped before the measured rounds
		rep.Eras = make([]EraReport, len(d.cfg.Eras))
		for i, e := range d.cfg.Eras {
			rep.Eras[i].Era = e
		}
	}
	var runs int64
	for i := range rep.Eras {
		er := &rep.Eras[i]
		e := er.Era
		er.Clients = d.cfg.Sessions
		er.Versions = map[string]int{}
		for s := range d.cfg.Sessions {
			v := modernVersion
			if e == eraLegacy {
				v = legacyVersionOf(s)
			}
			er.Versions[v]++
		}
		var lat []time.Duration
		for s := range d.cfg.Sessions {
			for w := range d.cfg.Concurrency {
				for round := range d.cfg.totalRounds() {
					call := d.plan.index(e, s, w, round)
					d.verifyCall(call, er)
					runs += int64(d.plan.records[call].runs.Load())
					er.Calls++
					if round == 0 {
						er.WarmupCalls++
					} else if l := d.plan.records[call].latency; l > 0 {
						lat = append(lat, l)
					}
				}
			}
		}
		slices.Sort(lat)
		er.P50, er.P99 = percentile(lat, 50), percentile(lat, 99)
		for _, o := range clientOutcomes {
			if er.Sent[o] != er.Server[o] || er.Sent[o] != er.Received[o] {
				d.viol.add("%s %s: sent %d, the server saw %d, the clients received %d", e, o, er.Sent[o], er.Server[o], er.Received[o])
			}
		}
		rep.Lost += er.Lost
	}
	if rep.HandlersEntered != runs || rep.HandlersExited != runs {
		d.viol.add("handlers entered %d and returned %d times for %d recorded runs", rep.HandlersEntered, rep.HandlersExited, runs)
	}
}

// verifyCall checks one call. Lost means: no exactly-one terminal result
// for a call that waited for one, or, for a legacy disconnect, a handler
// that did not return with the context error.
func (d *driver) verifyCall(call int, er *EraReport) {
	p, rec := &d.plan.calls[call], &d.plan.records[call]
	runs := rec.runs.Load()
	first, second := outcome(rec.outcomes[0].Load()), outcome(rec.outcomes[1].Load())
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var saw outcome
	lost := false
	switch p.era {
	case eraLegacy:
		saw = first
		if runs != 1 {
			problem("the handler ran %d times, want 1", runs)
		}
		if r := rec.rounds[0].Load(); runs > 0 && r != 1 {
			problem("the handler saw Round %d on a legacy session, want 0", r-1)
		}
		if p.outcome == outcomeDisconnect {
			lost = first != outcomeDisconnect
		} else {
			lost = rec.results[0] != 1
		}
	case eraModern:
		if first != outcomeInputRequired {
			problem("the first run's Elicit returned %s, want input-required", first)
		}
		if r := rec.rounds[0].Load(); runs > 0 && r != 1 {
			problem("the first run saw Round %d, want 0", r-1)
		}
		lost = rec.results[0] != 1
		if p.outcome == outcomeDisconnect {
			saw = outcomeUnexpected
			if runs == 1 && first == outcomeInputRequired {
				saw = outcomeDisconnect // asked, and nobody came back
			}
			if runs != 1 {
				problem("the handler ran %d times for a dropped retry, want 1", runs)
			}
		} else {
			saw = second
			if runs != 2 {
				problem("the handler ran %d times, want 2 (the call and its retry)", runs)
			}
			if r := rec.rounds[1].Load(); runs > 1 && r != 2 {
				problem("the retry saw Round %d, want 1", r-1)
			}
			lost = lost || rec.results[1] != 1
		}
	}
	er.Sent[p.outcome]++
	er.Server[saw]++
	final := rec.results[0] // the terminal result's reply: the call, or its retry
	if p.era == eraModern {
		final = rec.results[1]
	}
	switch {
	case p.outcome == outcomeDisconnect && rec.elicited:
		er.Received[outcomeDisconnect]++ // asked, then the client left
	case p.outcome != outcomeDisconnect && final > 0:
		er.Received[rec.received]++
	}
	if saw != p.outcome {
		problem("the server's Elicit returned %s, want %s", saw, p.outcome)
	}
	if lost {
		er.Lost++
		problem("lost: terminal results %v, handler outcomes %s/%s", rec.results, first, second)
	}
	if len(problems) > 0 || (p.outcome != outcomeDisconnect && !rec.detailOK) {
		er.Mismatched++
	}
	if len(problems) > 0 {
		d.viol.add("%s: %s", d.describe(call), strings.Join(problems, "; "))
	}
}

// percentile is the nearest-rank percentile of sorted samples.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100 // ceil(n*p/100), 1-based rank
	return sorted[max(i-1, 0)]
}

func bytesString(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%s%.1fMiB", sign, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s%.1fKiB", sign, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%s%dB", sign, n)
}
