package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func smallConfig() Config {
	return Config{
		Eras:          []era{eraLegacy, eraModern},
		Sessions:      5,
		Concurrency:   4,
		Rounds:        20,
		Seed:          1,
		Mix:           defaultMix,
		Deadline:      60 * time.Second,
		ElicitTimeout: 15 * time.Second,
	}
}

// TestSmallRun is the load run `make test` does: 5 sessions × 4 concurrent
// eliciting calls, both eras, the default mix, every check of the full run.
func TestSmallRun(t *testing.T) {
	cfg := smallConfig()
	start := time.Now()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Write(&out)
	t.Logf("small run in %v:\n%s", time.Since(start).Round(time.Millisecond), out.String())
	if !rep.OK() {
		t.Fatalf("the run found %d violations", rep.Violations)
	}
	perEra := cfg.Sessions * cfg.Concurrency * cfg.totalRounds()
	if len(rep.Eras) != 2 {
		t.Fatalf("%d era reports, want 2", len(rep.Eras))
	}
	var runs int64
	for _, er := range rep.Eras {
		if er.Calls != perEra || er.WarmupCalls != cfg.Sessions*cfg.Concurrency {
			t.Errorf("%s: %d calls (%d warm-up), want %d (%d)", er.Era, er.Calls, er.WarmupCalls, perEra, cfg.Sessions*cfg.Concurrency)
		}
		sent := 0
		for _, o := range clientOutcomes {
			sent += er.Sent[o]
			if er.Sent[o] != er.Server[o] || er.Sent[o] != er.Received[o] {
				t.Errorf("%s %s: sent %d, server %d, received %d", er.Era, o, er.Sent[o], er.Server[o], er.Received[o])
			}
		}
		if sent != perEra {
			t.Errorf("%s: outcomes add up to %d, want %d", er.Era, sent, perEra)
		}
		if er.Lost != 0 || er.Mismatched != 0 || er.P50 <= 0 || er.P99 < er.P50 {
			t.Errorf("%s: lost %d mismatched %d p50 %v p99 %v", er.Era, er.Lost, er.Mismatched, er.P50, er.P99)
		}
		runs += int64(er.Calls)
		if er.Era == eraModern {
			runs += int64(er.Calls - er.Sent[outcomeDisconnect]) // the retries
		}
	}
	if rep.HandlersEntered != runs || rep.HandlersExited != runs {
		t.Errorf("handlers entered %d, returned %d, want %d", rep.HandlersEntered, rep.HandlersExited, runs)
	}
	if rep.SessionsLeft != 0 || rep.Lost != 0 {
		t.Errorf("sessions left %d, lost %d", rep.SessionsLeft, rep.Lost)
	}
	for _, want := range []string{"legacy: sessions=5", "modern: clients=5", "elicitations/s", "p50=", "p99=", "\nlost=0\n", "\nPASS\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestEachOutcome runs every outcome alone in both eras, so each path is
// taken on purpose, not only when the draw favours it.
func TestEachOutcome(t *testing.T) {
	for _, o := range clientOutcomes {
		t.Run(o.String(), func(t *testing.T) {
			cfg := smallConfig()
			cfg.Sessions, cfg.Concurrency, cfg.Rounds = 2, 3, 2
			cfg.Mix = mix{}
			cfg.Mix[o] = 1
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.OK() {
				var out bytes.Buffer
				rep.Write(&out)
				t.Fatalf("violations:\n%s", out.String())
			}
			for _, er := range rep.Eras {
				if er.Sent[o] != er.Calls || er.Server[o] != er.Calls || er.Received[o] != er.Calls {
					t.Errorf("%s: sent %d, server %d, received %d %s of %d calls", er.Era, er.Sent[o], er.Server[o], er.Received[o], o, er.Calls)
				}
			}
		})
	}
}

// TestBadContentNamesItsProperty checks the table of broken answers against
// the generated decoder: each breaks the form at exactly the property the
// driver expects the server to name.
func TestBadContentNamesItsProperty(t *testing.T) {
	for _, bc := range badContents {
		var f BookingForm
		err := f.ElicitDecode([]byte(bc.content))
		var ce *runtime.ContentError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err %v, want a *ContentError", bc.content, err)
			continue
		}
		if len(ce.Problems) != 1 || ce.Problems[0].Property != bc.property {
			t.Errorf("%s: problems %+v, want one for %q", bc.content, ce.Problems, bc.property)
		}
	}
	for i := range names {
		p := callPlan{outcome: outcomeAccept, name: uint8(i), seats: 9, class: 1, window: true}
		var f BookingForm
		if err := f.ElicitDecode([]byte(p.content(12345))); err != nil || f != p.accepted(12345) {
			t.Errorf("accepted content %s: %+v, %v", p.content(12345), f, err)
		}
	}
}

func TestPlanIsReproducible(t *testing.T) {
	cfg := smallConfig()
	a, b := newPlan(cfg), newPlan(cfg)
	for i := range a.calls {
		if a.calls[i] != b.calls[i] {
			t.Fatalf("call %d differs with the same seed: %+v, %+v", i, a.calls[i], b.calls[i])
		}
	}
	cfg.Seed = 2
	c := newPlan(cfg)
	same := 0
	for i := range a.calls {
		if a.calls[i] == c.calls[i] {
			same++
		}
	}
	if same == len(a.calls) {
		t.Error("another seed gave the same plan")
	}
	// Each call's era is where its index says.
	for e := range numEras {
		if got := a.calls[a.index(e, 4, 3, 5)].era; got != e {
			t.Errorf("call of era %s has era %s", e, got)
		}
	}
}

func TestParseMix(t *testing.T) {
	m, err := parseMix("accept=3, disconnect=1")
	if err != nil || m[outcomeAccept] != 3 || m[outcomeDisconnect] != 1 || m[outcomeDecline] != 0 {
		t.Fatalf("parseMix: %v %v", m, err)
	}
	if back, err := parseMix(defaultMix.String()); err != nil || back != defaultMix {
		t.Errorf("default mix does not round-trip: %v %v", back, err)
	}
	for _, bad := range []string{"", "accept", "accept=x", "accept=-1", "nope=1", "accept=0", "accept=1,accept=2", "input-required=1"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("parseMix(%q) accepted", bad)
		}
	}
	if _, err := parseEras("sideways"); err == nil {
		t.Error("parseEras accepted an unknown era")
	}
}

func TestCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"-sessions", "0"},
		{"-concurrency", "33"},
		{"-rounds", "0"},
		{"-mix", "accept=0"},
		{"-era", "future"},
		{"-deadline", "0s"},
		{"stray"},
		{"-no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("run %q: exit %d, stderr %q; want 2 and a message", args, code, stderr.String())
		}
	}
	var stdout bytes.Buffer
	if code := run([]string{"-sessions", "1", "-concurrency", "2", "-rounds", "1", "-seed", "7"}, &stdout, io.Discard); code != 0 {
		t.Fatalf("tiny run: exit %d:\n%s", code, stdout.String())
	}
	if !strings.Contains(stdout.String(), "lost=0\nPASS\n") {
		t.Errorf("tiny run report:\n%s", stdout.String())
	}
}

// TestVerifyFindsLostResults feeds the verifier records a broken runtime
// would leave, to show each is counted as lost or mismatched.
func TestVerifyFindsLostResults(t *testing.T) {
	cfg := smallConfig()
	cfg.Sessions, cfg.Concurrency, cfg.Rounds = 1, 1, 1
	cases := []struct {
		name       string
		era        era
		planned    outcome
		record     func(*callRecord)
		lost, mism int
	}{
		{"legacy ok", eraLegacy, outcomeDecline, func(r *callRecord) {
			r.set(1, outcomeDecline, 0)
			r.results[0] = 1
			r.received = outcomeDecline
			r.detailOK = true
		}, 0, 0},
		{"legacy no result", eraLegacy, outcomeDecline, func(r *callRecord) { r.set(1, outcomeDecline, 0) }, 1, 1},
		{"legacy two results", eraLegacy, outcomeAccept, func(r *callRecord) { r.set(1, outcomeAccept, 0); r.results[0] = 2; r.detailOK = true }, 1, 1},
		{"legacy disconnect, handler still waiting", eraLegacy, outcomeDisconnect, func(r *callRecord) { r.runs.Store(1); r.rounds[0].Store(1); r.elicited = true }, 1, 1},
		{"legacy disconnect ok", eraLegacy, outcomeDisconnect, func(r *callRecord) { r.set(1, outcomeDisconnect, 0); r.elicited = true }, 0, 0},
		{"legacy wrong outcome", eraLegacy, outcomeCancel, func(r *callRecord) { r.set(1, outcomeDecline, 0); r.results[0] = 1 }, 0, 1},
		{"modern ok", eraModern, outcomeCancel, func(r *callRecord) {
			r.set(1, outcomeInputRequired, 0)
			r.set(2, outcomeCancel, 1)
			r.results = [2]int8{1, 1}
			r.received, r.detailOK = outcomeCancel, true
		}, 0, 0},
		{"modern retry lost", eraModern, outcomeCancel, func(r *callRecord) {
			r.set(1, outcomeInputRequired, 0)
			r.set(2, outcomeCancel, 1)
			r.results = [2]int8{1, 0}
		}, 1, 1},
		{"modern dropped retry ran", eraModern, outcomeDisconnect, func(r *callRecord) {
			r.set(1, outcomeInputRequired, 0)
			r.set(2, outcomeAccept, 1)
			r.results[0], r.elicited = 1, true
		}, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := &driver{cfg: cfg, plan: newPlan(cfg), viol: &violations{}}
			call := d.plan.index(tc.era, 0, 0, 1)
			d.plan.calls[call].era, d.plan.calls[call].outcome = tc.era, tc.planned
			tc.record(&d.plan.records[call])
			var er EraReport
			d.verifyCall(call, &er)
			if er.Lost != tc.lost || er.Mismatched != tc.mism {
				n, first := d.viol.snapshot()
				t.Errorf("lost %d mismatched %d, want %d %d (%d violations: %q)", er.Lost, er.Mismatched, tc.lost, tc.mism, n, first)
			}
			if n, _ := d.viol.snapshot(); (n > 0) != (tc.lost+tc.mism > 0) {
				t.Errorf("%d violations for lost %d mismatched %d", n, tc.lost, tc.mism)
			}
		})
	}
}

// set records handler run n (1-based) with its outcome and Round.
func (r *callRecord) set(n int32, o outcome, round int32) {
	if r.runs.Load() < n {
		r.runs.Store(n)
	}
	r.outcomes[n-1].Store(int32(o))
	r.rounds[n-1].Store(round + 1)
}

// TestLeftoverNamesLeakedGoroutines shows the goroutine check is real: a
// goroutine started after the baseline and still blocked is reported with
// its stack.
func TestLeftoverNamesLeakedGoroutines(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		blockedForTest(release)
	}()
	err := leftover(ignore, 100*time.Millisecond)
	close(release)
	<-done
	if err == nil || !strings.Contains(err.Error(), "blockedForTest") {
		t.Fatalf("leftover: %v, want the blocked goroutine named", err)
	}
	if err := leftover(ignore, time.Second); err != nil {
		t.Fatalf("after the goroutine ended: %v", err)
	}
}

//go:noinline
func blockedForTest(release chan struct{}) { <-release }

func TestNextData(t *testing.T) {
	in := ": comment\n\nid: a-1\n\nid: a-2\nevent: message\ndata: {\"a\":1}\n\nretry: 10\ndata: x\r\ndata: y\r\n\r\ndata: cut off"
	r := mcpclient.NewEventReader(strings.NewReader(in), maxEventBytes)
	for _, want := range []string{`{"a":1}`, "x\ny"} { // the priming event a-1 is skipped
		got, err := nextData(r)
		if err != nil || string(got) != want {
			t.Fatalf("nextData: %q %v, want %q", got, err, want)
		}
	}
	// An event cut off by the end of the stream is no event: the call then
	// lacks its response, which readResponses' caller reports.
	if _, err := nextData(r); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	big := "data: " + strings.Repeat("x", maxEventBytes) + "\n\n"
	if _, err := nextData(mcpclient.NewEventReader(strings.NewReader(big), maxEventBytes)); err == nil {
		t.Errorf("an event over %d bytes was read", maxEventBytes)
	}
	primes := strings.Repeat("id: p\n\n", maxStreamEvents+1)
	if _, err := nextData(mcpclient.NewEventReader(strings.NewReader(primes), maxEventBytes)); !errors.Is(err, errProtocol) {
		t.Errorf("endless events without data: %v, want a protocol error", err)
	}
}

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	if p := percentile(s, 50); p != 50 {
		t.Errorf("p50 %v", p)
	}
	if p := percentile(s, 99); p != 99 {
		t.Errorf("p99 %v", p)
	}
	if p := percentile(s[:1], 99); p != 1 {
		t.Errorf("p99 of one %v", p)
	}
	if p := percentile(nil, 50); p != 0 {
		t.Errorf("p50 of none %v", p)
	}
}

// TestHostileRun is a small run with the hostile mix beside it: the
// legitimate calls all complete and every check holds.
func TestHostileRun(t *testing.T) {
	if testing.Short() {
		t.Skip("sends about 8 MiB per hostile round")
	}
	cfg := smallConfig()
	cfg.Hostile, cfg.HostileRounds = true, 2
	cfg.MaxRSS = 1 << 30 // the race detector's shadow memory; make load-hostile holds the real bound
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Write(&out)
	t.Logf("hostile run:\n%s", out.String())
	if !rep.OK() || rep.Lost != 0 {
		t.Fatalf("the run found %d violations, lost=%d", rep.Violations, rep.Lost)
	}
	if rep.Hostile == nil || rep.Hostile.IdleClosed != rep.Hostile.IdleConns {
		t.Errorf("hostile report %+v", rep.Hostile)
	}
}
