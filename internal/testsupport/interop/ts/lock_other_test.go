//go:build !unix

package ts

// lockFile does not lock where flock is missing: concurrent runs of this
// test in one work tree may then race in npm ci.
func lockFile(string) (unlock func(), err error) { return func() {}, nil }
