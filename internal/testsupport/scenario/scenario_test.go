package scenario

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarios builds mcptest and the example servers once and runs every
// testdata/scenarios/*.ci file against a fresh server, once per transport
// the file names (subtests NAME/http, NAME/stdio).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/scenarios/*.ci")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../../cmd/mcptest", "../../../examples/ze")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	bins := Binaries{Client: filepath.Join(dir, "mcptest"), Servers: map[string]string{"ze": filepath.Join(dir, "ze")}}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".ci")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(filepath.Base(file), data)
			if err != nil {
				t.Fatal(err)
			}
			for _, transport := range s.Transports {
				t.Run(transport, func(t *testing.T) {
					t.Parallel()
					res, err := s.Run(context.Background(), bins, transport)
					if err != nil {
						t.Fatal(err)
					}
					for _, problem := range s.Check(res) {
						t.Error(problem)
					}
					if t.Failed() {
						t.Logf("stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
					}
				})
			}
		})
	}
}
