// Package nodetest is what the interop tests that run a pinned Node.js
// client share (internal/testsupport/interop/ts and .../inspector): npm ci
// from a committed package-lock.json, only when it changed, under a lock,
// and running node with a time limit.
package nodetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// stampFile records the hash of the package.json and package-lock.json
// that node_modules was installed from.
const stampFile = "node_modules/.elicit-interop-stamp"

// npmTimeout bounds one npm ci.
const npmTimeout = 10 * time.Minute

// Install runs npm ci in dir, with npm's extra args and env added to the
// environment, unless node_modules was installed from the current
// package.json and package-lock.json. It holds a lock for the rest of the
// test: one run at a time per directory, since npm ci rewrites
// node_modules.
func Install(t testing.TB, dir string, env []string, args ...string) {
	t.Helper()
	sum := sha256.Sum256([]byte(dir))
	unlock, err := lockFile(filepath.Join(os.TempDir(), "elicit-interop-"+hex.EncodeToString(sum[:8])+".lock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	stamp, err := lockStamp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if have, err := os.ReadFile(filepath.Join(dir, stampFile)); err == nil && string(have) == stamp {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm not found on PATH: the test installs its pinned client with npm ci")
	}
	ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, append([]string{"ci", "--no-audit", "--no-fund", "--loglevel=error"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	t.Logf("npm ci: %v", time.Since(start).Round(time.Millisecond))
	if err := os.WriteFile(filepath.Join(dir, stampFile), []byte(stamp), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockStamp hashes package.json and package-lock.json.
func lockStamp(dir string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)) + "\n", nil
}

// Run runs node with args in the current directory, for at most timeout,
// and returns its stdout; stderr goes into the error.
func Run(timeout time.Duration, node string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return stdout.Bytes(), fmt.Errorf("still running after %v; stderr:\n%s", timeout, stderr.Bytes())
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return stdout.Bytes(), fmt.Errorf("exit %d; stderr:\n%s", exit.ExitCode(), stderr.Bytes())
		}
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}
