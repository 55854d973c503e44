package scenario

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
)

// Binaries are the programs a scenario runs: the client and the servers by
// name.
type Binaries struct {
	Client  string            // the mcptest binary
	Servers map[string]string // examples/NAME -> binary
}

// Run runs the scenario over transport, one of s.Transports. Over
// [TransportHTTP] it starts the server on a free loopback port, runs the
// client against it and stops the server again, on every path; over
// [TransportStdio] the client starts the server as its child (mcptest
// --stdio), and ends it by closing its stdin.
func (s *Scenario) Run(ctx context.Context, bins Binaries, transport string) (Result, error) {
	serverBin, ok := bins.Servers[s.Server]
	if !ok {
		return Result{}, fmt.Errorf("%s: unknown server %q", s.Name, s.Server)
	}
	if !slices.Contains(s.Transports, transport) {
		return Result{}, fmt.Errorf("%s: not a scenario for transport %q (it runs over %s)", s.Name, transport, strings.Join(s.Transports, ", "))
	}
	var args []string
	switch transport {
	case TransportHTTP:
		url, stop, err := StartServer(ctx, serverBin, s.ServerFlags)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", s.Name, err)
		}
		defer stop()
		args = []string{"--url", url}
	case TransportStdio:
		// mcptest splits the command on white space.
		if strings.ContainsFunc(serverBin, unicode.IsSpace) {
			return Result{}, fmt.Errorf("%s: server binary %q has white space in its path; mcptest --stdio cannot run it", s.Name, serverBin)
		}
		args = []string{"--stdio", strings.Join(append([]string{serverBin, "-stdio"}, s.ServerFlags...), " ")}
	}
	args = append(args, s.ClientFlags...)

	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.Client, args...)
	cmd.Stdin = strings.NewReader(s.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("%s: client still running after %v; stderr:\n%s", s.Name, s.Timeout, res.Stderr)
	case errors.As(err, &exit):
		res.Exit = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("%s: running the client: %w", s.Name, err)
	}
	return res, nil
}

// listenPrefix starts the one line a server prints once it accepts
// connections.
const listenPrefix = "listening on "

// StartServer runs a server binary with -addr 127.0.0.1:0 and flags, waits
// for its "listening on URL" line and returns the URL and a stop function
// (SIGINT, then kill after two seconds) that waits for the process.
func StartServer(ctx context.Context, bin string, flags []string) (url string, stop func(), err error) {
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, flags...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	done := make(chan struct{})
	stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
		}
	}
	lines := make(chan string, 1)
	go func() {
		defer close(done)
		r := bufio.NewReader(stderr)
		first, _ := r.ReadString('\n')
		lines <- first
		_, _ = io.Copy(io.Discard, r) // keep draining so the server never blocks on stderr
		_ = cmd.Wait()
	}()
	select {
	case line := <-lines:
		if !strings.HasPrefix(line, listenPrefix) {
			stop()
			return "", nil, fmt.Errorf("server said %q, want %q", strings.TrimSpace(line), listenPrefix+"URL")
		}
		return strings.TrimSpace(strings.TrimPrefix(line, listenPrefix)), stop, nil
	case <-time.After(20 * time.Second):
		stop()
		return "", nil, fmt.Errorf("server did not print %q within 20s", listenPrefix+"URL")
	case <-ctx.Done():
		stop()
		return "", nil, ctx.Err()
	}
}
