package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeFormimpl type-checks src as the runtime/formimpl of some runtime.
func fakeFormimpl(t *testing.T, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "formimpl.go", "package formimpl\n\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check(formimplPath, fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

func TestContractError(t *testing.T) {
	for _, tc := range []struct {
		name, runtime string
		want          string // "" for no error
	}{
		{"in range", "const (MinVersion = 2; MaxVersion = 4)", ""},
		{"at the top", "const (MinVersion = 2; MaxVersion = 3)", ""},
		{"runtime too old", "const (MinVersion = 2; MaxVersion = 2)",
			"this elicitgen writes version 3 of the generated-code contract, but the runtime in this build (github.com/go-elicit/elicit/runtime/formimpl) accepts only version 2: update the runtime with go get github.com/go-elicit/elicit@latest, or generate with the elicitgen of the runtime in go.mod: go tool elicitgen"},
		{"elicitgen too old", "const (MinVersion = 4; MaxVersion = 6)",
			"this elicitgen writes version 3 of the generated-code contract, but the runtime in this build (github.com/go-elicit/elicit/runtime/formimpl) accepts versions 4 to 6: this elicitgen is older than the runtime; generate with the elicitgen of the runtime in go.mod: go tool elicitgen"},
		{"a runtime from before the range", "const Version = 1; type EnforceVersion uint8",
			"accepts only version 1: update the runtime with go get github.com/go-elicit/elicit@latest"},
		{"no version at all", "type Form interface{}",
			"the runtime in this build (github.com/go-elicit/elicit/runtime/formimpl) has no contract version: update it with go get github.com/go-elicit/elicit@latest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := contractError(fakeFormimpl(t, tc.runtime), 3)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("err %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v\nwant one with %q", err, tc.want)
			}
		})
	}
}

// TestGenerateChecksTheRuntimeInTheBuild runs elicitgen in a scratch module
// whose go.mod replaces the elicit module with a copy whose runtime/formimpl
// does not accept what this elicitgen writes: it must say so, name both
// sides and the command to run, and write nothing.
func TestGenerateChecksTheRuntimeInTheBuild(t *testing.T) {
	for _, tc := range []struct {
		name, consts, want string
		imports            bool // the package imports formimpl itself (as after a first generation)
	}{
		{"runtime older than elicitgen", "const (\n\tMinVersion = 1\n\tMaxVersion = 2\n)\n",
			"this elicitgen writes version 5 of the generated-code contract, but the runtime in this build (github.com/go-elicit/elicit/runtime/formimpl) accepts versions 1 to 2: update the runtime with go get github.com/go-elicit/elicit@latest, or generate with the elicitgen of the runtime in go.mod: go tool elicitgen", false},
		{"elicitgen older than runtime", "const (\n\tMinVersion = 9\n\tMaxVersion = 9\n)\n",
			"accepts only version 9: this elicitgen is older than the runtime; generate with the elicitgen of the runtime in go.mod: go tool elicitgen", false},
		{"found among the imports", "const (\n\tMinVersion = 1\n\tMaxVersion = 2\n)\n", "accepts versions 1 to 2: update the runtime", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			write := func(name, src string) {
				t.Helper()
				name = filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("rt/go.mod", "module github.com/go-elicit/elicit\n\ngo 1.26.0\n")
			write("rt/runtime/formimpl/formimpl.go", "// Package formimpl is a runtime's contract at other versions.\npackage formimpl\n\n"+tc.consts)
			write("app/go.mod", "module example.com/app\n\ngo 1.26.0\n\nrequire github.com/go-elicit/elicit v0.0.0\n\nreplace github.com/go-elicit/elicit => ../rt\n")
			imp := ""
			if tc.imports {
				imp = "import _ \"github.com/go-elicit/elicit/runtime/formimpl\"\n\n"
			}
			write("app/app.go", "package app\n\n"+imp+"// AskForm asks.\n//\n//elicit:form\ntype AskForm struct {\n\tName string `json:\"name\"`\n}\n")
			_, err := Generate(Config{Dir: filepath.Join(root, "app")})
			if err == nil {
				t.Fatal("Generate succeeded, want the contract error")
			}
			t.Logf("elicitgen says: %v", err)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant ... %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "app", "app_elicit.go")); !os.IsNotExist(err) {
				t.Errorf("elicitgen wrote app_elicit.go (stat: %v)", err)
			}
		})
	}
}
