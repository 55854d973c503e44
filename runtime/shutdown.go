package runtime

import "context"

// Graceful shutdown: Shutdown, and the count of running calls it waits for.

// Shutdown stops the server gracefully: new requests get 503, every waiting
// elicitation returns ErrServerShutdown at once (so its handler can answer),
// and Shutdown waits for running calls to write their results. If ctx ends
// first, the remaining calls' contexts are canceled and Shutdown returns
// ctx.Err() once they have returned. Call it before http.Server.Shutdown,
// which would otherwise wait for the open streams (or register it with
// http.Server.RegisterOnShutdown).
func (s *Server) Shutdown(ctx context.Context) error {
	switch {
	case !s.made():
		return errNotMade
	case ctx == nil:
		return errNilContext
	}
	s.stopOnce.Do(func() {
		s.callsMu.Lock()
		s.shutdown.Store(true)
		close(s.stopping)
		if s.running == 0 {
			close(s.drained)
		}
		s.callsMu.Unlock()
	})
	var err error
	select {
	case <-s.drained:
	case <-ctx.Done():
		err = ctx.Err()
		s.cancelRunning(shutdownError{}) // every call, in a session or not (startCall)
		s.tasks.cancelAll(shutdownError{})
		<-s.drained
	}
	s.forEachSession(func(sess *Session) { sess.close(shutdownError{}) })
	return err
}

func (s *Server) forEachSession(f func(*Session)) {
	for _, sess := range s.sessions.all() {
		f(sess)
	}
}

// startCall counts a call in; false once Shutdown has begun. c, when not
// nil, is the call's, its cancellation set: Shutdown's deadline cancels it
// (cancelRunning), which reaches the calls no session holds (2026-07-28
// over HTTP); a task's run passes nil (its cancellation is the task
// table's).
func (s *Server) startCall(c *call) bool {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.shutdown.Load() {
		return false
	}
	s.running++
	if c != nil {
		c.nextRunning = s.runningCalls
		if c.nextRunning != nil {
			c.nextRunning.prevRunning = c
		}
		s.runningCalls = c
	}
	return true
}

// endCall counts a call out (c as given to startCall), telling Shutdown
// when the last one ends.
func (s *Server) endCall(c *call) {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if c != nil {
		if c.prevRunning != nil {
			c.prevRunning.nextRunning = c.nextRunning
		} else {
			s.runningCalls = c.nextRunning
		}
		if c.nextRunning != nil {
			c.nextRunning.prevRunning = c.prevRunning
		}
		c.prevRunning, c.nextRunning = nil, nil
	}
	s.running--
	if s.running == 0 && s.shutdown.Load() {
		close(s.drained)
	}
}

// cancelRunning cancels every running call startCall was given, with
// cause. The cancellations run outside callsMu: a context's cancellation
// may start its AfterFunc callbacks.
func (s *Server) cancelRunning(cause error) {
	s.callsMu.Lock()
	var calls []*call
	for c := s.runningCalls; c != nil; c = c.nextRunning {
		calls = append(calls, c)
	}
	s.callsMu.Unlock()
	for _, c := range calls {
		c.cancel(cause)
	}
}
