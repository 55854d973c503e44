package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/go-elicit/elicit/gen"
)

// Generator wall time, in process, for packages of 10, 100 and 1,000 forms
// shaped like the generator engineer's BenchmarkGenerate200 in gen (issue
// 3's PeerForm: five fields, enum, multi-select, validate tag), against the
// floor every generator built on go/packages pays: packages.Load of the same
// package in gen.LoadMode.
//
//	fresh   gen.Generate with no output yet: load, model, check, emit, write
//	again   gen.Generate with its output in place and unchanged (every later go generate)
//	load    packages.Load of the package without the output (the floor of fresh)
//	loadOut packages.Load of the package with the output (the floor of again:
//	        the same files; the generator stubs its old output, so it may beat it)

// genResult is the median wall time of each step for one package size.
type genResult struct {
	forms                       int
	fresh, again, load, loadOut time.Duration
}

// writeForms writes a package of n forms into dir.
func writeForms(dir string, n int) error {
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "many.go"), []byte(src.String()), 0o644)
}

// measureGenerate times each step reps times for every size; work is a
// scratch directory inside the module (go/packages resolves the module
// from it).
func measureGenerate(work string, sizes []int, reps int, raw func(string)) ([]genResult, error) {
	var out []genResult
	for _, n := range sizes {
		dir := filepath.Join(work, fmt.Sprintf("many%d", n))
		_ = os.RemoveAll(dir)
		if err := writeForms(dir, n); err != nil {
			return nil, err
		}
		output := filepath.Join(dir, "many_elicit.go")
		cfg := gen.Config{Dir: dir, Patterns: []string{"."}}
		loadPkg := func() error {
			pkgs, err := packages.Load(&packages.Config{Mode: gen.LoadMode, Dir: dir}, ".")
			if err == nil && packages.PrintErrors(pkgs) > 0 {
				err = fmt.Errorf("packages.Load of %d forms failed", n)
			}
			return err
		}
		var fresh, again, load, loadOut []float64
		for range reps {
			_ = os.Remove(output)
			t, err := timed(loadPkg)
			if err != nil {
				return nil, err
			}
			load = append(load, t)
			if t, err = timed(func() error { _, err := gen.Generate(cfg); return err }); err != nil {
				return nil, fmt.Errorf("elicitgen on %d forms: %w", n, err)
			}
			fresh = append(fresh, t)
			t, err = timed(func() error {
				res, err := gen.Generate(cfg)
				if err == nil && len(res.Written) > 0 {
					err = fmt.Errorf("elicitgen rewrote unchanged output for %d forms", n)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			again = append(again, t)
			if t, err = timed(loadPkg); err != nil {
				return nil, err
			}
			loadOut = append(loadOut, t)
		}
		for i := range reps {
			raw(fmt.Sprintf("BenchmarkGenerate/forms=%d/step=fresh \t1\t%.0f ns/op", n, fresh[i]))
			raw(fmt.Sprintf("BenchmarkGenerate/forms=%d/step=again \t1\t%.0f ns/op", n, again[i]))
			raw(fmt.Sprintf("BenchmarkGenerate/forms=%d/step=load \t1\t%.0f ns/op", n, load[i]))
			raw(fmt.Sprintf("BenchmarkGenerate/forms=%d/step=loadOut \t1\t%.0f ns/op", n, loadOut[i]))
		}
		out = append(out, genResult{forms: n, fresh: time.Duration(median(fresh)), again: time.Duration(median(again)), load: time.Duration(median(load)), loadOut: time.Duration(median(loadOut))})
		_ = os.RemoveAll(dir)
	}
	return out, nil
}

func timed(f func() error) (float64, error) {
	t0 := time.Now()
	err := f()
	return float64(time.Since(t0).Nanoseconds()), err
}
