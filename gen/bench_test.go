package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// manyForms writes a package with n forms, each shaped like issue 3's
// PeerForm, and returns its directory.
func manyForms(b testing.TB, n int) string {
	var src strings.Builder
	src.WriteString("package many\n\ntype Family string\n\nconst (\n\tIPv4 Family = \"ipv4-unicast\" // IPv4 unicast\n\tIPv6 Family = \"ipv6-unicast\" // IPv6 unicast\n)\n")
	for i := range n {
		fmt.Fprintf(&src, `
// Peer%[1]dForm asks for a peer.
//
//elicit:form
type Peer%[1]dForm struct {
	// Address of the peer.
	Address string   `+"`json:\"address\" validate:\"required,ip\"`"+`
	ASN     int64    `+"`json:\"asn\" jsonschema:\"title=AS number,minimum=1,maximum=4294967295\"`"+`
	Family  Family   `+"`json:\"family\"`"+`
	Extra   []Family `+"`json:\"extra,omitempty\"`"+`
	Passive bool     `+"`json:\"passive\" jsonschema:\"default=false\"`"+`
}
`, i)
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "bench")
	if err != nil {
		b.Fatal(err)
	}
	dir, _ = filepath.Abs(dir)
	b.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "many.go"), []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkGenerate200 is elicitgen on a package of 200 forms whose output
// already exists (the state every later go generate sees), from loading to
// the comparison that leaves the file alone.
func BenchmarkGenerate200(b *testing.B) {
	dir := manyForms(b, 200)
	if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerate200Fresh is the first run: no output yet, file written.
// Compare it with BenchmarkLoad200Fresh.
func BenchmarkGenerate200Fresh(b *testing.B) {
	dir := manyForms(b, 200)
	out := filepath.Join(dir, "many_elicit.go")
	b.ReportAllocs()
	for b.Loop() {
		os.Remove(out)
		if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad200 is the floor: packages.Load of the same package, with
// its generated file, in the same mode, and nothing else.
func BenchmarkLoad200(b *testing.B) {
	dir := manyForms(b, 200)
	if _, err := Generate(Config{Dir: dir, Patterns: []string{"."}}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pkgs, err := packages.Load(&packages.Config{Mode: LoadMode, Dir: dir}, ".")
		if err != nil || packages.PrintErrors(pkgs) > 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkModelCheckEmit200 is the generator's own work without loading.
func BenchmarkModelCheckEmit200(b *testing.B) {
	dir := manyForms(b, 200)
	pkgs, err := Load(dir, []string{"."}, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		forms, diags := build(pkgs[0], nil)
		diags = append(diags, checkForms(forms)...)
		if len(diags) > 0 || len(forms) != 200 {
			b.Fatalf("%d forms, %v", len(forms), diags)
		}
		if _, err := emitForms(pkgs[0].Pkg, forms); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad200Fresh is packages.Load of the package before any output
// exists.
func BenchmarkLoad200Fresh(b *testing.B) {
	dir := manyForms(b, 200)
	b.ReportAllocs()
	for b.Loop() {
		pkgs, err := packages.Load(&packages.Config{Mode: LoadMode, Dir: dir}, ".")
		if err != nil || packages.PrintErrors(pkgs) > 0 {
			b.Fatal(err)
		}
	}
}
