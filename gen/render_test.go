package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"strings"
	"testing"
)

// emitAllWays emits the package in dir every way emitForms can and checks that
// the outputs agree byte for byte and are gofmt'ed.
func emitAllWays(t *testing.T, dir string, wantForms int) []byte {
	t.Helper()
	pkgs, err := Load(dir, []string{"."}, "")
	if err != nil {
		t.Fatal(err)
	}
	forms, diags := build(pkgs[0], nil)
	diags = append(diags, checkForms(forms)...)
	if len(diags) > 0 || len(forms) != wantForms {
		t.Fatalf("%d forms, diagnostics %v", len(forms), diags)
	}
	pkg := pkgs[0].Pkg
	whole, err := emitWhole(pkg, forms)
	if err != nil {
		t.Fatal(err)
	}
	if formatted, err := format.Source(whole); err != nil || !bytes.Equal(formatted, whole) {
		t.Fatalf("the one-file output is not gofmt'ed (%v)", err)
	}
	for _, workers := range []int{1, 2, 7} {
		got, err := emitFile(pkg, forms, workers)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole) {
			t.Fatalf("emitFile with %d workers differs from the one-file output at byte %d", workers, firstDiff(got, whole))
		}
	}
	return whole
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestEmitPartsMatchWholeFile: formatting the forms in parts, in parallel,
// gives exactly the file formatting it whole gives.
func TestEmitPartsMatchWholeFile(t *testing.T) {
	n := 3*formsPerPart + 5
	out := emitAllWays(t, manyForms(t, n), n)
	// Every form reads its address with the string reader.
	if c := strings.Count(string(out), "d.StringField("); c != n {
		t.Errorf("%d string readers, want %d", c, n)
	}
}

// TestEmitPartsImports: forms whose parts import packages of their own, and
// two packages of one name in different parts, which the parts would name
// alike: the output is still the one-file output, imports and all.
func TestEmitPartsImports(t *testing.T) {
	var src strings.Builder
	src.WriteString("package imp\n\nimport (\n\thtmltemplate \"html/template\"\n\t\"net/netip\"\n\t\"text/template\"\n\t\"time\"\n)\n")
	n := formsPerPart + 3
	for i := range n {
		extra := "\tAddr netip.Addr `json:\"-\"`\n"
		switch i {
		case 1:
			extra = "\tT *template.Template `json:\"-\"`\n"
		case formsPerPart + 1:
			extra = "\tH *htmltemplate.Template `json:\"-\"`\n"
		}
		// Zero-padded: forms are emitted in name order.
		fmt.Fprintf(&src, "\n//elicit:form\ntype F%02dForm struct {\n\tAt time.Time `json:\"at\"`\n%s}\n", i, extra)
	}
	dir := scratchPackage(t, map[string]string{"imp.go": src.String()})
	out := emitAllWays(t, dir, n)
	for _, want := range []string{"\t\"text/template\"\n", "\ttemplate1 \"html/template\"\n", "\t\"net/netip\"\n", "*template1.Template"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// Without the clash the parts are joined, and still agree.
	clean := strings.ReplaceAll(src.String(), "\tH *htmltemplate.Template `json:\"-\"`\n", "")
	clean = strings.Replace(clean, "\thtmltemplate \"html/template\"\n", "", 1)
	dir = scratchPackage(t, map[string]string{"imp.go": clean})
	emitAllWays(t, dir, n)
}

func TestCutImports(t *testing.T) {
	for _, c := range []struct {
		src, body string
		imports   map[string]string
	}{
		{"package p\n\nvar x = 1\n", "var x = 1\n", map[string]string{}},
		{"// c\n\npackage p\n\nimport \"a/b\"\n\nvar x = b.X\n", "var x = b.X\n", map[string]string{"a/b": `"a/b"`}},
		{"package p\n\nimport (\n\"a/b\"\nc \"x/c\"\n)\n\nvar x = 1\n", "var x = 1\n", map[string]string{"a/b": `"a/b"`, "x/c": `c "x/c"`}},
	} {
		imports, body, err := cutImports([]byte(c.src), "p")
		if err != nil || string(body) != c.body || fmt.Sprint(imports) != fmt.Sprint(c.imports) {
			t.Errorf("cutImports(%q) = %v, %q, %v; want %v, %q", c.src, imports, body, err, c.imports, c.body)
		}
	}
	for _, bad := range []string{"package q\n\n", "package p\n\nimport (\n\"a\"\n", "package p\n\nimport \"a\"", "package p\n\nimport (\nnope\n)\n\n"} {
		if _, _, err := cutImports([]byte(bad), "p"); err == nil {
			t.Errorf("cutImports(%q) succeeded", bad)
		}
	}
}

func TestImportName(t *testing.T) {
	for _, c := range []struct{ path, spec, want string }{
		{"text/template", `"text/template"`, "template"},
		{"math/rand/v2", `"math/rand/v2"`, "rand"},
		{"v2", `"v2"`, "v2"},
		{"html/template", `template1 "html/template"`, "template1"},
	} {
		if got := importName(c.path, c.spec); got != c.want {
			t.Errorf("importName(%q, %q) = %q, want %q", c.path, c.spec, got, c.want)
		}
	}
}

func TestParallel(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		got := make([]int, 50)
		parallel(len(got), workers, func(i int) { got[i] += i + 1 })
		for i, v := range got {
			if v != i+1 {
				t.Fatalf("workers %d: item %d ran to %d", workers, i, v)
			}
		}
	}
}
