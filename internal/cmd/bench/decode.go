package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Decoding and validating an answer is measured by the benchmarks the
// generator's engineer wrote in gen/internal/benchform (a five-field form:
// string with a validate tag, bounded integer, enum, multi-select, bool),
// run here with go test so that they stay the one definition of the
// comparison:
//
//	Generated            content bytes -> validated struct (elicitgen's decoder)
//	GoSDKUser            content map -> json.Marshal -> json.Unmarshal -> validator
//	GoSDKUserFromBytes   the same, from the content bytes (the SDK's own decode too)
//	JSONSchema           jsonschema-go validation in front of GoSDKUser
const decodePackage = "./gen/internal/benchform"

// decodeResult is one benchmark's median over its -count runs.
type decodeResult struct {
	name    string
	ns      float64
	bytes   float64
	allocs  float64
	samples int
}

// goTool is the go command that runs this program.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// moduleRoot is the directory of the module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the elicit module: run from the repository")
	}
	return filepath.Dir(gomod), nil
}

func measureDecode(root, benchtime string, count int, raw func(string)) (map[string]*decodeResult, error) {
	cmd := exec.Command(goTool(), "test", "-run", "^$", "-bench", "^BenchmarkDecode", "-benchmem",
		"-benchtime", benchtime, "-count", strconv.Itoa(count), decodePackage)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s: %w\n%s%s", decodePackage, err, out, stderr.Bytes())
	}
	samples := map[string][][3]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		raw(line)
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[0], "BenchmarkDecode") {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkDecode")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i] // the GOMAXPROCS suffix
		}
		var v [3]float64
		for i := 2; i+1 < len(f); i += 2 {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				v[0] = x
			case "B/op":
				v[1] = x
			case "allocs/op":
				v[2] = x
			}
		}
		samples[name] = append(samples[name], v)
	}
	res := map[string]*decodeResult{}
	for name, ss := range samples {
		col := func(j int) float64 {
			v := make([]float64, len(ss))
			for i, s := range ss {
				v[i] = s[j]
			}
			return median(v)
		}
		res[name] = &decodeResult{name: name, ns: col(0), bytes: col(1), allocs: col(2), samples: len(ss)}
	}
	for _, want := range []string{"Generated", "GoSDKUser", "GoSDKUserFromBytes", "JSONSchema"} {
		if res[want] == nil {
			return nil, fmt.Errorf("go test -bench %s printed no BenchmarkDecode%s", decodePackage, want)
		}
	}
	return res, nil
}
