package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"go/types"
	"path"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/dave/jennifer/jen"
)

// parallel runs fn(0) … fn(n-1) on up to workers goroutines and returns
// when all are done; with one worker (or one item) it runs them in order on
// the caller's goroutine.
func parallel(n, workers int, fn func(i int)) {
	workers = min(workers, n)
	if workers < 2 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// part is one rendered jennifer file: its import specs by path, and the
// declarations after them, formatted.
type part struct {
	imports map[string]string // path -> the spec as rendered: `"p"` or `name "p"`
	decls   []byte
	err     error
}

// renderParts renders head (a full file: header comment, package clause)
// and each file of forms' declarations in parallel, and joins them with
// the union of their imports. ok is false, with no error, when the files
// do not agree on the name of every import; the caller then renders the
// whole file as one.
func renderParts(pkg *types.Package, head *jen.File, files []*jen.File, workers int) (out []byte, ok bool, err error) {
	parts := make([]part, len(files)+1)
	parallel(len(parts), workers, func(i int) {
		f := head
		if i > 0 {
			f = files[i-1]
		}
		parts[i] = renderPart(pkg, f, i > 0)
	})
	for _, p := range parts {
		if p.err != nil {
			return nil, false, p.err // the first: the others are likely the same mistake
		}
	}
	specs := map[string]string{} // path -> spec
	names := map[string]string{} // name -> path
	for _, p := range parts {
		for ipath, spec := range p.imports {
			if old, seen := specs[ipath]; seen {
				if old != spec {
					return nil, false, nil
				}
				continue
			}
			name := importName(ipath, spec)
			if other, taken := names[name]; taken && other != ipath {
				return nil, false, nil
			}
			specs[ipath], names[name] = spec, ipath
		}
	}
	// The head is formatted as a full file with every import, as the whole
	// file would be; the forms' declarations follow it.
	var src bytes.Buffer
	fmt.Fprintf(&src, "// %s\n\npackage %s\n\n", header, pkg.Name())
	paths := make([]string, 0, len(specs))
	for p := range specs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	switch len(paths) {
	case 0:
	case 1:
		fmt.Fprintf(&src, "import %s\n\n", specs[paths[0]])
	default:
		src.WriteString("import (\n")
		for _, p := range paths {
			src.WriteString(specs[p] + "\n")
		}
		src.WriteString(")\n\n")
	}
	src.Write(parts[0].decls)
	headOut, err := format.Source(src.Bytes())
	if err != nil {
		return nil, false, formatError(err, src.Bytes())
	}
	size := len(headOut)
	for _, p := range parts[1:] {
		size += len(p.decls) + 2
	}
	out = make([]byte, 0, size)
	out = append(out, bytes.TrimSpace(headOut)...)
	for _, p := range parts[1:] {
		out = append(out, "\n\n"...)
		out = append(out, p.decls...)
	}
	return append(out, '\n'), true, nil
}

// renderPart renders f unformatted and cuts it after its imports. The
// declarations of a form file are formatted as a declaration list; the
// head's are left to renderParts.
func renderPart(pkg *types.Package, f *jen.File, formatDecls bool) part {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return part{err: fmt.Errorf("internal error: rendering generated code: %w", err)}
	}
	imports, decls, err := cutImports(buf.Bytes(), pkg.Name())
	if err != nil {
		return part{err: err}
	}
	if !formatDecls {
		return part{imports: imports, decls: decls}
	}
	out, err := format.Source(decls)
	if err != nil {
		return part{err: formatError(err, decls)}
	}
	return part{imports: imports, decls: bytes.TrimSpace(out)}
}

// cutImports splits a file jennifer rendered without formatting (see
// (*jen.File).Render) into its import specs and what follows them.
func cutImports(src []byte, pkgName string) (map[string]string, []byte, error) {
	clause := []byte("package " + pkgName + "\n\n")
	i := bytes.Index(src, clause)
	if i < 0 {
		return nil, nil, fmt.Errorf("internal error: rendered code lacks %q", bytes.TrimSpace(clause))
	}
	rest := src[i+len(clause):]
	imports := map[string]string{}
	var specs [][]byte
	switch {
	case bytes.HasPrefix(rest, []byte("import (\n")):
		end := bytes.Index(rest, []byte("\n)\n\n"))
		if end < 0 {
			return nil, nil, fmt.Errorf("internal error: rendered code has an unterminated import block")
		}
		specs = bytes.Split(rest[len("import (\n"):end], []byte("\n"))
		rest = rest[end+len("\n)\n\n"):]
	case bytes.HasPrefix(rest, []byte("import ")):
		end := bytes.Index(rest, []byte("\n\n"))
		if end < 0 {
			return nil, nil, fmt.Errorf("internal error: rendered code has an unterminated import")
		}
		specs = [][]byte{rest[len("import "):end]}
		rest = rest[end+len("\n\n"):]
	}
	for _, s := range specs {
		q := bytes.IndexByte(s, '"')
		p, err := strconv.Unquote(string(s[max(q, 0):]))
		if q < 0 || err != nil {
			return nil, nil, fmt.Errorf("internal error: rendered code has the import spec %q", s)
		}
		imports[p] = string(s)
	}
	return imports, rest, nil
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// importName is the name an import spec binds: its alias, or for a spec
// without one a cautious guess of the package name (the last element of the
// path that is not a major version). A wrong guess can only make two
// imports look alike, which sends emitForms to the one-file path.
func importName(ipath, spec string) string {
	if spec[0] != '"' {
		name, _, _ := bytes.Cut([]byte(spec), []byte(" "))
		return string(name)
	}
	dir, base := path.Split(ipath)
	if majorVersion.MatchString(base) && dir != "" {
		base = path.Base(dir)
	}
	return base
}
