package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// determinismRegion is another package's titled enum that the forms use.
const determinismRegion = `package region

// Region is where a server runs.
type Region string

const (
	EU Region = "eu" // Europe
	US Region = "us" // United States
	AP Region = "ap" // Asia Pacific
)
`

// determinismFiles is one package of six forms and three enums spread
// over six files, with an enum from another package (IMPORT is replaced by
// its import path).
var determinismFiles = map[string]string{
	"zed.go": `package multi

// Color is a titled enum.
type Color string

const (
	Red   Color = "red"   // Red
	Green Color = "green" // Green
)

// Zed is declared first in the first file and sorts last.
//
//elicit:form
type Zed struct {
	Color Color ` + "`json:\"color\"`" + `
	Note  string ` + "`json:\"note,omitempty\" jsonschema:\"maxLength=20\"`" + `
}
`,
	"alpha.go": `package multi

import "IMPORT"

//elicit:form
type Alpha struct {
	Region region.Region ` + "`json:\"region\"`" + `
	Colors []Color       ` + "`json:\"colors,omitempty\"`" + `
}
`,
	"mid.go": `package multi

// Size is an untitled enum.
type Size string

const (
	Small Size = "s"
	Large Size = "l"
)

//elicit:form
type Mid struct {
	Size  Size ` + "`json:\"size\"`" + `
	Count int8 ` + "`json:\"count\"`" + `
}
`,
	"beta.go": `package multi

//elicit:form
type Beta struct {
	Common
	Level Level ` + "`json:\"level\"`" + `
}
`,
	"common.go": `package multi

// Common is embedded in Beta.
type Common struct {
	Name string ` + "`json:\"name\" validate:\"min=2\"`" + `
}

// Level is an enum.
type Level string

const (
	Low  Level = "low"  // Low
	High Level = "high" // High
)
`,
	"gamma.go": `package multi

import "IMPORT"

//elicit:form
type Gamma struct {
	Where region.Region ` + "`json:\"where\"`" + `
	Size  *Size         ` + "`json:\"size,omitempty\"`" + `
	OK    bool          ` + "`json:\"ok\"`" + `
}

//elicit:form
type Delta struct {
	Level Level ` + "`json:\"level\"`" + `
}
`,
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func withImport(src, path string) string {
	return string(bytes.ReplaceAll([]byte(src), []byte("IMPORT"), []byte(path)))
}

// TestDeterministicAcrossFileOrders generates the same multi-file package
// from copies whose files carry other names (so go/packages lists and
// parses them in other orders), under several GOMAXPROCS, through
// elicitgen's Run, and wants the same bytes every time. It then runs
// stale on each copy: no copy may be reported out of date.
func TestDeterministicAcrossFileOrders(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := goldenRoot(t)
	importPath := "github.com/go-elicit/elicit/gen/testdata/" + filepath.Base(root) + "/region"
	writeFiles(t, filepath.Join(root, "region"), map[string]string{"region.go": determinismRegion})
	names := make([]string, 0, len(determinismFiles))
	for n := range determinismFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	rng := rand.New(rand.NewPCG(1, 14))
	const copies = 8
	var want []byte
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for c := range copies {
		// Each copy renames the files with a shuffled prefix, so that
		// both the listing order and the declaration order across files
		// differ from the other copies.
		perm := rng.Perm(len(names))
		files := map[string]string{}
		for i, n := range names {
			files[fmt.Sprintf("f%d_%s", perm[i], n)] = withImport(determinismFiles[n], importPath)
		}
		dir := filepath.Join(root, fmt.Sprintf("copy%d", c))
		writeFiles(t, dir, files)
		runtime.GOMAXPROCS(1 + c%4)
		for range 2 { // and load twice: go/packages parses in parallel
			res, err := Generate(Config{Dir: dir, Patterns: []string{"."}})
			if err != nil {
				t.Fatalf("copy %d: %v", c, err)
			}
			got, err := os.ReadFile(res.Files[0])
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = got
				continue
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("copy %d (files %v, GOMAXPROCS %d) generated other bytes:\n%s\n--- want ---\n%s", c, perm, runtime.GOMAXPROCS(0), got, want)
			}
		}
		pkgs, err := Load(dir, []string{"."}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range stale(pkgs[0], os.ReadFile) {
			t.Errorf("copy %d: fresh output reported stale: %s: %s", c, pkgs[0].Fset.Position(d.Pos), d.Message)
		}
	}
	for _, form := range []string{"Alpha", "Beta", "Delta", "Gamma", "Mid", "Zed"} {
		if !bytes.Contains(want, []byte("func (*"+form+") ElicitForm()")) {
			t.Errorf("generated code lacks %s", form)
		}
	}
	if i, j := bytes.Index(want, []byte("func (*Alpha) ElicitForm()")), bytes.Index(want, []byte("func (*Zed) ElicitForm()")); i > j {
		t.Errorf("forms are not in name order")
	}
}

// TestDeterministicAcrossParseOrders builds the package from syntax parsed
// and added to the file set in many orders, with an enum whose constants
// are split over two files, and wants the same bytes from emitForms each time.
func TestDeterministicAcrossParseOrders(t *testing.T) {
	root := t.TempDir()
	regionDir := filepath.Join(root, "region")
	writeFiles(t, regionDir, map[string]string{"region.go": determinismRegion})
	files := map[string]string{
		// More constants of Level, in a file after common.go: they follow
		// Low and High.
		"level_more.go": "package multi\n\nconst (\n\tMedium Level = \"medium\" // Medium\n\tTop    Level = \"top\"    // Top\n)\n",
	}
	for n, src := range determinismFiles {
		files[n] = withImport(src, "example.com/region")
	}
	dir := filepath.Join(root, "multi")
	writeFiles(t, dir, files)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)

	// typeCheck parses the named files into fset in the order given.
	typeCheck := func(fset *token.FileSet, dir, path string, names []string, imp types.Importer) *Source {
		t.Helper()
		var syntax []*ast.File
		for _, n := range names {
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			syntax = append(syntax, f)
		}
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
		pkg, err := (&types.Config{Importer: imp}).Check(path, fset, syntax, info)
		if err != nil {
			t.Fatal(err)
		}
		return &Source{Fset: fset, Files: syntax, Pkg: pkg, Info: info}
	}
	rng := rand.New(rand.NewPCG(2, 14))
	var want []byte
	for i := range 24 {
		order := slicesClone(names)
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		fset := token.NewFileSet()
		// The other package goes into the file set before or after.
		var regionPkg *types.Package
		loadRegion := func() {
			regionPkg = typeCheck(fset, regionDir, "example.com/region", []string{"region.go"}, importer.Default()).Pkg
		}
		if i%2 == 0 {
			loadRegion()
		}
		src := typeCheck(fset, dir, "example.com/multi", order, importerFunc(func(path string) (*types.Package, error) {
			if regionPkg == nil {
				loadRegion()
			}
			return regionPkg, nil
		}))
		forms, diags := build(src, nil)
		diags = append(diags, checkForms(forms)...)
		if len(diags) > 0 {
			t.Fatalf("diagnostics: %v", diags)
		}
		got, err := emitFile(src.Pkg, forms, 1+i%4)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = got
			if !bytes.Contains(want, []byte(`{"const":"low","title":"Low"},{"const":"high","title":"High"},{"const":"medium","title":"Medium"},{"const":"top","title":"Top"}`)) {
				t.Errorf("the split enum is not in file order:\n%s", want)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("parse order %v gave other bytes:\n%s\n--- want ---\n%s", order, got, want)
		}
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
