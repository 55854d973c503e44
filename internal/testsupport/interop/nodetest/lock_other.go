//go:build !unix

package nodetest

// lockFile does not lock where flock is missing: concurrent runs of a
// test in one work tree may then race in npm ci.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
