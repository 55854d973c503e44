package main

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// The round-trip measurement. Every flow's server runs at once; the run goes
// round after round, and within a round every flow gets one window at each
// concurrency, in the flow order rotated by one each round (A B C, B C A,
// ...), so that drift on the machine (thermal, other load) reaches every row
// alike. A window lets W workers loop round trips for a fixed time; the
// server's allocation counters are read just before the workers start and
// just after the last one stopped, so they cover exactly the counted round
// trips.

// rtKey names one row: a flow at one concurrency.
type rtKey struct {
	flow string
	conc int
}

// window is one measured stretch of one row.
type window struct {
	n       int
	elapsed time.Duration
	allocs  uint64  // server heap allocations, objects
	bytes   uint64  // server heap allocations, bytes
	cpu     float64 // server process CPU (user and system), seconds; 0 where unknown
	client  float64 // this process's CPU over the window (the load generator), seconds
}

func (w window) nsPerOp() float64     { return float64(w.elapsed.Nanoseconds()) / float64(w.n) }
func (w window) perSecond() float64   { return float64(w.n) / w.elapsed.Seconds() }
func (w window) allocsPerOp() float64 { return float64(w.allocs) / float64(w.n) }
func (w window) bytesPerOp() float64  { return float64(w.bytes) / float64(w.n) }
func (w window) cpuPerOp() float64    { return w.cpu * 1e9 / float64(w.n) }
func (w window) clientPerOp() float64 { return w.client * 1e9 / float64(w.n) }

// rtRow is what the report needs of a row.
type rtRow struct {
	windows []window
	lat     []time.Duration // every round trip's latency, all windows
}

// median of the windows' throughput etc.
func (r *rtRow) median(f func(window) float64) float64 {
	v := make([]float64, len(r.windows))
	for i, w := range r.windows {
		v[i] = f(w)
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *rtRow) percentile(p float64) time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	slices.Sort(r.lat)
	i := int(p * float64(len(r.lat)-1))
	return r.lat[i]
}

// pool is the workers of one flow, with sessions opened.
type pool struct {
	c       *child
	workers []*worker
}

func newPool(c *child, n int) (*pool, error) {
	p := &pool{c: c}
	for range n {
		w := newWorker(c.f, c.addr)
		if err := w.openSession(); err != nil {
			p.Close()
			return nil, fmt.Errorf("%s: %w", c.f.name, err)
		}
		p.workers = append(p.workers, w)
	}
	return p, nil
}

func (p *pool) Close() {
	for _, w := range p.workers {
		w.Close()
	}
}

// run measures conc workers looping round trips for d; lat, when not nil,
// receives every latency. maxOps bounds each worker's loop.
func (p *pool) run(conc int, d time.Duration, maxOps int, lat *[]time.Duration) (window, error) {
	before, err := p.c.mem(false)
	if err != nil {
		return window{}, err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		total int
	)
	lats := make([][]time.Duration, conc)
	clientBefore := processCPU()
	start := time.Now()
	deadline := start.Add(d)
	for i := range conc {
		w := p.workers[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := make([]time.Duration, 0, 1024)
			n := 0
			for n < maxOps {
				t0 := time.Now()
				if err := w.roundTrip(); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("%s: round trip: %w", p.c.f.name, err)
					}
					mu.Unlock()
					return
				}
				t1 := time.Now()
				l = append(l, t1.Sub(t0))
				n++
				if t1.After(deadline) {
					break
				}
			}
			lats[i] = l
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	client := processCPU() - clientBefore
	if first != nil {
		return window{}, first
	}
	after, err := p.c.mem(false)
	if err != nil {
		return window{}, err
	}
	if lat != nil {
		for _, l := range lats {
			*lat = append(*lat, l...)
		}
	}
	return window{n: total, elapsed: elapsed, allocs: after.AllocObjects - before.AllocObjects, bytes: after.AllocBytes - before.AllocBytes, cpu: after.CPU - before.CPU, client: client}, nil
}

// roundTripConfig sizes the measurement.
type roundTripConfig struct {
	concs  []int
	rounds int
	window time.Duration
	warmup time.Duration
	maxOps int // per worker per window
}

// measureRoundTrips runs the interleaved rounds over the pools, one per flow
// (in flows order), and returns the rows; raw receives one benchstat line per
// window.
func measureRoundTrips(pools []*pool, cfg roundTripConfig, raw func(string)) (map[rtKey]*rtRow, error) {
	rows := map[rtKey]*rtRow{}
	for _, conc := range cfg.concs { // warm every server and connection up
		for _, p := range pools {
			if _, err := p.run(conc, cfg.warmup, cfg.maxOps, nil); err != nil {
				return nil, err
			}
		}
	}
	for round := range cfg.rounds {
		for i := range pools {
			p := pools[(i+round)%len(pools)]
			for _, conc := range cfg.concs {
				k := rtKey{p.c.f.name, conc}
				row := rows[k]
				if row == nil {
					row = &rtRow{}
					rows[k] = row
				}
				w, err := p.run(conc, cfg.window, cfg.maxOps, &row.lat)
				if err != nil {
					return nil, err
				}
				row.windows = append(row.windows, w)
				raw(fmt.Sprintf("BenchmarkRoundTrip/flow=%s/conc=%d \t%8d\t%12.0f ns/op\t%10.0f B/op\t%8.1f allocs/op\t%10.0f rt/s\t%10.0f server-cpu-ns/op\t%10.0f client-cpu-ns/op",
					k.flow, conc, w.n, w.nsPerOp(), w.bytesPerOp(), w.allocsPerOp(), w.perSecond(), w.cpuPerOp(), w.clientPerOp()))
			}
		}
	}
	return rows, nil
}
