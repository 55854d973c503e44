//go:build !unix

package runtime

import "os"

// takeStdout: where descriptors cannot be rearranged, the protocol writes
// to os.Stdout and the handlers must not (see stdout_unix.go).
func takeStdout() (out *os.File, restore func()) { return os.Stdout, func() {} }
