package runtime_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// misuses are calls that must not compile, each with what the compiler
// must say about it (the path of package runtime, which the compiler
// quotes, shortened to runtime).
var misuses = []struct {
	name, code, want string
}{
	{"a form option given to ElicitURL",
		`runtime.ElicitURL(ctx, "Sign in", "https://example.com/login", runtime.WithReask(1))`,
		`runtime.FormOption does not implement runtime.URLOption (missing method applyToURL)`},
	{"choices given to ElicitURL",
		`runtime.ElicitURL(ctx, "Sign in", "https://example.com/login", runtime.WithChoices(testform.RegionForm_Region))`,
		`runtime.ElicitOption does not implement runtime.URLOption (missing method applyToURL)`},
	{"defaults given to ElicitURL",
		`runtime.ElicitURL(ctx, "Sign in", "https://example.com/login", runtime.WithDefaults(testform.RegionForm{}))`,
		`runtime.ElicitOption does not implement runtime.URLOption (missing method applyToURL)`},
	{"defaults given to ElicitSchema",
		`runtime.ElicitSchema(ctx, "Name?", nil, runtime.WithDefaults(testform.RegionForm{}))`,
		`runtime.ElicitOption does not implement runtime.FormOption (missing method applyToSchema)`},
	{"choices given to ElicitSchema",
		`runtime.ElicitSchema(ctx, "Name?", nil, runtime.WithChoices(testform.RegionForm_Region))`,
		`runtime.ElicitOption does not implement runtime.FormOption (missing method applyToSchema)`},
	{"a misspelt choices field",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithChoices(testform.RegionForm_Regoin))`,
		`undefined: testform.RegionForm_Regoin`},
	{"a choices field named by a string",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithChoices("region"))`,
		`cannot use "region" (untyped string constant) as runtime.ChoicesField value in argument to runtime.WithChoices`},
	{"defaults of an int",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithDefaults(42))`,
		`*int does not satisfy interface{*int; formimpl.Form} (missing method ElicitDecode)`},
	{"defaults of a struct that is not a form",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithDefaults(struct{ Region string }{"eu"}))`,
		`*struct{Region string} does not satisfy interface{*struct{Region string}; formimpl.Form} (missing method ElicitDecode)`},
	{"defaults of a pointer to the form",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithDefaults(&testform.RegionForm{}))`,
		`**testform.RegionForm does not satisfy interface{**testform.RegionForm; formimpl.Form} (missing method ElicitDecode)`},
	{"defaults of nil",
		`runtime.Elicit[testform.RegionForm](ctx, "Where?", runtime.WithDefaults(nil))`,
		`cannot infer T`},
}

// TestMisuseDoesNotCompile builds runtime/testdata/misuse with the real go
// build: as it is (every option where it applies compiles), then with its
// file replaced by the misuses, one function each, and checks that every
// misuse is a compile error at its own line saying what is wrong.
func TestMisuseDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command (a few seconds)")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	build := func(overlay string) (string, error) {
		args := []string{"build", "-gcflags=-e"}
		if overlay != "" {
			args = append(args, "-overlay", overlay)
		}
		cmd := exec.Command(gobin, append(args, "./testdata/misuse")...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := build(""); err != nil {
		t.Fatalf("the options where they apply do not compile: %v\n%s", err, out)
	}

	var src strings.Builder
	src.WriteString("package misuse\n\nimport (\n\t\"context\"\n\n\t\"github.com/go-elicit/elicit/runtime\"\n\t\"github.com/go-elicit/elicit/runtime/internal/testform\"\n)\n\n")
	line := map[int]int{} // source line → misuse
	n := strings.Count(src.String(), "\n") + 1
	for i, m := range misuses {
		fmt.Fprintf(&src, "func misuse%d(ctx context.Context) {\n\t_, _ = %s\n}\n\n", i, m.code)
		line[n+1] = i
		n += 4
	}
	file := filepath.Join(t.TempDir(), "misuse.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	target, err := filepath.Abs(filepath.Join("testdata", "misuse", "misuse.go"))
	if err != nil {
		t.Fatal(err)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{target: file}})
	overlay := filepath.Join(t.TempDir(), "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := build(overlay)
	if err == nil {
		t.Fatalf("the misuses compiled:\n%s", src.String())
	}
	t.Logf("go build says:\n%s", out)
	// The compiler quotes the path of a package named like a standard one.
	out = strings.ReplaceAll(out, `"github.com/go-elicit/elicit/runtime".`, "runtime.")
	said := make([][]string, len(misuses))
	at := regexp.MustCompile(`(?m)^\S*misuse\.go:(\d+):\d+: (.*)$`)
	for _, m := range at.FindAllStringSubmatch(out, -1) {
		ln, _ := strconv.Atoi(m[1])
		i, ok := line[ln]
		if !ok {
			t.Errorf("an error on line %d, which holds no misuse: %s", ln, m[2])
			continue
		}
		said[i] = append(said[i], m[2])
	}
	for i, m := range misuses {
		if !strings.Contains(strings.Join(said[i], "\n"), m.want) {
			t.Errorf("%s (%s): go build said %q, want %q", m.name, m.code, said[i], m.want)
		}
	}
}
