package runtime

import "sync"

// callSet is the running calls of one client (a session, a stdio
// connection), by request id, so notifications/cancelled can find them.
type callSet struct {
	mu sync.Mutex
	m  map[string]*call
}

// add registers c; false when its id is already running.
func (cs *callSet) add(c *call) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if _, dup := cs.m[c.key]; dup {
		return false
	}
	if cs.m == nil {
		cs.m = map[string]*call{}
	}
	cs.m[c.key] = c
	return true
}

func (cs *callSet) remove(c *call) {
	cs.mu.Lock()
	if cs.m[c.key] == c {
		delete(cs.m, c.key)
	}
	cs.mu.Unlock()
}

// cancel cancels the call with this id key; false when none runs.
func (cs *callSet) cancel(key, reason string) bool {
	cs.mu.Lock()
	c, ok := cs.m[key]
	cs.mu.Unlock()
	if ok {
		c.cancelByClient(reason)
	}
	return ok
}

// cancelAll cancels every running call's context with cause.
func (cs *callSet) cancelAll(cause error) {
	cs.mu.Lock()
	calls := make([]*call, 0, len(cs.m))
	for _, c := range cs.m {
		calls = append(calls, c)
	}
	cs.mu.Unlock()
	for _, c := range calls {
		c.cancel(cause)
	}
}

func (cs *callSet) len() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.m)
}
