//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// proc is one child process: nats-server, a replica or nginx. Its standard
// output and error go to a log file in the run's directory.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// start runs argv in its own process group (so that a stop reaches nginx's
// workers too), logging to dir/name.log. When ready is set, start waits for
// the first line of standard error and returns it.
func start(dir, name string, wantLine bool, argv ...string) (*proc, string, error) {
	logf, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = procAttr()
	cmd.Stdout = logf
	var stderr io.ReadCloser
	if wantLine {
		if stderr, err = cmd.StderrPipe(); err != nil {
			logf.Close()
			return nil, "", err
		}
	} else {
		cmd.Stderr = logf
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	lines := make(chan string, 1)
	if wantLine {
		go func() {
			r := bufio.NewReader(stderr)
			line, _ := r.ReadString('\n')
			lines <- line
			_, _ = io.Copy(logf, r)
		}()
	}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	if !wantLine {
		return p, "", nil
	}
	select {
	case line := <-lines:
		return p, strings.TrimSpace(line), nil
	case <-p.done:
		return nil, "", fmt.Errorf("%s exited at start: %v (see %s.log)", name, p.err, name)
	case <-time.After(15 * time.Second):
		p.kill()
		return nil, "", fmt.Errorf("%s said nothing within 15s", name)
	}
}

// kill ends the process group at once (SIGKILL: kill -9).
func (p *proc) kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// stop asks the process to end (SIGTERM, or sig), and kills its group after 10s.
func (p *proc) stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until addr accepts TCP connections.
func waitListening(ctx context.Context, addr string, p *proc) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %v (see %s.log)", p.name, p.err, p.name)
		case <-ctx.Done():
			return errors.New(p.name + " does not listen on " + addr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
