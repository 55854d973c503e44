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
		s.forEachSession(func(sess *Session) { sess.cancelCalls(shutdownError{}) })
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

// startCall counts a call in; false once Shutdown has begun.
func (s *Server) startCall() bool {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.shutdown.Load() {
		return false
	}
	s.running++
	return true
}

// endCall counts a call out, telling Shutdown when the last one ends.
func (s *Server) endCall() {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	s.running--
	if s.running == 0 && s.shutdown.Load() {
		close(s.drained)
	}
}
