package runtime

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-elicit/elicit/runtime/cluster"
)

// Resumable streams (2025-11-25, "Resumability and Redelivery"): once a
// session's tools/call has been upgraded to SSE, its connection dropping
// no longer cancels the call. The stream keeps its events (a bounded
// suffix, held in Options.MaxHeldBytes) and waits Options.StreamResumeWindow
// for a GET with Last-Event-ID, which replays what followed that id and then
// carries the stream on to its response. The stream's id names the replica
// that runs the call, so a GET that reaches another replica is relayed
// through the cluster (cluster.Resumer).

// errStreamAbandoned is the cause that cancels a call whose stream no GET
// resumed within Options.StreamResumeWindow, and what its sends fail with
// from then on.
var errStreamAbandoned = errors.New("elicit: the client went away and did not resume the call's stream within Options.StreamResumeWindow")

// resumeState is what a kept stream adds to its sink.
type resumeState struct {
	kept bool // in the server's table (false: not resumable, or a bound refused it)
	gone bool // expired or finished: its events freed, or the table's
	// entry is the stream's in the server's table, while kept; finished is
	// set once the call is over and the table has its events (finish).
	entry    *keptStream
	finished bool
	// reader is a resuming GET's (here or, through the cluster, on another
	// replica); nil with detached false: the POST's own reply.
	reader    *streamReader
	detached  bool        // no reader: events are only kept
	windowEnd time.Time   // while detached: when the stream expires
	log       []keptEvent // a contiguous suffix of the events, oldest first
	logBytes  int64       // held in the server's budget
	inline    [4]keptEvent
}

// keptEvent is one event of a kept stream: its number, its bytes and what
// it holds of the server's budget.
type keptEvent struct {
	n    uint64
	ev   []byte
	held int64
}

// streamReader is where a resumed stream's bytes go: send writes one event
// or comment (nil: nothing yet, just open the reply); done is closed when
// the stream lets go of the reader (its end, another resumption, a failed
// write).
type streamReader struct {
	send func(ev []byte, flush bool) error
	done chan struct{}
}

// callBase is a request's context without its cancellation, the values
// only (context.WithoutCancel, held in the sink rather than allocated): the
// parent of a resumable call's context. Its Value passes every key on, the
// context package's own too, so context.Cause of the call's context may
// find the request's cancelCtx while the call has made no cancellation of
// its own (handlerCtx); harmless: Cause asks Err first, which is nil until
// the call is canceled (and then the call's own cancelCtx answers).
type callBase struct{ parent context.Context }

func (b *callBase) Deadline() (time.Time, bool) { return b.parent.Deadline() }
func (*callBase) Done() <-chan struct{}         { return nil }
func (*callBase) Err() error                    { return nil }
func (b *callBase) Value(key any) any           { return b.parent.Value(key) }

// resumable prepares sk for a session call whose stream can be resumed and
// returns the parent of the call's context: r's values without its
// cancellation. The call's own context (sessionCall's, the only one it
// has) is then the one the POST's connection ending cancels, until the
// reply is upgraded (watchConnection). Call callOver once the call is over.
func (sk *httpSink) resumable(r *http.Request, sess *Session) context.Context {
	sk.base.parent = r.Context()
	sk.session = sess.id
	return &sk.base
}

// watchConnection is told a resumable call, whose context cancels on its
// own (sessionCall, right after making it): the POST's connection ending
// cancels the call before the upgrade and detaches its stream after
// (connectionGone). Nothing watches the connection yet: the call's
// context starts the watch (watch) once it can tell a cancellation (its
// child is made), its Err looks at the connection (checkConnection), and
// its wait for an answer waits on the connection too (connDone). A sink
// that is not resumable ignores it.
func (sk *httpSink) watchConnection(c *call) {
	if sk.session == "" {
		return
	}
	sk.call = c
}

// watch starts the watch on a resumable call's connection, once, and not
// after callOver.
func (sk *httpSink) watch() {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	if sk.call == nil || sk.stopWatch != nil || sk.watchOver {
		return
	}
	sk.stopWatch = context.AfterFunc(sk.base.parent, sk.connectionGone)
}

// checkConnection runs connectionGone now if a resumable call's
// connection has ended and nothing watches it (the call's context's Err
// asks). It never waits: a sink whose lock a write holds (a slow client's)
// is looked at on a later Err.
func (sk *httpSink) checkConnection() {
	if sk.session == "" || sk.connSeen.Load() || !sk.mu.TryLock() {
		return
	}
	d := sk.connDoneLocked()
	sk.mu.Unlock()
	if d != nil {
		select {
		case <-d:
			sk.connectionGone()
		default:
		}
	}
}

// connDone is closed when a resumable call's connection ends, while the
// call runs and nothing else watches it (nil otherwise): what its wait for
// an answer waits on besides the answer (then connectionGone).
func (sk *httpSink) connDone() <-chan struct{} {
	if sk.session == "" {
		return nil
	}
	sk.mu.Lock()
	defer sk.mu.Unlock()
	return sk.connDoneLocked()
}

func (sk *httpSink) connDoneLocked() <-chan struct{} {
	if sk.call == nil || sk.stopWatch != nil || sk.watchOver || sk.connSeen.Load() {
		return nil
	}
	return sk.base.parent.Done()
}

// goneBeforeUpgradeLocked reports a resumable call whose connection ended
// before its first send, with nothing watching it: the send must cancel the
// call (connectionGone, without the lock) rather than upgrade and keep a
// stream its client never heard of.
func (sk *httpSink) goneBeforeUpgradeLocked() bool {
	return !sk.streamed && sk.connDoneLocked() != nil && sk.base.parent.Err() != nil
}

// callOver ends the watch on the connection, if one started (the call's
// context is canceled by its maker). A finished stream kept for a
// resumption then lets go of the POST: its request, its writer and the
// call's context; what it keeps for StreamResumeWindow is its events.
func (sk *httpSink) callOver() {
	sk.mu.Lock()
	sk.watchOver = true
	stop := sk.stopWatch
	sk.mu.Unlock()
	if stop != nil {
		stop()
	}
	sk.mu.Lock()
	if sk.rs.kept && sk.closed {
		sk.w, sk.rc, sk.header, sk.id, sk.req = nil, nil, nil, nil, nil
		sk.call, sk.stopWatch = nil, nil
	}
	sk.mu.Unlock()
}

// connectionGone runs when the POST's connection ends: before the upgrade
// it cancels the call, as without resumption; after, it detaches the
// stream from the POST, to wait for a GET. A request context that ends by
// its deadline (a middleware's timeout) is no dropped connection: the call
// is cancelled, as without resumption.
func (sk *httpSink) connectionGone() {
	sk.connSeen.Store(true)
	sk.mu.Lock()
	switch {
	case sk.closed:
	case !sk.rs.kept || errors.Is(sk.base.parent.Err(), context.DeadlineExceeded):
		c, cause := sk.call, context.Cause(sk.base.parent) // read under the lock: callOver clears them
		sk.mu.Unlock()
		c.cancel(cause)
		return
	case sk.rs.reader == nil && !sk.rs.detached:
		sk.detachLocked()
	}
	sk.mu.Unlock()
}

// keepStreamLocked keeps the stream just upgraded for a resumption, unless
// its session keeps Options.MaxResumableStreams running ones already.
func (sk *httpSink) keepStreamLocked() {
	sk.rs.log = sk.rs.inline[:0]
	entry, ok := sk.srv.streams.add(sk, sk.srv.opts.MaxResumableStreams)
	sk.rs.kept, sk.rs.entry = ok, entry
	if !ok {
		sk.srv.log.Warn("stream not kept for a resumption: its session runs Options.MaxResumableStreams kept streams already", "session", sk.session, "stream", sk.streamID)
	}
}

// logEventLocked keeps event nextID, whose size the caller held, and
// writes it to the stream's reader.
func (sk *httpSink) logEventLocked(msg []byte, size int64, flush bool) error {
	ev := sk.appendEventHead(make([]byte, 0, size))
	ev = append(append(ev, msg...), eventEnd...)
	rs := &sk.rs
	rs.log = append(rs.log, keptEvent{n: sk.nextID, ev: ev, held: size})
	rs.logBytes += size
	sk.keptBytes.Store(rs.logBytes)
	for len(rs.log) > 1 && rs.logBytes > sk.srv.opts.MaxStreamReplayBytes {
		sk.dropOldestLocked()
	}
	return sk.emitLocked(ev, flush)
}

func (sk *httpSink) dropOldestLocked() {
	rs := &sk.rs
	sk.held.release(rs.log[0].held)
	rs.logBytes -= rs.log[0].held
	sk.keptBytes.Store(rs.logBytes)
	rs.log[0] = keptEvent{}
	rs.log = rs.log[1:]
}

// finishKeptLocked ends a kept stream with its response (nil: none). The
// events stay for Options.StreamResumeWindow, the table's from now on (a
// finished stream is its events: the sink, its timer and its call are
// let go): the response may be lost after it was written.
func (sk *httpSink) finishKeptLocked(msg []byte) error {
	rs := &sk.rs
	if rs.gone { // abandoned: its window ran out, nobody will read the response
		sk.stopTimerLocked()
		return sk.failed
	}
	if msg != nil {
		msg, _ = sk.held.holdReply(msg, sk.id, eventSize) // busy: the stream ends with the error instead
		// The POST's own last event is not flushed: net/http sends it with
		// the reply's end.
		_ = sk.writeEventLocked(msg, rs.reader != nil)
	}
	if rs.reader != nil || !rs.detached { // written to a live reply: only the response may be missing
		for len(rs.log) > 1 {
			sk.dropOldestLocked()
		}
	}
	if len(rs.log) == 1 && rs.logBytes > sk.srv.opts.MaxStreamReplayBytes {
		sk.dropOldestLocked() // a response larger than the bound is not kept once it was written
	}
	sk.letGoLocked()
	sk.stopTimerLocked()
	sk.srv.streams.finish(rs.entry, rs.log, sk.nextID, rs.logBytes)
	rs.log, rs.inline, rs.logBytes, rs.gone, rs.finished = nil, [4]keptEvent{}, 0, true, true
	sk.keptBytes.Store(0)
	return nil
}

// letGoLocked ends the reader's part: the stream has no reader afterwards.
func (sk *httpSink) letGoLocked() {
	if rs := &sk.rs; rs.reader != nil {
		close(rs.reader.done)
		rs.reader = nil
	}
	sk.rs.detached = true
}

// detachLocked lets the reader go: a running call's stream waits for a GET
// for Options.StreamResumeWindow.
func (sk *httpSink) detachLocked() {
	sk.letGoLocked()
	if !sk.closed { // a finished stream's window runs already
		sk.armWindowLocked()
	}
}

// armWindowLocked starts the resume window.
func (sk *httpSink) armWindowLocked() {
	d := max(sk.srv.opts.StreamResumeWindow, 0)
	sk.rs.windowEnd = time.Now().Add(d)
	sk.resetTimerLocked(d)
}

// windowTickLocked ends a window that ran out: the stream is forgotten and
// its events freed. It reports whether the call still runs (the caller
// cancels it, without the lock).
func (sk *httpSink) windowTickLocked() (abandoned bool) {
	if sk.rs.gone {
		return false
	}
	if wait := time.Until(sk.rs.windowEnd); wait > 0 {
		sk.timer.t.Reset(wait)
		return false
	}
	sk.freeLocked()
	if sk.closed {
		return false
	}
	sk.failed = errStreamAbandoned // what its handler's sends get from now on
	return true
}

// freeLocked forgets a running stream and frees its events.
func (sk *httpSink) freeLocked() {
	rs := &sk.rs
	if rs.gone {
		return
	}
	rs.gone = true
	sk.stopTimerLocked()
	for len(rs.log) > 0 {
		sk.dropOldestLocked()
	}
	rs.log = nil
	sk.srv.streams.remove(rs.entry)
}

// resume attaches rd to the stream: it sends the events after event number
// after, then (if the call still runs) the stream's next ones as they come.
func (sk *httpSink) resume(rd *streamReader, after uint64) error {
	sk.mu.Lock()
	defer sk.mu.Unlock()
	rs := &sk.rs
	switch {
	case rs.finished:
		return errStreamFinished
	case !rs.kept || rs.gone:
		return cluster.ErrStreamNotFound
	case after > sk.nextID:
		return cluster.ErrStreamNotFound // an id this stream never sent
	}
	first := sk.nextID + 1
	if len(rs.log) > 0 {
		first = rs.log[0].n
	}
	if after+1 < first {
		return cluster.ErrEventsDropped
	}
	if rs.reader != nil { // one reader at a time: the newest
		close(rs.reader.done)
	}
	rs.reader, rs.detached = rd, false
	if !sk.closed { // the timer keeps this reader's stream alive now
		if every := sk.srv.opts.StreamKeepAlive; every > 0 {
			sk.resetTimerLocked(every)
		} else {
			sk.stopTimerLocked()
		}
	}
	if rd.send(nil, true) != nil {
		sk.detachLocked()
		return nil
	}
	for _, e := range rs.log {
		if e.n <= after {
			continue
		}
		if rd.send(e.ev, true) != nil {
			sk.detachLocked()
			return nil
		}
	}
	sk.lastWrite = time.Now()
	if sk.closed { // all there is: the reply ends
		sk.letGoLocked()
	}
	return nil
}

// release lets rd go if it still reads the stream (its GET ended).
func (sk *httpSink) release(rd *streamReader) {
	sk.mu.Lock()
	if sk.rs.reader == rd {
		sk.detachLocked()
	}
	sk.mu.Unlock()
}

// errStreamFinished: the stream's call ended meanwhile; its events are the
// table's now (streamTable.lookup).
var errStreamFinished = errors.New("elicit: the stream finished")

// keptStream is a stream kept for a resumption, in the server's table:
// its running call's sink, then, once the call is over, only its events,
// which a GET within Options.StreamResumeWindow replays.
type keptStream struct {
	id, session string
	sk          *httpSink // nil once finished
	// A finished stream's events (a contiguous suffix, oldest first), the
	// number of its last event, what the events hold of the server's
	// budget, and when its window ends; prev and next link the table's
	// finished streams in that order.
	log        []keptEvent
	inline     [1]keptEvent
	last       uint64
	logBytes   int64
	windowEnd  time.Time
	prev, next *keptStream
}

// finished reports whether the stream's call is over (under the table's
// lock).
func (ks *keptStream) finished() bool { return ks.sk == nil }

// streamTable is a server's kept streams, by stream id, and each
// session's, oldest first. Finished ones are also listed in the order they
// finished, which is the order their windows end (each is as long): one
// timer (expire) frees those whose window ended, a slack of an eighth of
// the window after the first of them, so the streams of a busy server
// cost no timer each. A GET checks the window itself, so no stream is
// resumed past its end.
type streamTable struct {
	mu          sync.Mutex
	byID        map[string]*keptStream
	perSession  map[string][]*keptStream
	first, last *keptStream // finished, oldest first
	expiry      *time.Timer
	held        *heldBytes    // the server's (NewServer)
	window      time.Duration // Options.StreamResumeWindow (NewServer)
}

// add keeps sk unless its session keeps max streams already: then its
// oldest finished one is freed, or, when all of them run, sk is not kept.
func (t *streamTable) add(sk *httpSink, max int) (*keptStream, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID, t.perSession = map[string]*keptStream{}, map[string][]*keptStream{}
	}
	list := t.perSession[sk.session]
	if len(list) >= max {
		var old *keptStream
		for _, ks := range list {
			if ks.finished() {
				old = ks
				break
			}
		}
		if old == nil {
			return nil, false
		}
		t.freeLocked(old)
		list = t.perSession[sk.session]
	}
	ks := &keptStream{id: sk.streamID, session: sk.session, sk: sk}
	t.byID[ks.id] = ks
	t.perSession[ks.session] = append(list, ks)
	return ks, true
}

// finish makes ks, whose call is over, a finished stream: its sink's log
// (copied: the sink is let go), the number of its last event and the
// bytes the log holds, which are the table's to release from now on.
func (t *streamTable) finish(ks *keptStream, log []keptEvent, last uint64, logBytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[ks.id] != ks { // freed meanwhile: nothing keeps the events
		t.held.release(logBytes)
		return
	}
	if len(log) <= len(ks.inline) {
		ks.log = ks.inline[:copy(ks.inline[:], log)]
	} else {
		ks.log = append([]keptEvent(nil), log...)
	}
	ks.last, ks.logBytes, ks.sk = last, logBytes, nil
	ks.windowEnd = time.Now().Add(t.window)
	ks.prev = t.last
	if t.last != nil {
		t.last.next = ks
	} else {
		t.first = ks
		t.armExpiryLocked()
	}
	t.last = ks
}

// armExpiryLocked sets the timer for the first finished stream's window.
func (t *streamTable) armExpiryLocked() {
	d := time.Until(t.first.windowEnd) + t.window/8
	if t.expiry == nil {
		t.expiry = time.AfterFunc(d, t.expire)
		return
	}
	t.expiry.Reset(d)
}

// expire frees the finished streams whose window has ended.
func (t *streamTable) expire() {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	for t.first != nil && !now.Before(t.first.windowEnd) {
		t.freeLocked(t.first)
	}
	if t.first != nil {
		t.armExpiryLocked()
	}
}

// lookup returns the stream id names in session: its running sink, or a
// finished one's events (a copy) and the number of its last event;
// ErrStreamNotFound for none, another session's, or one whose window is
// over.
func (t *streamTable) lookup(id, session string) (sk *httpSink, log []keptEvent, last uint64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ks := t.byID[id]
	switch {
	case ks == nil || ks.session != session:
		return nil, nil, 0, cluster.ErrStreamNotFound
	case !ks.finished():
		return ks.sk, nil, 0, nil
	case !time.Now().Before(ks.windowEnd):
		t.freeLocked(ks)
		return nil, nil, 0, cluster.ErrStreamNotFound
	}
	return nil, append([]keptEvent(nil), ks.log...), ks.last, nil
}

// replayFinished sends a finished stream's events after number after (its
// log and its last event's number, from lookup): the reply's head, then
// the events, and the reply ends. It holds no lock while it writes, so the
// table may free the stream meanwhile: its bytes then leave
// Options.MaxHeldBytes while this reply still writes them (a finished
// stream's events per GET, for as long as its writes take).
func replayFinished(send func(ev []byte, flush bool) error, log []keptEvent, last, after uint64) error {
	first := last + 1
	if len(log) > 0 {
		first = log[0].n
	}
	switch {
	case after > last:
		return cluster.ErrStreamNotFound // an id this stream never sent
	case after+1 < first:
		return cluster.ErrEventsDropped
	}
	if send(nil, true) != nil {
		return nil
	}
	for _, e := range log {
		if e.n > after && send(e.ev, true) != nil {
			return nil
		}
	}
	return nil
}

// remove forgets a running stream (its sink frees its events).
func (t *streamTable) remove(ks *keptStream) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeLocked(ks)
}

// freeLocked forgets a finished stream and frees its events.
func (t *streamTable) freeLocked(ks *keptStream) {
	t.removeLocked(ks)
	t.held.release(ks.logBytes)
	ks.log, ks.inline, ks.logBytes = nil, [1]keptEvent{}, 0
}

func (t *streamTable) removeLocked(ks *keptStream) {
	if t.byID[ks.id] != ks {
		return
	}
	delete(t.byID, ks.id)
	list := t.perSession[ks.session]
	for i, x := range list {
		if x == ks {
			copy(list[i:], list[i+1:]) // in place: the session's next stream reuses the room
			list[len(list)-1] = nil
			list = list[:len(list)-1]
			break
		}
	}
	if len(list) == 0 {
		delete(t.perSession, ks.session)
	} else {
		t.perSession[ks.session] = list
	}
	if !ks.finished() {
		return
	}
	if ks.prev != nil {
		ks.prev.next = ks.next
	} else {
		t.first = ks.next
	}
	if ks.next != nil {
		ks.next.prev = ks.prev
	} else {
		t.last = ks.prev
	}
	ks.prev, ks.next = nil, nil
}

// shed frees finished streams kept for a resumption, oldest first, until
// need bytes are freed or none is left: live requests come before a
// response that may have been lost. The caller may hold a running
// stream's lock, but not the table's.
func (t *streamTable) shed(need int64) {
	t.mu.Lock()
	var freed int64
	for t.first != nil && freed < need {
		freed += t.first.logBytes
		t.freeLocked(t.first)
	}
	var running []*httpSink
	if freed < need {
		for _, ks := range t.byID {
			if !ks.finished() && ks.sk.keptBytes.Load() > 0 {
				running = append(running, ks.sk)
			}
		}
	}
	t.mu.Unlock()
	// Then the older events of running streams (written to their reader
	// already, or waiting for one): a resumption from before them gets 410
	// instead of every client a busy error. TryLock: the caller may hold its
	// own sink's lock, and two sinks shedding for each other must not wait
	// on each other.
	// A stream whose lock is taken (an event being written) is tried again
	// a few times, a moment apart, so that a write in flight does not make
	// a live reply busy; bounded, so that it never waits on a stalled one.
	for try := 0; try < shedTries && freed < need && len(running) > 0; try++ {
		if try > 0 {
			time.Sleep(shedPause)
		}
		busy := running[:0]
		for _, sk := range running {
			if freed >= need {
				break
			}
			if !sk.mu.TryLock() {
				busy = append(busy, sk)
				continue
			}
			freed += sk.trimLocked()
			sk.mu.Unlock()
		}
		running = busy
	}
}

// shedTries and shedPause bound how long shed tries a running stream whose
// lock is taken: at most (shedTries-1)·shedPause.
const (
	shedTries = 10
	shedPause = 200 * time.Microsecond
)

// trimLocked drops a kept stream's events but its newest and returns the
// bytes it freed.
func (sk *httpSink) trimLocked() int64 {
	rs := &sk.rs
	before := rs.logBytes
	for !rs.gone && len(rs.log) > 1 {
		sk.dropOldestLocked()
	}
	return before - rs.logBytes
}

// newStreamID names a stream upgraded on s: 16 hex digits of the server's
// stream counter, after "<replica>." in a cluster (the replica that can
// resume it). Unique on s, not secret: a stream is resumed only in the
// session it belongs to (resumeHere), whose id is the secret; a counter
// spares the upgrade a read of crypto/rand.
func (s *Server) newStreamID() string {
	var buf [64 + 1 + 16]byte
	return string(s.appendSeqID(buf[:0]))
}

// appendSeqID appends this replica's id and a dot, in a cluster, and the
// next number of s.seq as 16 hex digits.
func (s *Server) appendSeqID(id []byte) []byte {
	if s.replica != "" {
		id = append(append(id, s.replica...), '.')
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], s.seq.Add(1))
	return hex.AppendEncode(id, n[:])
}

// parseEventID splits an event id, "<stream>-<n>", where stream is 16 hex
// digits, after "<replica>." in a cluster.
func parseEventID(id string) (stream, replica string, n uint64, ok bool) {
	dash := strings.LastIndexByte(id, '-')
	if dash < 0 {
		return "", "", 0, false
	}
	stream = id[:dash]
	n, err := strconv.ParseUint(id[dash+1:], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	hex := stream
	if dot := strings.IndexByte(stream, '.'); dot >= 0 {
		replica, hex = stream[:dot], stream[dot+1:]
		if !validReplicaID(replica) {
			return "", "", 0, false
		}
	}
	if len(hex) != 16 {
		return "", "", 0, false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", "", 0, false
		}
	}
	return stream, replica, n, true
}

// resumeHere attaches send to the stream of this replica that
// lastEventID names, in sessionID, and returns when the stream lets it go
// (nil) or ctx ends.
func (s *Server) resumeHere(ctx context.Context, sessionID, lastEventID string, send func(ev []byte, flush bool) error) error {
	stream, _, n, ok := parseEventID(lastEventID)
	if !ok {
		return cluster.ErrStreamNotFound
	}
	rd := &streamReader{send: send, done: make(chan struct{})}
	var sk *httpSink
	for sk == nil {
		running, log, last, err := s.streams.lookup(stream, sessionID)
		switch {
		case err != nil:
			return err
		case running == nil:
			return replayFinished(send, log, last, n)
		}
		switch err := running.resume(rd, n); err {
		case nil:
			sk = running
		case errStreamFinished: // between the lookup and the resume: its events are the table's now
		default:
			return err
		}
	}
	select {
	case <-rd.done:
		return nil
	case <-ctx.Done():
		sk.release(rd)
		return ctx.Err()
	}
}

// ResumeStream implements cluster.Peer: a GET on another replica resumes a
// stream of this one.
func (p clusterPeer) ResumeStream(ctx context.Context, sessionID, lastEventID string, send func(ev []byte) error) error {
	return p.s.resumeHere(ctx, sessionID, lastEventID, func(ev []byte, _ bool) error { return send(ev) })
}

// serveGET answers a GET: with Last-Event-ID, the resumption of a call's
// stream; without, 405 (every server message here belongs to a call and
// rides its stream: there is no standalone stream).
func (s *Server) serveGET(w http.ResponseWriter, r *http.Request) {
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "method not allowed: a GET must carry Last-Event-ID, to resume a call's stream (standalone GET streams are not offered)")
		return
	}
	if _, sseOK := accepts(r.Header.Values("Accept")); !sseOK {
		httpError(w, http.StatusNotAcceptable, CodeInvalidRequest, "Accept must allow text/event-stream")
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	sess.touch()
	_, owner, _, ok := parseEventID(last)
	if !ok {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "malformed Last-Event-ID "+strconv.Quote(clip(last))+": not an event id of this server")
		return
	}
	out := newStreamOut(w, r)
	ctx := r.Context()
	var err error
	switch rsm, _ := s.opts.Cluster.(cluster.Resumer); {
	case owner == "" || owner == s.replica:
		err = s.resumeHere(ctx, sess.id, last, out.send)
	case rsm == nil:
		err = cluster.ErrStreamNotFound
	default:
		err = s.resumeElsewhere(ctx, rsm, owner, sess.id, last, out)
	}
	if out.started {
		return // the reply is under way: it ends here
	}
	switch {
	case err == nil, ctx.Err() != nil:
		return
	case errors.Is(err, cluster.ErrEventsDropped):
		httpError(w, http.StatusGone, CodeInvalidRequest, "the events after "+strconv.Quote(clip(last))+" are no longer kept (Options.MaxStreamReplayBytes): the call's stream cannot be resumed")
	case errors.Is(err, cluster.ErrStreamNotFound), errors.Is(err, cluster.ErrReplicaUnreachable):
		httpError(w, http.StatusNotFound, CodeInvalidRequest, "no stream to resume after "+strconv.Quote(clip(last))+" in this session: its call ended more than Options.StreamResumeWindow ago, its replica is gone, or it was never kept (Options.MaxResumableStreams)")
	default:
		s.log.Warn("stream not resumed through the cluster", "session", sess.id, "replica", owner, "err", err)
		httpError(w, http.StatusServiceUnavailable, CodeInternalError, "cannot resume the stream on replica "+strconv.Quote(owner)+": "+err.Error())
	}
}

// resumeElsewhere relays the stream of another replica to out. The owner
// writes something at least every Options.StreamKeepAlive (every replica
// has the same): a relay silent much longer than that has lost its owner.
func (s *Server) resumeElsewhere(ctx context.Context, rsm cluster.Resumer, owner, sessionID, last string, out *streamOut) error {
	send := func(ev []byte) error { return out.send(ev, true) }
	if every := s.opts.StreamKeepAlive; every > 0 {
		idle := 2*every + clusterTimeout
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		watchdog := time.AfterFunc(idle, cancel)
		defer watchdog.Stop()
		send = func(ev []byte) error {
			watchdog.Reset(idle)
			return out.send(ev, true)
		}
	}
	return rsm.Resume(ctx, owner, sessionID, last, send)
}

// streamOut is a GET's reply that carries a resumed stream.
type streamOut struct {
	w            http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration
	started      bool
}

// newStreamOut lifts the server's deadlines for the GET (the stream lives
// at human speed) and gives each write its own, as a POST's reply.
func newStreamOut(w http.ResponseWriter, r *http.Request) *streamOut {
	o := &streamOut{w: w, rc: http.NewResponseController(w), writeTimeout: HTTPWriteTimeout}
	if hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server); hs != nil && hs.WriteTimeout > 0 {
		o.writeTimeout = hs.WriteTimeout
	}
	_ = o.rc.SetReadDeadline(time.Time{})
	_ = o.rc.SetWriteDeadline(time.Time{})
	return o
}

// send writes ev (nil: only the reply's head) and flushes.
func (o *streamOut) send(ev []byte, _ bool) error {
	if !o.started {
		o.started = true
		setStreamHeaders(o.w.Header())
		o.w.WriteHeader(http.StatusOK)
	}
	if o.writeTimeout > 0 {
		_ = o.rc.SetWriteDeadline(time.Now().Add(o.writeTimeout))
	}
	if len(ev) > 0 {
		if _, err := o.w.Write(ev); err != nil {
			return err
		}
	}
	return o.rc.Flush()
}
