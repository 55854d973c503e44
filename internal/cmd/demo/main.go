// Command demo is what `make demo` runs: it starts examples/ze on a free
// loopback port, drives an accepted and a declined elicitation through it
// with mcptest --trace, prints the transcripts and stops the server.
//
//	go run ./internal/cmd/demo -bin bin
//
// -bin names the folder holding the built ze and mcptest binaries.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/go-elicit/elicit/internal/testsupport/scenario"
)

func main() {
	bin := flag.String("bin", "bin", "folder with the ze and mcptest binaries")
	scripts := flag.String("scripts", "testdata/demo", "folder with the client scripts")
	flag.Parse()
	if err := run(*bin, *scripts); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(bin, scripts string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url, stop, err := scenario.StartServer(ctx, filepath.Join(bin, "ze"), nil)
	if err != nil {
		return fmt.Errorf("starting ze: %w", err)
	}
	defer stop()
	fmt.Printf("ze is serving MCP at %s\n", url)
	for _, demo := range []struct{ title, script string }{
		{"The user accepts: the elicited command runs", "accept.mcptest"},
		{"The user declines: the tool reports it, nothing runs", "decline.mcptest"},
	} {
		script, err := os.ReadFile(filepath.Join(scripts, demo.script))
		if err != nil {
			return err
		}
		fmt.Printf("\n=== %s\n--- script (%s)\n%s--- transcript (mcptest --elicit --trace)\n", demo.title, demo.script, script)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "mcptest"), "--url", url, "--elicit", "--trace")
		cmd.Stdin = bytes.NewReader(script)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
		err = cmd.Run()
		fmt.Printf("--- mcptest exit status: %d\n", cmd.ProcessState.ExitCode())
		if demo.script == "accept.mcptest" && err != nil {
			return fmt.Errorf("the accept script failed: %w", err)
		}
	}
	return nil
}
