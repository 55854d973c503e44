package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expectations of the golden cases in testdata/gen")

// goldenDir holds the cases, one txtar archive each. An archive has
//
//   - in its comment, optionally, a line "types: A,B" (the -type flag);
//   - the input: one or more .go files of one package;
//   - "want/<package>_elicit.go", the expected output, or
//     "want/diagnostics", the expected diagnostics;
//   - optionally "decode": pairs of lines, "<Type> <json content>" then the
//     expected outcome, "ok <decoded struct as JSON>" or "err <message>".
//
// Every accepted case is then compiled as a real package inside this
// module and tested there: its decode lines are run, its schemas are
// compared with what invopop's Reflector makes of the same structs, and
// every variant is checked against its protocol version.
const goldenDir = "../testdata/gen"

type goldenCase struct {
	name    string
	file    string
	archive *txtar.Archive
	types   []string
	inputs  []txtar.File
	want    []byte // generated file, or diagnostics
	wantOut string // name of the want/ section
	decode  []decodeLine
	dir     string
	forms   []*formModel
	pkgName string
}

type decodeLine struct {
	form, input, want string
}

func loadGoldenCases(t *testing.T) []*goldenCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases in %s: %v", goldenDir, err)
	}
	var cases []*goldenCase
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := &goldenCase{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), file: file, archive: a}
		for _, line := range strings.Split(string(a.Comment), "\n") {
			if v, ok := strings.CutPrefix(line, "types:"); ok {
				for _, n := range strings.Split(v, ",") {
					c.types = append(c.types, strings.TrimSpace(n))
				}
			}
		}
		for _, f := range a.Files {
			switch {
			case strings.HasPrefix(f.Name, "want/"):
				c.want, c.wantOut = f.Data, f.Name
			case f.Name == "decode":
				sc := bufio.NewScanner(bytes.NewReader(f.Data))
				sc.Buffer(nil, 1<<20)
				var pending *decodeLine
				for sc.Scan() {
					line := sc.Text()
					if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
						continue
					}
					if strings.HasPrefix(line, "ok ") || strings.HasPrefix(line, "err ") {
						if pending == nil {
							t.Fatalf("%s: expectation %q follows no input", file, line)
						}
						pending.want = line
						c.decode = append(c.decode, *pending)
						pending = nil
						continue
					}
					if pending != nil {
						if !*update {
							t.Fatalf("%s: decode line %q has no expectation", file, pending.input)
						}
						c.decode = append(c.decode, *pending)
					}
					form, input, _ := strings.Cut(line, " ")
					pending = &decodeLine{form: form, input: input}
				}
				if pending != nil {
					if !*update {
						t.Fatalf("%s: decode line %q has no expectation", file, pending.input)
					}
					c.decode = append(c.decode, *pending)
				}
			case strings.HasSuffix(f.Name, ".go"):
				c.inputs = append(c.inputs, f)
			default:
				t.Fatalf("%s: unknown section %q", file, f.Name)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// goldenRoot makes a scratch directory inside the module, so that case
// packages can import the runtime; "testdata" keeps it out of ./... .
func goldenRoot(t *testing.T) string {
	t.Helper()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("testdata", "golden")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(abs) })
	return abs
}

func TestGolden(t *testing.T) {
	cases := loadGoldenCases(t)
	root := goldenRoot(t)
	var compiled []*goldenCase
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.dir = filepath.Join(root, strings.ReplaceAll(c.name, "-", "_"))
			if err := os.MkdirAll(c.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range c.inputs {
				if err := os.WriteFile(filepath.Join(c.dir, f.Name), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Generate(Config{Dir: c.dir, Patterns: []string{"."}, Types: c.types})
			var got []byte
			var gotName string
			var de *DiagnosticsError
			switch {
			case errors.As(err, &de):
				got, gotName = []byte(strings.Join(de.Lines, "\n")+"\n"), "want/diagnostics"
				if matches, _ := filepath.Glob(filepath.Join(c.dir, "*_elicit.go")); len(matches) > 0 {
					t.Errorf("files written despite diagnostics: %v", matches)
				}
			case err != nil:
				t.Fatalf("Run: %v", err)
			default:
				if len(res.Files) != 1 {
					t.Fatalf("want one generated file, got %v", res.Files)
				}
				got, err = os.ReadFile(res.Files[0])
				if err != nil {
					t.Fatal(err)
				}
				gotName = "want/" + filepath.Base(res.Files[0])
				// Generating again changes nothing, byte for byte.
				res2, err := Generate(Config{Dir: c.dir, Patterns: []string{"."}, Types: c.types})
				if err != nil {
					t.Fatalf("second Run: %v", err)
				}
				if len(res2.Written) != 0 {
					t.Errorf("second run rewrote %v", res2.Written)
				}
				again, _ := os.ReadFile(res.Files[0])
				if !bytes.Equal(got, again) {
					t.Errorf("second run changed the output")
				}
				c.pkgName = strings.TrimSuffix(filepath.Base(res.Files[0]), "_elicit.go")
				compiled = append(compiled, c)
			}
			if *update {
				c.want, c.wantOut = got, gotName
				return
			}
			if gotName != c.wantOut {
				t.Fatalf("got %s, the case expects %s:\n%s", gotName, c.wantOut, got)
			}
			if !bytes.Equal(got, c.want) {
				t.Errorf("%s differs (run go test ./gen -run TestGolden -update to accept):\n--- got\n%s\n--- want\n%s", gotName, got, c.want)
			}
		})
	}
	if len(compiled) > 0 {
		runCompiled(t, root, compiled)
	}
	if *update {
		for _, c := range cases {
			writeGoldenCase(t, c)
		}
	}
}

// runCompiled writes a test into each accepted case's package and runs them
// all in one go test: the generated code must compile, vet clean, decode as
// the case says and agree with invopop.
func runCompiled(t *testing.T, root string, cases []*goldenCase) {
	out := filepath.Join(root, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		forms, err := formsOf(c)
		if err != nil {
			t.Fatal(err)
		}
		c.forms = forms
		if err := os.WriteFile(filepath.Join(c.dir, "zz_golden_test.go"), caseTest(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var pkgs []string
	for _, c := range cases {
		pkgs = append(pkgs, "./"+filepath.Base(c.dir))
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated code: %v\n%s", err, b)
	}
	cmd = exec.Command("go", append([]string{"test", "-count=1"}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ELICIT_GOLDEN_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated code: %v\n%s", err, b)
	}
	for _, c := range cases {
		if len(c.decode) == 0 {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(out, filepath.Base(c.dir)+".json"))
		if err != nil {
			t.Fatalf("%s: decode results: %v", c.name, err)
		}
		var got []string
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		for i := range c.decode {
			if *update {
				c.decode[i].want = got[i]
				continue
			}
			if got[i] != c.decode[i].want {
				t.Errorf("%s: decode %s %s:\n got: %s\nwant: %s", c.name, c.decode[i].form, c.decode[i].input, got[i], c.decode[i].want)
			}
		}
	}
}

// formsOf rebuilds the model of a case, for the additions the oracle needs.
func formsOf(c *goldenCase) ([]*formModel, error) {
	pkgs, err := Load(c.dir, []string{"."}, "")
	if err != nil {
		return nil, err
	}
	forms, diags := build(pkgs[0], c.types)
	if len(diags) > 0 {
		return nil, fmt.Errorf("%s: %v", c.name, diags)
	}
	return forms, nil
}

func caseTest(c *goldenCase) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s\n\n", c.pkgName)
	b.WriteString(`import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-elicit/elicit/gen/internal/goldencheck"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

var _ = errors.New
var _ = json.Marshal

`)
	b.WriteString("func TestGoldenDecode(t *testing.T) {\n\tvar got []string\n")
	for _, d := range c.decode {
		fmt.Fprintf(&b, "\t{\n\t\tvar v %s\n\t\tgot = append(got, goldencheck.Outcome(v.ElicitDecode([]byte(%s)), &v))\n\t}\n", d.form, strconv.Quote(d.input))
	}
	b.WriteString(`	if dir := os.Getenv("ELICIT_GOLDEN_OUT"); dir != "" {
		raw, _ := json.Marshal(got)
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(mustWd(t))+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustWd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

`)
	b.WriteString("func TestGoldenOracle(t *testing.T) {\n")
	for _, form := range c.forms {
		fmt.Fprintf(&b, "\tgoldencheck.Oracle(t, &%s{}, []goldencheck.Addition{\n", form.Name)
		for _, f := range form.Fields {
			for _, a := range f.Additions {
				fmt.Fprintf(&b, "\t\t{Property: %q, Keyword: %q, Reason: %q},\n", a.Property, a.Keyword, a.Reason)
			}
		}
		b.WriteString("\t})\n")
	}
	b.WriteString("}\n\nvar _ formimpl.Form = nil\n")
	return b.Bytes()
}

func writeGoldenCase(t *testing.T, c *goldenCase) {
	a := &txtar.Archive{Comment: c.archive.Comment}
	a.Files = append(a.Files, c.inputs...)
	if c.wantOut != "" {
		a.Files = append(a.Files, txtar.File{Name: c.wantOut, Data: c.want})
	}
	if len(c.decode) > 0 {
		var b bytes.Buffer
		for _, d := range c.decode {
			fmt.Fprintf(&b, "%s %s\n%s\n", d.form, d.input, d.want)
		}
		a.Files = append(a.Files, txtar.File{Name: "decode", Data: b.Bytes()})
	}
	if err := os.WriteFile(c.file, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
}
