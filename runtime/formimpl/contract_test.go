package formimpl_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// The fixture of generated code from an earlier contract version: never
// regenerated, it is what a user's module holds when they upgrade the
// runtime.
const (
	previousVersion = 2
	previousDir     = "testdata/contract/v2"
)

// goCommand runs the go command in the module root and returns its
// combined output.
func goCommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	cmd := exec.Command(gobin, args...)
	cmd.Dir = filepath.Join("..", "..")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// TestPreviousContractBuildsAndDecodes builds code generated for an
// earlier contract version against this runtime and decodes answers with
// it: a runtime upgrade must not break a generated file.
func TestPreviousContractBuildsAndDecodes(t *testing.T) {
	if previousVersion < formimpl.MinVersion || previousVersion >= formimpl.MaxVersion {
		t.Fatalf("the fixture is version %d, the runtime accepts %d to %d: the fixture must be an earlier version it accepts", previousVersion, formimpl.MinVersion, formimpl.MaxVersion)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", previousDir, "main_elicit.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, fmt.Appendf(nil, "(formimpl.MaxVersion - %d)", previousVersion)) {
		t.Fatalf("%s/main_elicit.go is not version %d any more: restore it from git; it must stay as elicitgen wrote it", previousDir, previousVersion)
	}
	answers := []string{
		`{"action":"accept","content":{"title":"checkout is down","priority":2}}`,
		`{"action":"accept","content":{"title":"","priority":9,"contact":"x","area":"tv"}}`,
		`{"action":"decline"}`,
	}
	out, err := goCommand(t, append([]string{"run", "./" + previousDir}, answers...)...)
	if err != nil {
		t.Fatalf("go run ./%s: %v\n%s", previousDir, err, out)
	}
	want := `form {Title:checkout is down Priority:2 Contact: Area:web}
problem area: must be one of "web", "api"
problem contact: must be an email address
problem priority: must be at most 5
problem title: must be at least 1 character
error elicit: declined by the user
`
	if out != want {
		t.Errorf("version %d code against this runtime printed\n%s\nwant\n%s", previousVersion, out, want)
	}
}

// TestVersionOutsideRangeFailsReadably builds the fixture as if it had been
// generated for a version this runtime does not accept, with the real go
// build, and checks that the error names what to do.
func TestVersionOutsideRangeFailsReadably(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", previousDir, "main_elicit.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		version int
		want    string
	}{
		{"too new", formimpl.MaxVersion + 1, "constant -1 overflows formimpl.GeneratedCodeNeedsNewerRuntime_RunGoGetGithubComGoElicitElicitAtLatest"},
		{"too old", formimpl.MinVersion - 1, "constant -1 overflows formimpl.GeneratedCodeTooOld_RegenerateWithGoToolElicitgen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := asVersion(t, src, tc.version)
			abs, err := filepath.Abs(filepath.Join("..", "..", previousDir, "main_elicit.go"))
			if err != nil {
				t.Fatal(err)
			}
			overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{abs: file}})
			if err != nil {
				t.Fatal(err)
			}
			ov := filepath.Join(t.TempDir(), "overlay.json")
			if err := os.WriteFile(ov, overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := goCommand(t, "build", "-overlay", ov, "-o", os.DevNull, "./"+previousDir)
			if err == nil {
				t.Fatalf("version %d code built against a runtime that accepts %d to %d", tc.version, formimpl.MinVersion, formimpl.MaxVersion)
			}
			t.Logf("go build says:\n%s", out)
			if !strings.Contains(out, "main_elicit.go:") || !strings.Contains(out, tc.want) {
				t.Errorf("go build said\n%s\nwant a line of main_elicit.go with %q", out, tc.want)
			}
		})
	}
}

// asVersion writes the generated file src with its version check set to
// version, into a temporary file, and returns that file's name.
func asVersion(t *testing.T, src []byte, version int) string {
	t.Helper()
	s := string(src)
	for _, r := range [][2]string{
		{fmt.Sprintf("(formimpl.MaxVersion - %d)", previousVersion), fmt.Sprintf("(formimpl.MaxVersion - %d)", version)},
		{fmt.Sprintf("(%d - formimpl.MinVersion)", previousVersion), fmt.Sprintf("(%d - formimpl.MinVersion)", version)},
	} {
		if !strings.Contains(s, r[0]) {
			t.Fatalf("the fixture has no %q", r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	name := filepath.Join(t.TempDir(), "main_elicit.go")
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}
