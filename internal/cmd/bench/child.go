package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// child is a server process serving one flow.
type child struct {
	f     flow
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
	ctl   *rawConn
}

// selfCommand runs this binary again; tests replace it with their own.
var selfCommand = func() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe), nil
}

func startChild(f flow) (*child, error) {
	cmd, err := selfCommand()
	if err != nil {
		return nil, err
	}
	return startChildCmd(f, f.name, cmd)
}

// startChildCmd starts cmd, a bench binary (this one or another commit's),
// serving the flow named serve; f names it in the run.
func startChildCmd(f flow, serve string, cmd *exec.Cmd) (*child, error) {
	cmd.Env = append(os.Environ(), serveEnv+"="+serve)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s server: %w", f.name, err)
	}
	c := &child{f: f, cmd: cmd, stdin: stdin}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-lines:
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), "addr ")
		if !ok {
			c.stop()
			return nil, fmt.Errorf("the %s server did not start: %q", f.name, line)
		}
		c.addr = addr
	case <-time.After(30 * time.Second):
		c.stop()
		return nil, fmt.Errorf("the %s server did not start within 30s", f.name)
	}
	c.ctl = newRawConn(c.addr)
	return c, nil
}

// stop ends the child: closing its stdin asks it to exit.
func (c *child) stop() {
	if c.ctl != nil {
		c.ctl.Close()
	}
	_ = c.stdin.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// mem reads the child's memory figures, after two GCs when gc is set.
func (c *child) mem(gc bool) (memSample, error) {
	path := "/_bench/mem"
	if gc {
		path += "?gc=1"
	}
	var m memSample
	r, err := c.ctl.post(path, reqHeaders{}, nil)
	if err != nil {
		return m, fmt.Errorf("%s: reading memory: %w", c.f.name, err)
	}
	b, err := c.ctl.readAll()
	if err != nil || r.status != 200 {
		return m, fmt.Errorf("%s: reading memory: status %d: %v", c.f.name, r.status, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: reading memory: %w", c.f.name, err)
	}
	return m, nil
}

// profile records a profile of the child for d into path: kind "profile"
// (CPU) or "allocs" (the allocations made during d).
func (c *child) profile(kind string, d time.Duration, path string) error {
	conn := newRawConn(c.addr)
	defer conn.Close()
	r, err := conn.post(fmt.Sprintf("/debug/pprof/%s?seconds=%d", kind, int(d/time.Second)), reqHeaders{}, nil)
	if err != nil {
		return err
	}
	b, err := conn.readAll()
	if err != nil || r.status != 200 {
		return fmt.Errorf("%s: profile: status %d: %v", c.f.name, r.status, err)
	}
	return os.WriteFile(path, b, 0o644)
}
