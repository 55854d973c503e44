//go:build unix

// Command conformance runs the official MCP conformance suite
// (npm @modelcontextprotocol/conformance) against the fixture server in
// internal/cmd/conformance/fixture and compares the outcome with a committed baseline.
// "make conformance" installs the suite (package.json and package-lock.json
// here, npm ci into .tools/conformance) and runs
//
//	go run ./internal/cmd/conformance
//
// It builds the fixture, starts it on a free loopback port, and runs, one
// after the other, each with a time bound:
//
//	0.1.16-active        conformance 0.1.16, the active server scenarios (legacy era)
//	0.2-active           0.2.0-alpha.12, the active server scenarios (legacy era, 2025-11-25 wire)
//	0.2-2026-07-28       0.2.0-alpha.12 --requirements 2026-07-28 (stateless era, input_required)
//
// Every check that ends FAILURE or WARNING must be listed in the baseline
// (baseline.txt), with its reason; a listed entry that no longer fails is
// stale and fails the run too, so the baseline only shrinks. The fixture is
// stopped on every exit path, including SIGINT and SIGTERM. Each suite's
// output and checks.json files are kept under -out.
//
// Flags:
//
//	-tools DIR      where npm ci installed the suite (default .tools/conformance)
//	-baseline FILE  the expected failures (default internal/cmd/conformance/baseline.txt)
//	-out DIR        suite logs and checks (default .tools/conformance/out; emptied first)
//	-timeout D      bound of one suite run (default 2m)
//	-suite NAME     run only this suite (repeatable; default all)
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// suite is one run of the conformance CLI.
type suite struct {
	name string
	pkg  string   // folder under node_modules (an npm alias in package.json)
	args []string // after "server --url URL"
}

var suites = []suite{
	{name: "0.1.16-active", pkg: "conformance-legacy"},
	{name: "0.2-active", pkg: "conformance-modern", args: []string{"--timeout", "20000"}},
	{name: "0.2-2026-07-28", pkg: "conformance-modern", args: []string{"--requirements", "2026-07-28", "--timeout", "20000"}},
}

func main() {
	log := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "conformance: "+format+"\n", args...) }
	os.Exit(run(os.Args[1:], os.Stdout, log))
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// run returns the exit code: 0 when every failure is baselined, 1 when
// something unexpected failed, 2 on bad usage.
func run(args []string, stdout io.Writer, logf func(string, ...any)) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	tools := fs.String("tools", filepath.Join(".tools", "conformance"), "`dir` where npm ci installed the suite")
	baselinePath := fs.String("baseline", filepath.Join("internal", "cmd", "conformance", "baseline.txt"), "expected failures `file`")
	outDir := fs.String("out", filepath.Join(".tools", "conformance", "out"), "`dir` for suite logs and checks (emptied first)")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound of one suite run")
	var only stringList
	fs.Var(&only, "suite", "run only this suite `name` (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	selected, err := selectSuites(only)
	if err != nil {
		logf("%v", err)
		return 2
	}
	base, err := readBaseline(*baselinePath)
	if err != nil {
		logf("%v", err)
		return 2
	}
	node := filepath.Join(*tools, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		logf("node not found at %s: run 'make conformance' (it installs the suite with npm ci)", node)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := os.RemoveAll(*outDir); err != nil {
		logf("%v", err)
		return 1
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		logf("%v", err)
		return 1
	}
	bin := filepath.Join(*outDir, "fixture")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./internal/cmd/conformance/fixture")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		logf("building the fixture: %v", err)
		return 1
	}
	fx, err := startFixture(ctx, bin, filepath.Join(*outDir, "fixture.log"))
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer fx.stop()
	logf("fixture %s", fx.url)

	var results []suiteResult
	for _, s := range selected {
		res := runSuite(ctx, s, node, *tools, fx.url, *outDir, *timeout)
		results = append(results, res)
		if ctx.Err() != nil {
			break
		}
	}
	if !fx.alive() {
		logf("the fixture exited during the run; see %s", fx.log)
		return 1
	}
	if report(stdout, results, base, selected) {
		return 1
	}
	return 0
}

func selectSuites(names []string) ([]suite, error) {
	if len(names) == 0 {
		return suites, nil
	}
	var out []suite
	for _, n := range names {
		found := false
		for _, s := range suites {
			if s.name == n {
				out = append(out, s)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown suite %q", n)
		}
	}
	return out, nil
}

// fixture is the running fixture server.
type fixture struct {
	cmd  *exec.Cmd
	url  string
	log  string
	done chan struct{}
}

// startFixture starts the server in its own process group and waits for its
// "listening on URL" line.
func startFixture(ctx context.Context, bin, logPath string) (*fixture, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting the fixture: %w", err)
	}
	fx := &fixture{cmd: cmd, log: logPath, done: make(chan struct{})}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		first := true
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			if first {
				lines <- sc.Text()
				first = false
			}
		}
		close(lines)
		_ = cmd.Wait() // only once the pipe is drained, as os/exec requires
		logFile.Close()
		close(fx.done)
	}()
	select {
	case line, ok := <-lines:
		if url, found := strings.CutPrefix(line, "listening on "); ok && found && strings.HasSuffix(url, "/mcp") {
			fx.url = url
			return fx, nil
		}
		fx.stop()
		return nil, fmt.Errorf("fixture did not announce its address (first line %q); see %s", line, logPath)
	case <-time.After(30 * time.Second):
		fx.stop()
		return nil, fmt.Errorf("fixture did not start within 30s; see %s", logPath)
	case <-ctx.Done():
		fx.stop()
		return nil, ctx.Err()
	}
}

func (f *fixture) alive() bool {
	select {
	case <-f.done:
		return false
	default:
		return true
	}
}

// stop ends the fixture's process group: SIGTERM, then SIGKILL after 5s.
func (f *fixture) stop() {
	if !f.alive() {
		return
	}
	pgid := f.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-f.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-f.done
	}
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// outcome is one check's result in a scenario.
type outcome struct {
	scenario string
	check
}

func (o outcome) key() string { return o.scenario + ":" + o.ID }

type suiteResult struct {
	suite    suite
	outcomes []outcome
	err      error // the run itself failed (timeout, crash, no summary)
	log      string
}

// runSuite runs one suite with a time bound and reads its checks.
func runSuite(ctx context.Context, s suite, node, tools, url, outDir string, timeout time.Duration) suiteResult {
	res := suiteResult{suite: s, log: filepath.Join(outDir, s.name+".log")}
	checksDir := filepath.Join(outDir, s.name)
	entry := filepath.Join(tools, "node_modules", s.pkg, "dist", "index.js")
	args := append([]string{entry, "server", "--url", url, "-o", checksDir}, s.args...)

	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	logFile, err := os.Create(res.log)
	if err != nil {
		res.err = err
		return res
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var summary strings.Builder
	cmd.Stdout = io.MultiWriter(logFile, &summary)
	cmd.Stderr = logFile
	start := time.Now()
	runErr := cmd.Run()
	switch {
	case parent.Err() != nil:
		res.err = fmt.Errorf("interrupted: %v", context.Cause(parent))
		return res
	case ctx.Err() != nil:
		res.err = fmt.Errorf("suite did not finish within %v", timeout)
		return res
	case !strings.Contains(summary.String(), "Total:"):
		// Exit status 1 is normal (baselined failures); a missing summary
		// means the suite did not run to the end.
		res.err = fmt.Errorf("suite ended without a summary after %v: %v", time.Since(start).Round(time.Millisecond), runErr)
		return res
	}
	res.outcomes, res.err = readChecks(checksDir)
	return res
}

// scenarioDir matches the folders the suite writes: server-<scenario>-<timestamp>.
var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

func readChecks(dir string) ([]outcome, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the suite's checks: %w", err)
	}
	var out []outcome
	for _, e := range entries {
		m := scenarioDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", m[1], err)
		}
		var checks []check
		if err := json.Unmarshal(raw, &checks); err != nil {
			return nil, fmt.Errorf("scenario %s: checks.json: %w", m[1], err)
		}
		for _, c := range checks {
			out = append(out, outcome{scenario: m[1], check: c})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no checks found in %s", dir)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].scenario < out[j].scenario })
	return out, nil
}

// failing reports whether a check needs a baseline entry: FAILURE, and
// WARNING too (a SHOULD the fixture misses is a finding as well).
func failing(status string) bool { return status == "FAILURE" || status == "WARNING" }

// report prints the counts and problems and tells whether the run failed.
func report(w io.Writer, results []suiteResult, base *baseline, selected []suite) (failed bool) {
	used := map[*baselineEntry]bool{}
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(w, "%-16s ERROR %v (log %s)\n", r.suite.name, r.err, r.log)
			failed = true
			continue
		}
		var passed, fails, warns, baselined int
		var unexpected []outcome
		for _, o := range r.outcomes {
			switch o.Status {
			case "SUCCESS":
				passed++
			case "FAILURE":
				fails++
			case "WARNING":
				warns++
			}
			if !failing(o.Status) {
				continue
			}
			if e := base.match(r.suite.name, o.scenario, o.ID); e != nil {
				used[e] = true
				baselined++
				continue
			}
			unexpected = append(unexpected, o)
		}
		fmt.Fprintf(w, "%-16s checks: passed=%d failed=%d warnings=%d (baselined=%d unexpected=%d)\n",
			r.suite.name, passed, fails, warns, baselined, len(unexpected))
		for _, o := range unexpected {
			msg := o.ErrorMessage
			if msg == "" {
				msg = o.Description
			}
			fmt.Fprintf(w, "  UNEXPECTED %s %s: %s\n", o.Status, o.key(), oneLine(msg))
			failed = true
		}
	}
	ran := map[string]bool{}
	for _, r := range results {
		if r.err == nil {
			ran[r.suite.name] = true
		}
	}
	for _, e := range base.entries {
		if ran[e.suite] && !used[e] {
			fmt.Fprintf(w, "  STALE baseline entry (it passes now: remove it) %s:%d: %s %s\n", base.path, e.line, e.suite, e.target)
			failed = true
		}
	}
	if len(results) < len(selected) {
		fmt.Fprintln(w, "interrupted")
		failed = true
	}
	if failed {
		fmt.Fprintln(w, "conformance: FAIL (logs and checks in the -out folder)")
	} else {
		fmt.Fprintln(w, "conformance: ok (every failure is baselined)")
	}
	return failed
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// baseline is the committed list of expected failures. Each line is
//
//	<suite> <scenario>[:<check-id>] <reason…>
//
// with '#' comments and blank lines ignored. A scenario without a check id
// covers all of its checks. The reason is required.
type baseline struct {
	path    string
	entries []*baselineEntry
}

type baselineEntry struct {
	suite, target, reason string
	line                  int
}

func readBaseline(path string) (*baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseBaseline(path, f)
}

func parseBaseline(path string, r io.Reader) (*baseline, error) {
	b := &baseline{path: path}
	known := map[string]bool{}
	for _, s := range suites {
		known[s.name] = true
	}
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	var errs []error
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case len(fields) < 3:
			errs = append(errs, fmt.Errorf("%s:%d: want <suite> <scenario>[:<check>] <reason>", path, n))
			continue
		case !known[fields[0]]:
			errs = append(errs, fmt.Errorf("%s:%d: unknown suite %q", path, n, fields[0]))
			continue
		}
		key := fields[0] + " " + fields[1]
		if first, dup := seen[key]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: %s is listed already on line %d", path, n, key, first))
			continue
		}
		seen[key] = n
		b.entries = append(b.entries, &baselineEntry{suite: fields[0], target: fields[1], reason: strings.Join(fields[2:], " "), line: n})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// match finds the entry covering a failing check: scenario:check first,
// then the whole scenario.
func (b *baseline) match(suite, scenario, checkID string) *baselineEntry {
	var whole *baselineEntry
	for _, e := range b.entries {
		if e.suite != suite {
			continue
		}
		switch e.target {
		case scenario + ":" + checkID:
			return e
		case scenario:
			whole = e
		}
	}
	return whole
}
