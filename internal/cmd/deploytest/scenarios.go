//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// outcome is one call as a client saw it.
type outcome struct {
	err      error
	took     time.Duration
	upstream string // the replica that served its tools/call (nginx's header)
	waited   bool   // it failed only when the client's timeout ran out
	begun    time.Time
}

// scenario is one measured load, with its fault.
type scenario struct {
	name     string
	target   string // the target, said when it fails
	endpoint func(t *topology) string
	think    time.Duration
	// calls per worker (healthy load), or 0: call until the load's
	// duration ends, a new session (2025-11-25) per call.
	calls int
	// fault runs once the load has run for cfg.faultAt; it returns the
	// replica address it killed, if any.
	fault func(t *topology) (string, error)
	// heal runs after the scenario, both protocols.
	heal func(t *topology) error
}

// row is one line of the table.
type row struct {
	scenario, protocol string
	calls, completed   int
	lostOnVictim       int // lost calls whose handler was on the killed replica
	waited             int
	// after and afterOK count the calls begun once the fault was over
	// (the process killed, NATS up again), and those of them completed.
	after, afterOK int
	p50            time.Duration
	victim         string
	firstErr       string
	target         string
}

func (r row) lost() int { return r.calls - r.completed }

// run drives one scenario with one protocol: cfg.workers workers, each its
// own client, and the fault in the middle.
func (s scenario) run(ctx context.Context, t *topology, protocol string) (row, error) {
	cfg := t.cfg
	endpoint := s.endpoint(t)
	var (
		mu       sync.Mutex
		outcomes []outcome
		wg       sync.WaitGroup
	)
	stopAt := time.Now().Add(cfg.loadFor)
	for range cfg.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, hc := newRecorder()
			defer hc.CloseIdleConnections()
			var c client
			defer func() {
				if c != nil {
					c.close()
				}
			}()
			for n := 0; ctx.Err() == nil; n++ {
				if s.calls > 0 && n == s.calls || s.calls == 0 && time.Now().After(stopAt) {
					return
				}
				callCtx, cancel := context.WithTimeout(ctx, cfg.clientTimeout)
				begin := time.Now()
				var err error
				if c == nil {
					c, err = dial(callCtx, protocol, endpoint, person{s.think}, hc)
				}
				if err == nil {
					err = c.call(callCtx)
				}
				o := outcome{err: err, took: time.Since(begin), upstream: rec.take(), begun: begin}
				o.waited = err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded)
				cancel()
				mu.Lock()
				outcomes = append(outcomes, o)
				mu.Unlock()
				if s.calls == 0 || err != nil { // a new session for the next call
					if c != nil {
						c.close()
						c = nil
					}
				}
				if err != nil {
					time.Sleep(100 * time.Millisecond) // no tight loop against a fault
				}
			}
		}()
	}
	var victim string
	var faultErr error
	var faultOver time.Time
	if s.fault != nil {
		select {
		case <-time.After(cfg.faultAt):
			victim, faultErr = s.fault(t)
			faultOver = time.Now()
		case <-ctx.Done():
		}
	}
	wg.Wait()
	if faultErr != nil {
		return row{}, faultErr
	}
	r := row{scenario: s.name, protocol: protocol, victim: victim, target: s.target}
	var took []time.Duration
	for _, o := range outcomes {
		r.calls++
		switch {
		case o.err == nil:
			r.completed++
			took = append(took, o.took)
		case victim != "" && o.upstream == victim:
			r.lostOnVictim++
		}
		if o.waited {
			r.waited++
		}
		if !faultOver.IsZero() && o.begun.After(faultOver) {
			r.after++
			if o.err == nil {
				r.afterOK++
			}
		}
		if o.err != nil && r.firstErr == "" {
			r.firstErr = o.err.Error()
		}
	}
	if len(took) > 0 {
		slices.Sort(took)
		r.p50 = took[len(took)/2]
	}
	return r, ctx.Err()
}

// scenarios are issue 27's, in an order where each leaves the topology as
// it found it (heal), the NATS restart last.
func scenarios(cfg config) []scenario {
	main := func(t *topology) string { return t.main }
	return []scenario{
		{name: "healthy", target: "none lost", endpoint: main, calls: cfg.calls},
		{name: "healthy, one replica direct", target: "none lost", endpoint: func(t *topology) string { return "http://" + t.single.addr + "/mcp" }, calls: cfg.calls},
		{
			name:     fmt.Sprintf("proxy_read_timeout %v < think %v", cfg.shortReadTimeout, cfg.longThink),
			target:   "none lost when the proxy's read timeout is shorter than the person",
			endpoint: func(t *topology) string { return t.short }, think: cfg.longThink,
		},
		{
			name: "dropped connection", target: "none lost when the connection drops after the elicitation arrives",
			endpoint: func(t *topology) string { return t.cut }, think: cfg.think,
		},
		{
			name: "replica killed (kill -9)", target: "only the calls whose handler was on the killed replica lost, and no client waits out its timeout",
			endpoint: main, think: cfg.think,
			fault: func(t *topology) (string, error) {
				v := t.replicas[len(t.replicas)/2]
				v.p.kill()
				return v.addr, nil
			},
			heal: func(t *topology) error {
				v := t.replicas[len(t.replicas)/2]
				return t.startReplica(v, true)
			},
		},
		{
			name: "NATS restarted", target: "none lost when NATS restarts (file storage)",
			endpoint: main, think: cfg.think,
			fault: func(t *topology) (string, error) {
				t.nats.stop(syscall.SIGTERM)
				time.Sleep(cfg.natsDown)
				return "", t.startNATS()
			},
			heal: func(t *topology) error { return t.restartReplicas() },
		},
	}
}

// failures returns one message per target a row missed.
func failures(rows []row) []string {
	var out []string
	for _, r := range rows {
		var what string
		switch {
		case r.calls == 0:
			what = "no call ran"
		case r.victim != "" && r.lost() > r.lostOnVictim:
			what = fmt.Sprintf("%d calls lost whose handler was not on the killed replica", r.lost()-r.lostOnVictim)
		case r.victim == "" && r.lost() > 0:
			what = fmt.Sprintf("%d of %d calls lost", r.lost(), r.calls)
		}
		if r.waited > 0 {
			what = join(what, fmt.Sprintf("%d clients waited out their timeout", r.waited))
		}
		if what != "" {
			out = append(out, fmt.Sprintf("%s, %s: %s (first error: %s); target: %s", r.scenario, r.protocol, what, r.firstErr, r.target))
		}
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// printTable writes the table, and the latency of nginx + replicas against
// one replica direct.
func printTable(w io.Writer, rows []row, replicas int) {
	cols := []string{"scenario", "protocol", "calls", "completed", "lost", "lost on victim", "waited timeout", "after fault", "p50"}
	widths := []int{40, 10, 5, 9, 4, 14, 14, 11, 10}
	line := func(cells ...string) {
		for i, c := range cells {
			if i < 2 {
				fmt.Fprintf(w, "| %-*s ", widths[i], c)
			} else {
				fmt.Fprintf(w, "| %*s ", widths[i], c)
			}
		}
		fmt.Fprintln(w, "|")
	}
	line(cols...)
	for i := range cols {
		fmt.Fprintf(w, "|%s", dashes(widths[i]+2))
	}
	fmt.Fprintln(w, "|")
	p50 := map[string]time.Duration{}
	for _, r := range rows {
		onVictim := "-"
		if r.victim != "" {
			onVictim = fmt.Sprint(r.lostOnVictim)
		}
		p50text := "-"
		if r.completed > 0 {
			p50text = ms(r.p50)
		}
		after := "-"
		if r.after > 0 {
			after = fmt.Sprintf("%d/%d", r.afterOK, r.after)
		}
		line(r.scenario, r.protocol, fmt.Sprint(r.calls), fmt.Sprint(r.completed), fmt.Sprint(r.lost()), onVictim, fmt.Sprint(r.waited), after, p50text)
		p50[r.scenario+"/"+r.protocol] = r.p50
	}
	for _, p := range protocols {
		via, direct := p50["healthy/"+p], p50["healthy, one replica direct/"+p]
		fmt.Fprintf(w, "latency %s: p50 %s through nginx + %d replicas, %s to one replica direct (%+.2fms)\n", p, ms(via), replicas, ms(direct), float64(via-direct)/float64(time.Millisecond))
	}
}

// ms formats d in milliseconds, two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func dashes(n int) string { return strings.Repeat("-", n) }
