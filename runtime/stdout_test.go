//go:build unix

package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func init() { stdoutHelper = noisyStdioServer }

// noisyStdioServer serves, as its own process, a tool that writes to stdout
// in the ways handlers do by mistake.
func noisyStdioServer() int {
	early := log.New(os.Stdout, "early logger: ", 0) // made before serving
	srv := NewServer(Options{Name: "stdout-helper", Version: "1"})
	srv.AddTool(Tool{Name: "noisy"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		fmt.Println("stray println")
		early.Print("stray log line")
		os.Stdout.WriteString("stray write\n")
		return TextResult("quiet result"), nil
	})
	if err := srv.ServeStdioProcess(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	fmt.Println("after serving") // stdout is the real one again
	return 0
}

// TestServeStdioProcessKeepsStdout: while ServeStdioProcess serves, stdout
// carries MCP messages only; what handlers print there goes to stderr.
func TestServeStdioProcessKeepsStdout(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stdoutHelperEnv+"=1", "GORACE=atexit_sleep_ms=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"noisy","arguments":{}}}`,
	}, "\n") + "\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() { <-ctx.Done(); _ = cmd.Process.Kill() }()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\nstderr:\n%s", err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	// The two responses, then the line printed after serving ended.
	if len(lines) != 3 || lines[2] != "after serving" {
		t.Fatalf("stdout lines %q", lines)
	}
	for _, l := range lines[:2] {
		if !json.Valid([]byte(l)) {
			t.Errorf("stdout carried a line that is not JSON-RPC: %q", l)
		}
	}
	if !strings.Contains(lines[1], "quiet result") {
		t.Errorf("tools/call response %q", lines[1])
	}
	for _, want := range []string{"stray println\n", "early logger: stray log line\n", "stray write\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestServeStdioProcessReassignedStdout: a program that pointed os.Stdin and
// os.Stdout at pipes is served on them, and descriptor 1 is left alone.
func TestServeStdioProcessReassignedStdout(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	oldIn, oldOut := os.Stdin, os.Stdout
	os.Stdin, os.Stdout = inR, outW
	defer func() { os.Stdin, os.Stdout = oldIn, oldOut }()
	srv := NewServer(Options{})
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdioProcess(context.Background()) }()
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.Contains(line, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("response on the reassigned stdout: %q, %v", line, err)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdioProcess: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdioProcess did not return after stdin closed")
	}
	outW.Close()
	outR.Close()
	inR.Close()
}
