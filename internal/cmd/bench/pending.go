package main

import (
	"encoding/json"
	"fmt"
	"sync"
)

// Memory per pending elicitation: with the sessions already open, the
// server's heap objects, stack memory and goroutines are read (after two
// GCs) before n elicitations are started and again while all n wait for
// their answers; the difference over n is the cost of one. Then every one
// is answered and its result checked, so a server that lost one fails.
//
// Legacy: each pending elicitation is a tools/call whose POST holds an open
// SSE stream (a connection each, as HTTP/1.1 needs) on which the
// elicitation request has arrived. The calls are spread over sessions of
// sessionPending calls, below every server's per-session limit.
// Modern: each is an input_required result the client holds; the server
// keeps nothing (the state travels in requestState), which the figures show.

const sessionPending = 25

// pendingCost is the per-elicitation cost, in bytes and goroutines.
type pendingCost struct {
	n          int
	heap       float64
	stacks     float64
	goroutines float64
}

func (p pendingCost) total() float64 { return p.heap + p.stacks }

const openers = 64 // concurrent clients starting or answering pending calls

func measurePending(c *child, n int) (pendingCost, error) {
	if c.f.era == eraModern {
		return pendingModern(c, n)
	}
	return pendingLegacy(c, n)
}

func pendingLegacy(c *child, n int) (pendingCost, error) {
	sessions := make([]*worker, (n+sessionPending-1)/sessionPending)
	defer func() {
		for _, w := range sessions {
			if w != nil {
				w.Close()
			}
		}
	}()
	for i := range sessions {
		w := newWorker(c.f, c.addr)
		if err := w.openSession(); err != nil {
			return pendingCost{}, fmt.Errorf("%s: %w", c.f.name, err)
		}
		w.answer.Close() // answers go over the openers' connections
		sessions[i] = w
	}
	type pending struct {
		w    *worker
		conn *rawConn
		id   json.RawMessage
	}
	calls := make([]pending, n)
	defer func() {
		for _, p := range calls {
			if p.conn != nil {
				p.conn.Close()
			}
		}
	}()
	before, err := c.mem(true)
	if err != nil {
		return pendingCost{}, err
	}
	// Calls of one session must not share a worker's id counter across
	// goroutines, so each opener owns whole sessions.
	err = parallel(len(sessions), func(s int) error {
		w := sessions[s]
		for i := s * sessionPending; i < min(n, (s+1)*sessionPending); i++ {
			w.stream = newRawConn(c.addr)
			id, err := w.legacyCall()
			if err != nil {
				w.stream.Close()
				return fmt.Errorf("%s: pending call %d: %w", c.f.name, i, err)
			}
			calls[i] = pending{w: w, conn: w.stream, id: id}
		}
		return nil
	})
	if err != nil {
		return pendingCost{}, err
	}
	after, err := c.mem(true)
	if err != nil {
		return pendingCost{}, err
	}
	err = parallel(len(sessions), func(s int) error {
		answer := newRawConn(c.addr)
		defer answer.Close()
		for i := s * sessionPending; i < min(n, (s+1)*sessionPending); i++ {
			p := calls[i]
			if err := p.w.legacyAnswer(answer, p.id); err != nil {
				return fmt.Errorf("%s: answering pending call %d: %w", c.f.name, i, err)
			}
			if err := p.w.legacyResult(p.conn); err != nil {
				return fmt.Errorf("%s: pending call %d: %w", c.f.name, i, err)
			}
		}
		return nil
	})
	if err != nil {
		return pendingCost{}, err
	}
	return costOf(before, after, n), nil
}

func pendingModern(c *child, n int) (pendingCost, error) {
	states := make([]*string, n)
	return holdThenAnswer(c, n, "pending call", (*worker).roundTrip,
		func(w *worker, i int) (err error) {
			states[i], err = w.modernFirst(w.stream)
			return err
		},
		func(w *worker, i int) error { return w.modernRetry(w.stream, states[i]) })
}

// holdThenAnswer is the modern measurement, of pending elicitations or
// waiting tasks: openers workers each warm their connections with one
// whole exchange (so that only what the held ones cost remains), the
// server's memory is read, n exchanges are started with start(w, i) and
// left waiting, the memory is read again, and each is answered with
// answer(w, i), which checks its result.
func holdThenAnswer(c *child, n int, what string, warm func(*worker) error, start, answer func(w *worker, i int) error) (pendingCost, error) {
	workers := make([]*worker, openers)
	for i := range workers {
		workers[i] = newWorker(c.f, c.addr)
		defer workers[i].Close()
		if err := warm(workers[i]); err != nil {
			return pendingCost{}, fmt.Errorf("%s: %w", c.f.name, err)
		}
	}
	before, err := c.mem(true)
	if err != nil {
		return pendingCost{}, err
	}
	per := (n + openers - 1) / openers
	each := func(f func(*worker, int) error, doing string) error {
		return parallel(openers, func(o int) error {
			for i := o * per; i < min(n, (o+1)*per); i++ {
				if err := f(workers[o], i); err != nil {
					return fmt.Errorf("%s: %s%s %d: %w", c.f.name, doing, what, i, err)
				}
			}
			return nil
		})
	}
	if err := each(start, ""); err != nil {
		return pendingCost{}, err
	}
	after, err := c.mem(true)
	if err != nil {
		return pendingCost{}, err
	}
	if err := each(answer, "answering "); err != nil {
		return pendingCost{}, err
	}
	return costOf(before, after, n), nil
}

func costOf(before, after memSample, n int) pendingCost {
	d := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) }
	return pendingCost{
		n:          n,
		heap:       d(after.HeapObjects, before.HeapObjects),
		stacks:     d(after.Stacks, before.Stacks),
		goroutines: d(after.Goroutines, before.Goroutines),
	}
}

// parallel runs f(0..n-1) on up to openers goroutines and returns the first
// error.
func parallel(n int, f func(int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for range min(n, openers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
