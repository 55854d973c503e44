package internal_test

// The docs name identifiers in two ways: Go doc links ([Elicit],
// [runtime.ErrNoCall]) in doc comments, and backticked names (`ElicitURL`,
// `Options.Logger`) in comments and in the markdown files. A renamed or
// removed identifier leaves both behind as silently stale prose, so this
// test resolves every one of them against the exported API of the module's
// packages (and of the standard library for names such as `http.Server`),
// and fails naming the file and line of each that does not resolve.

import (
	"go/ast"
	"go/build"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// notIdentifiers are backticked words that look like Go identifiers but are
// not meant as one: protocol and HTTP vocabulary, and names that belong to
// other programs. Each is a decision, so it is a line here.
var notIdentifiers = map[string]string{
	"Accept":               "the HTTP header (elicittest.Accept resolves on its own)",
	"Origin":               "the HTTP header",
	"Host":                 "the HTTP header",
	"Last-Event-ID":        "the HTTP header",
	"Retry-After":          "the HTTP header",
	"Content-Type":         "the HTTP header",
	"Mcp-Session-Id":       "the HTTP header",
	"MCP-Protocol-Version": "the HTTP header",
	"Mcp-Method":           "the HTTP header",
	"Mcp-Name":             "the HTTP header",
	"In":                   "the type parameter of AddTool's handler",
	"Reflector":            "invopop/jsonschema's, named as such",
	"RequestId":            "the MCP schema's type, named as such",
}

// notIdentifierWords are CamelCase words in comments that are names of
// products or formats, not identifiers.
var notIdentifierWords = map[string]bool{
	"TypeScript": true, "JavaScript": true, "GitHub": true, "OpenTelemetry": true,
	"JetStream": true, "NodeJS": true, "PowerShell": true, "WebSocket": true,
	"OAuth": true, "FastMCP": true, "ChatGPT": true, "OpenAI": true,
	"KiB": true, "MiB": true, "GiB": true,
	"RequestId": true, // the MCP schema's type, named as such
}

// stdPackages maps the package names the docs use unqualified by an import
// (markdown has no imports) to their standard-library import paths.
var stdPackages = map[string]string{
	"bytes": "bytes", "context": "context", "errors": "errors", "fmt": "fmt",
	"http": "net/http", "httptest": "net/http/httptest", "io": "io",
	"json": "encoding/json", "os": "os", "slog": "log/slog", "strings": "strings",
	"sync": "sync", "testing": "testing", "time": "time", "url": "net/url",
	"exec": "os/exec", "signal": "os/signal", "reflect": "reflect",
	"packages": "golang.org/x/tools/go/packages", "analysis": "golang.org/x/tools/go/analysis",
}

// apiPackage is the exported API of one package: its top-level names and,
// per type, its methods and fields ("Type.Name").
type apiPackage struct {
	importPath string
	name       string
	dir        string
	symbols    map[string]bool
	unexported map[string]bool      // top-level unexported names
	tests      map[string]bool      // Test, Benchmark, Example and Fuzz functions of its _test.go files
	files      map[string]*ast.File // by file name, comments included
}

func (p *apiPackage) has(sym string) bool { return p != nil && (p.symbols[sym] || p.tests[sym]) }

// hasMember reports whether some type of p has a field or method name.
func (p *apiPackage) hasMember(name string) bool {
	for s := range p.symbols {
		if strings.HasSuffix(s, "."+name) {
			return true
		}
	}
	return false
}

// apiIndex holds the module's packages and, loaded on demand, the standard
// library's.
type apiIndex struct {
	fset   *token.FileSet
	byPath map[string]*apiPackage
	byName map[string][]*apiPackage
	mu     sync.Mutex
	std    map[string]*apiPackage
	root   string
}

// loadAPI parses every package under root (test files, testdata and tool
// folders left out).
func loadAPI(t *testing.T, root string) *apiIndex {
	t.Helper()
	ix := &apiIndex{fset: token.NewFileSet(), byPath: map[string]*apiPackage{}, byName: map[string][]*apiPackage{}, std: map[string]*apiPackage{}, root: root}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if base := d.Name(); p != root && (base == "testdata" || base == "node_modules" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		importPath := module
		if rel != "." {
			importPath = module + "/" + filepath.ToSlash(rel)
		}
		if pkg := parseAPI(t, ix.fset, p, importPath); pkg != nil {
			ix.byPath[importPath] = pkg
			ix.byName[pkg.name] = append(ix.byName[pkg.name], pkg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// parseAPI reads the exported API of the package in dir, or nil when dir
// holds no Go package.
func parseAPI(t *testing.T, fset *token.FileSet, dir, importPath string) *apiPackage {
	t.Helper()
	var testFuncs []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	files := map[string]*ast.File{}
	var list []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") {
			continue
		}
		if strings.HasSuffix(n, "_test.go") {
			if f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution); err == nil {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
						testFuncs = append(testFuncs, fd.Name.Name)
					}
				}
			}
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatalf("%v", err)
		}
		if f.Name.Name == "documentation" {
			continue
		}
		files[n] = f
		list = append(list, f)
	}
	if len(list) == 0 {
		return nil
	}
	p := &apiPackage{importPath: importPath, name: list[0].Name.Name, dir: dir, symbols: map[string]bool{}, unexported: map[string]bool{}, files: files}
	p.tests = map[string]bool{}
	for _, n := range testFuncs {
		p.tests[n] = true
	}
	for _, f := range list {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.symbols[d.Name.Name] = true
					if !d.Name.IsExported() {
						p.unexported[d.Name.Name] = true
					}
					continue
				}
				if recv := receiverName(d.Recv.List[0].Type); recv != "" {
					p.symbols[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.symbols[n.Name] = true
							if !n.IsExported() {
								p.unexported[n.Name] = true
							}
						}
					case *ast.TypeSpec:
						p.symbols[s.Name.Name] = true
						if !s.Name.IsExported() {
							p.unexported[s.Name.Name] = true
						}
						addMembers(p.symbols, s.Name.Name, s.Type)
					}
				}
			}
		}
	}
	return p
}

// receiverName is the type name of a method's receiver (T, *T, T[K], *T[K]).
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// addMembers records a struct's fields (embedded ones by type name) and an
// interface's methods as "Type.Name".
func addMembers(symbols map[string]bool, typeName string, e ast.Expr) {
	var fields *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			symbols[typeName+"."+n.Name] = true
		}
		if len(f.Names) == 0 {
			if n := receiverName(f.Type); n != "" {
				symbols[typeName+"."+n] = true
			} else if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				symbols[typeName+"."+sel.Sel.Name] = true
			}
		}
	}
}

// stdPackage loads a standard-library (or module-cache) package's API by
// import path, nil when it cannot be found.
func (ix *apiIndex) stdPackage(t *testing.T, importPath string) *apiPackage {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if p, ok := ix.std[importPath]; ok {
		return p
	}
	var p *apiPackage
	if bp, err := build.Import(importPath, ix.root, build.FindOnly); err == nil {
		p = parseAPI(t, token.NewFileSet(), bp.Dir, importPath)
	}
	ix.std[importPath] = p
	return p
}

// resolve reports whether ref ("Name", "Type.Member", "pkg.Name",
// "pkg.Type.Member") names an exported identifier, seen from package from
// (nil for markdown) whose file imports imports (package name → path).
func (ix *apiIndex) resolve(t *testing.T, ref string, from *apiPackage, imports map[string]string) bool {
	parts := strings.Split(ref, ".")
	// Qualified by a package: the rest must be in that package.
	if len(parts) > 1 {
		rest := strings.Join(parts[1:], ".")
		if ip, ok := imports[parts[0]]; ok {
			if p := ix.byPath[ip]; p != nil {
				return p.has(rest)
			}
			if ix.stdPackage(t, ip).has(rest) {
				return true
			}
		}
		if pkgs := ix.byName[parts[0]]; len(pkgs) > 0 && parts[0] != "main" {
			return slices.ContainsFunc(pkgs, func(p *apiPackage) bool { return p.has(rest) })
		}
		if ip, ok := stdPackages[parts[0]]; ok {
			return ix.stdPackage(t, ip).has(rest)
		}
	}
	// Unqualified (or Type.Member): the package itself first, then any of
	// the module's packages.
	if from.has(ref) {
		return true
	}
	for _, p := range ix.byPath {
		if p.has(ref) {
			return true
		}
	}
	// A field or method named alone (`ElicitTimeout` for
	// Options.ElicitTimeout) still names something that exists, in the
	// module or in a package the file imports (ReadTimeout of http.Server).
	if len(parts) <= 2 {
		for _, p := range ix.byPath {
			if p.hasMember(ref) {
				return true
			}
		}
		for _, ip := range imports {
			if p := ix.byPath[ip]; p == nil {
				if p := ix.stdPackage(t, ip); p.has(ref) || p != nil && p.hasMember(ref) {
					return true
				}
			}
		}
	}
	return false
}

// camelWord matches a word of prose that can only be an identifier: an
// exported name of two or more humps (AskAndDecode, ErrNoCall), optionally
// qualified (Session.Elicit).
var camelWord = regexp.MustCompile("(?:^|[^\\w.`\\[/-])((?:[A-Za-z][A-Za-z0-9]*\\.)?[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)(?:$|[^\\w`\\]/-])")

// camelRefs returns the CamelCase words of a comment line outside backticks,
// brackets and URLs.
func camelRefs(line string) []string {
	if strings.Contains(line, "://") {
		return nil
	}
	line = backticked.ReplaceAllString(line, "")
	var refs []string
	for _, m := range camelWord.FindAllStringSubmatch(line, -1) {
		w := m[1]
		last := w[strings.LastIndex(w, ".")+1:]
		if notIdentifierWords[last] || strings.ToUpper(last) == last {
			continue
		}
		if i := strings.Index(w, "."); i >= 0 && !ast.IsExported(w[:i]) && !isModulePackageName(w[:i]) {
			if _, std := stdPackages[w[:i]]; !std {
				continue
			}
		}
		refs = append(refs, w)
	}
	return refs
}

// exportedDocs returns the doc comments of a file's exported declarations
// and its package doc: what godoc shows.
func exportedDocs(f *ast.File) []*ast.CommentGroup {
	docs := []*ast.CommentGroup{f.Doc}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(receiverName(d.Recv.List[0].Type))) {
				docs = append(docs, d.Doc)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						docs = append(docs, d.Doc, s.Doc)
					}
				case *ast.ValueSpec:
					if slices.ContainsFunc(s.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
						docs = append(docs, d.Doc, s.Doc)
					}
				}
			}
		}
	}
	return slices.DeleteFunc(docs, func(c *ast.CommentGroup) bool { return c == nil })
}

// unexportedIn returns the words of an exported declaration's doc that are
// unexported identifiers of its own package with two or more humps
// (argsDecoder): a reader of the godoc page cannot see them.
func unexportedIn(text string, p *apiPackage) []string {
	var words []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if p.unexported[w] && w != strings.ToLower(w) {
			words = append(words, w)
		}
	}
	return words
}

var (
	backticked = regexp.MustCompile("`([^`\n]+)`")
	// goRef is what a backticked text must look like to be read as a Go
	// reference: a dotted name, optionally with type arguments, a call, a
	// composite literal, a pointer or address operator.
	goRef = regexp.MustCompile(`^[*&]?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:\[[^\]]*\])?(?:\(.*\)|\{.*\})?(?:\[\])?$`)
)

// refsIn returns the Go references among the backticked texts of s: the
// ones with an exported, mixed-case name in them (HTTP, GET, ctx and go
// generate are not references).
func refsIn(s string) []string {
	var refs []string
	for _, m := range backticked.FindAllStringSubmatch(s, -1) {
		text := strings.TrimSpace(m[1])
		if _, ok := notIdentifiers[text]; ok {
			continue
		}
		g := goRef.FindStringSubmatch(text)
		if g == nil {
			continue
		}
		ref := g[1]
		parts := strings.Split(ref, ".")
		last := parts[len(parts)-1]
		if !ast.IsExported(last) || strings.ToUpper(last) == last {
			continue // not exported, or an acronym such as HTTP or GET
		}
		if len(parts) > 1 && !ast.IsExported(parts[0]) {
			if _, std := stdPackages[parts[0]]; !std && !isModulePackageName(parts[0]) {
				continue // a field path such as params.task or a file name
			}
		}
		refs = append(refs, ref)
	}
	return refs
}

// modulePackageNames are the names of the module's packages, filled in by
// the test before refsIn runs.
var modulePackageNames = map[string]bool{}

func isModulePackageName(n string) bool { return modulePackageNames[n] }

// docLinks returns the doc links of a doc comment's text, each as written
// between the brackets, with the import path it names ("" for the comment's
// own package).
func docLinks(text string, imports map[string]string) (links []*comment.DocLink) {
	p := comment.Parser{
		LookupPackage: func(name string) (string, bool) {
			if ip, ok := imports[name]; ok {
				return ip, true
			}
			if ip, ok := stdPackages[name]; ok {
				return ip, true
			}
			return "", false
		},
		LookupSym: func(recv, name string) bool { return true }, // every [Name] is a link; resolve checks it
	}
	var walk func(text []comment.Text)
	walk = func(text []comment.Text) {
		for _, t := range text {
			switch x := t.(type) {
			case *comment.DocLink:
				links = append(links, x)
				walk(x.Text)
			case *comment.Link:
				walk(x.Text)
			case comment.Italic, comment.Plain:
			}
		}
	}
	for _, b := range p.Parse(text).Content {
		switch x := b.(type) {
		case *comment.Paragraph:
			walk(x.Text)
		case *comment.Heading:
			walk(x.Text)
		case *comment.List:
			for _, item := range x.Items {
				for _, ib := range item.Content {
					if para, ok := ib.(*comment.Paragraph); ok {
						walk(para.Text)
					}
				}
			}
		}
	}
	return links
}

// fileImports maps each import's package name (its last element, or its
// alias) to its path.
func fileImports(f *ast.File, ix *apiIndex) map[string]string {
	m := map[string]string{}
	for _, s := range f.Imports {
		ip, _ := strconv.Unquote(s.Path.Value)
		name := path.Base(ip)
		if p := ix.byPath[ip]; p != nil {
			name = p.name
		} else if strings.HasPrefix(name, "v") && strings.Contains(ip, "/") {
			if _, err := strconv.Atoi(name[1:]); err == nil {
				name = path.Base(path.Dir(ip)) // .../validator/v10
			}
		}
		if s.Name != nil {
			name = s.Name.Name
		}
		m[name] = ip
	}
	return m
}

// shipped reports whether importPath is a package adopters import or run:
// its comments are read as the manual.
func shipped(importPath string) bool {
	r, _ := rel(importPath)
	return (under(r, "runtime") || under(r, "gen") || under(r, "cmd")) && !hasElement(r, "internal")
}

func TestDocReferencesResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	ix := loadAPI(t, root)
	for name := range ix.byName {
		if name != "main" {
			modulePackageNames[name] = true
		}
	}
	var bad []string
	report := func(pos, ref, how string) {
		bad = append(bad, pos+": "+how+" "+ref+" resolves to no exported identifier")
	}

	for _, p := range ix.byPath {
		// A doc.go has no imports of its own: its prose may name what any
		// file of the package imports.
		imports := map[string]string{}
		for _, f := range p.files {
			maps.Copy(imports, fileImports(f, ix))
		}
		for _, f := range p.files {
			if shipped(p.importPath) {
				for _, d := range exportedDocs(f) {
					for _, w := range unexportedIn(d.Text(), p) {
						r, _ := filepath.Rel(root, ix.fset.Position(d.Pos()).Filename)
						bad = append(bad, r+":"+strconv.Itoa(ix.fset.Position(d.Pos()).Line)+": exported doc names the unexported "+w+", which its reader cannot see")
					}
				}
			}
			for _, cg := range f.Comments {
				text := cg.Text()
				pos := ix.fset.Position(cg.Pos())
				relPos := func(line int) string {
					r, _ := filepath.Rel(root, pos.Filename)
					return r + ":" + strconv.Itoa(line)
				}
				for i, line := range strings.Split(text, "\n") {
					for _, ref := range refsIn(line) {
						if !ix.resolve(t, ref, p, imports) {
							report(relPos(pos.Line+i), "`"+ref+"`", "backticked")
						}
					}
				}
				for i, line := range strings.Split(text, "\n") {
					if !shipped(p.importPath) {
						break // programs and examples: their prose names other libraries freely
					}
					if strings.HasPrefix(line, "\t") {
						continue // a code block: a snippet may declare its own names
					}
					for _, ref := range camelRefs(line) {
						if !ix.resolve(t, ref, p, imports) {
							report(relPos(pos.Line+i), ref, "word")
						}
					}
				}
				for _, l := range docLinks(text, imports) {
					if l.Name == "" {
						continue // [] of a type such as []byte
					}
					ref := l.Name
					if l.Recv != "" {
						ref = l.Recv + "." + l.Name
					}
					ok := false
					switch {
					case l.ImportPath == "":
						ok = p.has(ref)
					case ix.byPath[l.ImportPath] != nil:
						ok = ix.byPath[l.ImportPath].has(ref)
					default:
						ok = ix.stdPackage(t, l.ImportPath).has(ref)
					}
					if !ok {
						full := ref
						if l.ImportPath != "" {
							full = path.Base(l.ImportPath) + "." + ref
						}
						report(relPos(pos.Line), "["+full+"]", "doc link")
					}
				}
			}
		}
	}

	var markdown []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if r, _ := filepath.Rel(root, p); !d.IsDir() && strings.HasSuffix(p, ".md") && (r == "README.md" || strings.HasPrefix(r, "docs"+string(filepath.Separator))) {
			markdown = append(markdown, p)
		}
		return nil
	})
	for _, md := range markdown {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := filepath.Rel(root, md)
		inFence := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue // code blocks are compiled elsewhere (examples) or are shell
			}
			for _, ref := range refsIn(line) {
				if !ix.resolve(t, ref, nil, nil) {
					report(r+":"+strconv.Itoa(i+1), "`"+ref+"`", "backticked")
				}
			}
		}
	}
	slices.Sort(bad)
	bad = slices.Compact(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestReadmeStaysOnTheNewcomersPath holds README.md to 300 lines: what it
// is, install, form, handler, test, adapters, tools. Whatever else belongs
// in docs/ or in a package doc, linked from the README.
func TestReadmeStaysOnTheNewcomersPath(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the detail to docs/ or a package doc and link it", n)
	}
}
