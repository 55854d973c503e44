package runtime

import (
	"errors"
	"sync"
	"sync/atomic"
)

// The session table of a Server, built so that clients who never log in
// cannot lock everyone else out by filling it.
//
// A session is busy while one of its calls runs (a call holds its POST's
// reply open, and every pending elicitation belongs to a running call);
// otherwise it is idle. Idle sessions sit in two least-recently-used lists:
// fresh ones, which sent nothing after initialize, and established ones.
// When an initialize finds the table full (Options.MaxSessions), the least
// recently used fresh session is evicted, or failing that the least
// recently used established one; busy sessions are never evicted. With
// Options.Authenticate set, a subject at Options.MaxSessionsPerSubject
// evicts its own least recently used idle session the same way. Fresh
// sessions also expire after Options.SessionSetupTimeout instead of
// Options.SessionIdleTimeout. Every operation is O(1): a map and
// doubly-linked lists, never a scan.
//
// What a flood of initializes does: it evicts other flood sessions first,
// then the longest idle established sessions, whose clients get 404 on
// their next request and initialize again (as the spec tells them to); it
// never takes a session that is running a call or waiting on an answer,
// and an initialize is refused (503) only when every session in the table
// is busy, which needs as many calls held open, each a connection the
// http.Server's timeouts and the elicitation timeout bound. Behind
// Options.Authenticate, one subject can only evict its own sessions. In a
// cluster (Options.Cluster) a replica evicts its own copy only: the
// directory entry lives to its expiry, and a later request for the
// session on this replica adopts it again.

// sessionTable holds a Server's registered (HTTP) sessions.
type sessionTable struct {
	max, perSubject int
	stopped         *atomic.Bool // the Server's shutdown flag: add refuses once set

	mu    sync.Mutex
	byID  map[string]*Session
	fresh idleList // idle sessions that sent nothing after initialize; LRU at the back
	idle  idleList // idle established sessions; LRU at the back
	// subjects counts each subject's sessions and lists its idle ones
	// (only with a per-subject cap).
	subjects map[string]*subjectSessions
}

type subjectSessions struct {
	n    int
	idle idleList // linked through tableEntry.subjIdle
}

// tableEntry is a session's place in the table, guarded by sessionTable.mu;
// busyKnown is set (under it) while the session is in the table,
// established and busy, when use has nothing to do: use reads it without
// the table's lock (an answer POST to a waiting call takes no lock of the
// whole table).
type tableEntry struct {
	in          bool
	established bool
	busy        int       // calls running
	idle        idleLinks // in fresh or idle, while idle
	subjIdle    idleLinks // in its subject's idle list, while idle
	busyKnown   atomic.Bool
}

// idleList is a list of idle sessions, the most recently used at the front,
// linked through the sessions' own tableEntry (idle, or subjIdle for a
// subject's list), so that a request putting its session back allocates
// nothing.
type idleList struct {
	front, back *Session
	subject     bool // links through subjIdle
}

// idleLinks are a session's place in one idleList.
type idleLinks struct {
	prev, next *Session
	on         *idleList // nil: on none
}

func (l *idleList) links(sess *Session) *idleLinks {
	if l.subject {
		return &sess.entry.subjIdle
	}
	return &sess.entry.idle
}

func (l *idleList) pushFront(sess *Session) {
	k := l.links(sess)
	k.prev, k.next, k.on = nil, l.front, l
	if l.front != nil {
		l.links(l.front).prev = sess
	} else {
		l.back = sess
	}
	l.front = sess
}

// remove takes sess off l; it is a no-op when sess is not on l.
func (l *idleList) remove(sess *Session) {
	k := l.links(sess)
	if k.on != l {
		return
	}
	if k.prev != nil {
		l.links(k.prev).next = k.next
	} else {
		l.front = k.next
	}
	if k.next != nil {
		l.links(k.next).prev = k.prev
	} else {
		l.back = k.prev
	}
	*k = idleLinks{}
}

var (
	errTooManySessions           = errors.New("too many sessions: every session is running a call; try again later")
	errTooManySessionsForSubject = errors.New("too many sessions for this subject: every one of them is running a call; end one (DELETE) or try again later")
)

func newSessionTable(max, perSubject int, stopped *atomic.Bool) *sessionTable {
	t := &sessionTable{max: max, perSubject: perSubject, stopped: stopped, byID: map[string]*Session{}}
	if perSubject > 0 {
		t.subjects = map[string]*subjectSessions{}
	}
	return t
}

// add registers sess, evicting idle sessions to make room (see above); it
// returns the evicted sessions, which the caller closes, or the session
// already registered under the same id (adopted concurrently).
func (t *sessionTable) add(sess *Session, established bool) (have *Session, evicted []*Session, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() { // checked under mu: Shutdown then sees every session added
		return nil, nil, shutdownError{}
	}
	if h, ok := t.byID[sess.id]; ok {
		return h, nil, nil
	}
	var ss *subjectSessions
	if t.subjects != nil {
		ss = t.subjects[sess.subject]
		if ss != nil && ss.n >= t.perSubject {
			victim := ss.idle.back
			if victim == nil {
				return nil, nil, errTooManySessionsForSubject
			}
			t.removeLocked(victim)
			evicted = append(evicted, victim)
		}
	}
	if len(t.byID) >= t.max {
		victim := t.fresh.back
		if victim == nil {
			victim = t.idle.back
		}
		if victim == nil {
			return nil, nil, errTooManySessions
		}
		t.removeLocked(victim)
		evicted = append(evicted, victim)
	}
	if t.subjects != nil {
		if ss = t.subjects[sess.subject]; ss == nil {
			ss = &subjectSessions{idle: idleList{subject: true}}
			t.subjects[sess.subject] = ss
		}
		ss.n++
	}
	e := &sess.entry
	e.in, e.established = true, established
	t.byID[sess.id] = sess
	t.idleLocked(sess)
	return sess, evicted, nil
}

// get returns a registered session.
func (t *sessionTable) get(id string) (*Session, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sess, ok := t.byID[id]
	return sess, ok
}

// use records a request in sess: it is established and, if idle, the most
// recently used.
func (t *sessionTable) use(sess *Session) {
	if sess.entry.busyKnown.Load() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	e := &sess.entry
	if !e.in {
		return
	}
	e.established = true
	if e.busy == 0 {
		t.unidleLocked(sess)
		t.idleLocked(sess)
	}
	e.busyKnown.Store(e.busy > 0)
}

// busy counts a call in (+1) or out (-1) of sess: a session with a call
// running is never evicted.
func (t *sessionTable) busy(sess *Session, delta int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := &sess.entry
	if !e.in {
		return
	}
	was := e.busy
	e.busy += delta
	switch {
	case was == 0 && e.busy > 0:
		t.unidleLocked(sess)
	case was > 0 && e.busy == 0:
		e.established = true
		t.idleLocked(sess)
	}
	e.busyKnown.Store(e.established && e.busy > 0)
}

// remove forgets sess (it has been closed).
func (t *sessionTable) remove(sess *Session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if sess.entry.in && t.byID[sess.id] == sess {
		t.removeLocked(sess)
	}
}

func (t *sessionTable) removeLocked(sess *Session) {
	delete(t.byID, sess.id)
	t.unidleLocked(sess)
	sess.entry.in = false
	sess.entry.busyKnown.Store(false)
	if t.subjects != nil {
		if ss := t.subjects[sess.subject]; ss != nil {
			if ss.n--; ss.n == 0 {
				delete(t.subjects, sess.subject)
			}
		}
	}
}

// idleLocked puts sess at the front of its idle lists.
func (t *sessionTable) idleLocked(sess *Session) {
	e := &sess.entry
	if e.established {
		t.idle.pushFront(sess)
	} else {
		t.fresh.pushFront(sess)
	}
	if t.subjects != nil {
		t.subjects[sess.subject].idle.pushFront(sess)
	}
}

// unidleLocked takes sess off its idle lists, if it is on them.
func (t *sessionTable) unidleLocked(sess *Session) {
	e := &sess.entry
	if e.idle.on != nil {
		e.idle.on.remove(sess)
	}
	if e.subjIdle.on != nil {
		e.subjIdle.on.remove(sess)
	}
}

// established reports whether sess has sent anything after its initialize
// (an adopted session counts as established).
func (t *sessionTable) established(sess *Session) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return sess.entry.established
}

// len reports the registered sessions.
func (t *sessionTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// all returns the registered sessions.
func (t *sessionTable) all() []*Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := make([]*Session, 0, len(t.byID))
	for _, sess := range t.byID {
		list = append(list, sess)
	}
	return list
}
