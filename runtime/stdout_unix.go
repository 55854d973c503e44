//go:build unix

package runtime

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// stdoutTaken is the process-wide state of takeStdout: servers running at
// once share one private copy of descriptor 1, and the last to stop puts
// descriptor 1 back.
var stdoutTaken struct {
	sync.Mutex
	users int
	out   *os.File // the private copy, while users > 0
	fd    int
}

// takeStdout gives the process's stdout to the protocol alone: the MCP
// stream gets a private copy of file descriptor 1, and descriptor 1 itself
// is pointed at stderr, so a stray fmt.Println, a logger made on os.Stdout
// or a C library's printf lands in stderr instead of corrupting the stream
// (the stdio transport allows nothing but MCP messages on stdout). restore
// puts descriptor 1 back once every server that took it has stopped. When
// os.Stdout is not descriptor 1 (the program reassigned it) or the
// descriptors cannot be arranged, the protocol just uses os.Stdout.
func takeStdout() (out *os.File, restore func()) {
	if os.Stdout == nil || os.Stdout.Fd() != 1 {
		return os.Stdout, func() {}
	}
	st := &stdoutTaken
	st.Lock()
	defer st.Unlock()
	if st.users == 0 {
		fd, err := unix.Dup(1)
		if err != nil {
			return os.Stdout, func() {}
		}
		unix.CloseOnExec(fd)
		if err := unix.Dup2(2, 1); err != nil {
			_ = unix.Close(fd)
			return os.Stdout, func() {}
		}
		st.fd, st.out = fd, os.NewFile(uintptr(fd), "/dev/stdout (MCP)")
	}
	st.users++
	var once sync.Once
	return st.out, func() {
		once.Do(func() {
			st.Lock()
			defer st.Unlock()
			if st.users--; st.users == 0 {
				_ = unix.Dup2(st.fd, 1)
				_ = st.out.Close()
				st.out = nil
			}
		})
	}
}
