package mcpclient

import "time"

// SetStdioWaits shortens how long Close waits for a stdio server, for
// tests of servers that do not exit; it returns the restore function.
func SetStdioWaits(exit, term time.Duration) (restore func()) {
	oldExit, oldTerm := stdioExitWait, stdioTermWait
	stdioExitWait, stdioTermWait = exit, term
	return func() { stdioExitWait, stdioTermWait = oldExit, oldTerm }
}
