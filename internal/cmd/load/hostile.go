package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// The hostile mix (-hostile): while the measured rounds run, one more
// client attacks the same server the way issue 15 did, in rounds (at most
// -hostile-rounds, and no longer than the measured rounds last), each
// round sending:
//
//	batch         a 2025-03-26 batch of MaxBodyBytes made of tiny items
//	              ([0,0,...]): refused whole (400), nothing built
//	big-init      an initialize with 1.5 MiB of clientInfo (accepted, kept
//	              cut) and one with 1.5 MiB of capabilities (refused)
//	flood         hostileFlood bare initializes (no notifications/initialized),
//	              hostileFloodConc at a time
//	unsolicited   2026-07-28 tools/call of "probe" carrying inputResponses
//	              (for the form's key) and no requestState; the report
//	              counts the probe runs whose Elicit returned that answer
//	              (it should be 0: an answer counts only for a question
//	              asked in an earlier round)
//
// and, for the whole phase, hostileIdleConns keep-alive connections that
// send one request and then nothing; the server (IdleTimeout
// hostileIdleTimeout) must close every one of them.
//
// The normal mix must not notice: lost=0 and every other check of the run
// holds (the legitimate sessions are established and busy, so a flood only
// ever evicts its own sessions). The process's peak resident set
// (/proc/self/status VmHWM, Linux) must stay under -max-rss: it holds the
// clients, the server and the hostile client's bodies.

// Sizes of the hostile mix.
const (
	hostileFlood       = 200
	hostileFloodConc   = 8
	hostileIdleConns   = 200
	hostileIdleTimeout = 10 * time.Second
	hostileBigField    = 1536 << 10
	hostileUnsolicited = 10
	probeTool          = "probe"
	// DefaultMaxRSS is -max-rss of a hostile run. The normal run of make
	// load (1000 calls in flight) peaks at about 230 MiB on its own; the
	// hostile mix adds its bodies (about 8 MiB a round) and the server's
	// work on them (a small multiple of the body cap each) and measured
	// about 50 MiB more. Before the caps, one batch alone took 1.7 GB and
	// each big initialize kept 3 MiB.
	DefaultMaxRSS = 384 << 20
)

// HostileReport counts what the hostile client sent and got.
type HostileReport struct {
	Rounds          int
	Status          map[string]map[int]int // kind -> HTTP status -> count
	IdleConns       int
	IdleClosed      int   // closed by the server before the phase ended
	UnsolicitedRan  int64 // probe runs that got an answer without asking
	PeakRSS, MaxRSS int64
}

type hostile struct {
	d *driver
	// run is the run's context: requests use it, so that one in flight
	// when the hostile phase ends completes (its session is DELETEd)
	// instead of leaving a session the client never heard of.
	run    context.Context
	wire   *wire
	rep    *HostileReport
	mu     sync.Mutex
	sids   []string // the sessions it opened, DELETEd at the end
	wg     sync.WaitGroup
	conns  []net.Conn
	closed atomic.Int64
}

// startHostile starts the hostile client; stop ends it.
func (d *driver) startHostile(run, ctx context.Context, rep *HostileReport) *hostile {
	h := &hostile{d: d, run: run, wire: newWire(d.srv.url, 64), rep: rep}
	// The legitimate clients close their idle connections well before the
	// server does, as clients should: a server closing an idle connection
	// races a POST sent on it at that moment, which net/http's client does
	// not retry ("server closed idle connection"). Well before: on two
	// saturated cores a reply may wait seconds between the server's write
	// (where its idle clock starts) and the client's read (where its own
	// does).
	d.wire.tr.IdleConnTimeout = hostileIdleTimeout / 5
	rep.Status = map[string]map[int]int{}
	if rep.MaxRSS = d.cfg.MaxRSS; rep.MaxRSS == 0 {
		rep.MaxRSS = DefaultMaxRSS
	}
	host := strings.TrimSuffix(strings.TrimPrefix(d.srv.url, "http://"), "/mcp")
	for range hostileIdleConns {
		conn, err := net.DialTimeout("tcp", host, 5*time.Second)
		if err != nil {
			d.viol.add("hostile: idle connection: %v", err)
			break
		}
		h.conns = append(h.conns, conn)
		// One request that makes no state (415), then nothing.
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi", host)
		h.wg.Go(func() {
			_, _ = io.Copy(io.Discard, conn) // returns when the server closes it
			h.closed.Add(1)
		})
	}
	rep.IdleConns = len(h.conns)
	h.wg.Go(func() { h.rounds(ctx) })
	return h
}

func (h *hostile) rounds(ctx context.Context) {
	batchSID := h.initialize(ctx, "flood", "2025-03-26", `{}`, `{"name":"h","version":"1"}`)
	size := int(runtime.DefaultMaxBodyBytes) - 64
	batch := make([]byte, 0, size)
	batch = append(batch, '[')
	for len(batch) < size-2 {
		batch = append(batch, '0', ',')
	}
	batch = append(batch[:len(batch)-1], ']')
	big := strings.Repeat("x", hostileBigField)
	bigInfo := `{"name":"` + big + `","version":"1"}`
	bigCaps := `{"experimental":{"x":"` + big + `"}}`
	for r := 0; r < h.d.cfg.HostileRounds && ctx.Err() == nil; r++ {
		if batchSID != "" {
			h.post(ctx, "batch", batch, runtime.HeaderSessionID, batchSID)
		}
		h.initialize(ctx, "big-init", "2025-11-25", `{}`, bigInfo)
		h.initialize(ctx, "big-init", "2025-11-25", bigCaps, `{"name":"h","version":"1"}`)
		var flood sync.WaitGroup
		for range hostileFloodConc {
			flood.Go(func() {
				for range hostileFlood / hostileFloodConc {
					h.initialize(ctx, "flood", "2025-11-25", `{}`, `{"name":"h","version":"1"}`)
				}
			})
		}
		flood.Wait()
		for i := range hostileUnsolicited {
			body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"` + probeTool + `","arguments":{},"inputResponses":{"booking_form":{"action":"accept","content":` + hostileAnswer + `}},` + modernMeta + `}}`
			h.post(ctx, "unsolicited", []byte(body), runtime.HeaderProtocolVersion, modernVersion, runtime.HeaderMethod, "tools/call", runtime.HeaderName, probeTool)
		}
		if ctx.Err() == nil {
			h.rep.Rounds++
		}
	}
}

// hostileAnswer is a valid BookingForm answer nobody asked for.
const hostileAnswer = `{"name":"mallory","seats":1,"class":"economy","window":false}`

// initialize opens a session (kept for the final DELETE) and returns its id.
func (h *hostile) initialize(ctx context.Context, kind, version, caps, info string) string {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":` + caps + `,"clientInfo":` + info + `}}`
	sid := h.post(ctx, kind, []byte(body))
	if sid != "" {
		h.mu.Lock()
		h.sids = append(h.sids, sid)
		h.mu.Unlock()
	}
	return sid
}

// post sends one hostile POST, counts its status and returns the session
// id it got, if any.
func (h *hostile) post(ctx context.Context, kind string, body []byte, headers ...string) string {
	if ctx.Err() != nil {
		return "" // the phase is over
	}
	resp, err := h.wire.post(h.run, body, headers...)
	status := -1 // transport error
	sid := ""
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxEventBytes))
		resp.Body.Close()
		status, sid = resp.StatusCode, resp.Header.Get(runtime.HeaderSessionID)
	}
	h.mu.Lock()
	if h.rep.Status[kind] == nil {
		h.rep.Status[kind] = map[int]int{}
	}
	h.rep.Status[kind][status]++
	h.mu.Unlock()
	return sid
}

// stop waits for the hostile rounds (ctx ended), checks the idle
// connections were closed by the server, closes what is left and DELETEs
// every session the hostile client opened (404 for those evicted).
func (h *hostile) stop(ctx context.Context) {
	// The idle connections were opened before the measured rounds, which
	// outlast hostileIdleTimeout; give the server that long once more.
	waitFor(hostileIdleTimeout+settle, func() bool { return int(h.closed.Load()) == len(h.conns) })
	h.rep.IdleClosed = int(h.closed.Load())
	if h.rep.IdleClosed != len(h.conns) {
		h.d.viol.add("hostile: the server closed %d of %d idle keep-alive connections (IdleTimeout %v)", h.rep.IdleClosed, len(h.conns), hostileIdleTimeout)
	}
	for _, c := range h.conns {
		c.Close()
	}
	h.wg.Wait()
	for _, sid := range h.sids {
		status, _, err := h.wire.do(ctx, http.MethodDelete, nil, runtime.HeaderSessionID, sid)
		if err != nil || status != http.StatusNoContent && status != http.StatusNotFound {
			h.d.viol.add("hostile: DELETE of its session: %d %v", status, err)
		}
	}
	h.wire.tr.CloseIdleConnections()
	h.rep.UnsolicitedRan = h.d.srv.unsolicited.Load()
	if h.rep.UnsolicitedRan != 0 {
		h.d.viol.add("hostile: %d unsolicited answers reached a handler (inputResponses without a requestState that asked them must be ignored)", h.rep.UnsolicitedRan)
	}
	if h.rep.PeakRSS = peakRSS(); h.rep.PeakRSS > h.rep.MaxRSS {
		h.d.viol.add("peak RSS %s, more than the %s bound of a hostile run", bytesString(h.rep.PeakRSS), bytesString(h.rep.MaxRSS))
	}
}

// peakRSS is this process's peak resident set (VmHWM), 0 where /proc is
// not there.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// write prints the hostile part of the report.
func (r *HostileReport) write(w io.Writer) {
	fmt.Fprintf(w, "hostile: %d rounds; idle keep-alive connections closed by the server %d/%d; unsolicited answers that reached a handler %d\n", r.Rounds, r.IdleClosed, r.IdleConns, r.UnsolicitedRan)
	for _, kind := range []string{"batch", "big-init", "flood", "unsolicited"} {
		fmt.Fprintf(w, "  %-12s", kind)
		for _, status := range slices.Sorted(maps.Keys(r.Status[kind])) {
			fmt.Fprintf(w, " %d×%d", r.Status[kind][status], status)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  peak RSS %s (bound %s)\n", bytesString(r.PeakRSS), bytesString(r.MaxRSS))
}
