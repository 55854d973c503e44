//go:build unix

package runtime

import (
	"os"

	"golang.org/x/sys/unix"
)

// takeStdout gives the process's stdout to the protocol alone: the MCP
// stream gets a private copy of file descriptor 1, and descriptor 1 itself
// is pointed at stderr, so a stray fmt.Println, a logger made on os.Stdout
// or a C library's printf lands in stderr instead of corrupting the stream
// (the stdio transport allows nothing but MCP messages on stdout). restore
// puts descriptor 1 back. When the descriptors cannot be arranged, the
// protocol just uses os.Stdout.
func takeStdout() (out *os.File, restore func()) {
	fd, err := unix.Dup(1)
	if err != nil {
		return os.Stdout, func() {}
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return os.Stdout, func() {}
	}
	out = os.NewFile(uintptr(fd), "/dev/stdout (MCP)")
	return out, func() {
		_ = unix.Dup2(fd, 1)
		_ = out.Close()
	}
}
