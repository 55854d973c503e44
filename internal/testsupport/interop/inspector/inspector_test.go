package inspector

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/testsupport/interop/nodetest"
	"github.com/go-elicit/elicit/internal/testsupport/scenario"
)

const (
	script = "inspector.mjs"
	// runTimeout bounds one node run: every flow on one transport and era.
	runTimeout = 6 * time.Minute
)

const (
	askCommand = "Which ze command should run?"
	askPeer    = "Describe the new BGP peer"
	askConfirm = "Add peer 192.0.2.7 AS 65001?"
	peerList   = "peer1 127.0.0.1 AS 1\npeer2 192.0.2.2 AS 64512"
)

// report is one line of inspector.mjs output: what the user saw.
type report struct {
	Flow     string   `json:"flow"`
	Protocol string   `json:"protocol"`
	Asked    []string `json:"asked"`
	IsError  bool     `json:"isError"`
	Text     *string  `json:"text"`
	Failure  *string  `json:"failure"`
}

// want is how a flow must end.
type want struct {
	isError bool
	text    string
	asked   []string
}

var flows = map[string]want{
	// ze_execute without a command: Execute Tool must be enabled with the
	// Command box empty, since AskMissing asks for it.
	"execute-accept":  {text: peerList, asked: []string{askCommand}},
	"execute-decline": {isError: true, text: "the user declined to answer", asked: []string{askCommand}},
	"execute-cancel":  {isError: true, text: "the user canceled the request", asked: []string{askCommand}},
	"add-peer-reask": {
		text:  "added peer 192.0.2.7 AS 65001 families ipv4-unicast active",
		asked: []string{askPeer, askPeer + ` — "address" must be an IP address; please correct it`, askConfirm},
	},
	"add-peer-confirm-declined": {isError: true, text: "the user declined to answer", asked: []string{askPeer, askConfirm}},
}

// configs are the transports and eras; era is the Inspector's
// --protocol-era, protocol what it must negotiate.
var configs = []struct {
	name, transport, era, protocol string
}{
	{"http-2025-11-25", "http", "legacy", "2025-11-25"},
	{"http-2026-07-28", "http", "modern", "2026-07-28"},
	{"stdio-2025-11-25", "stdio", "legacy", "2025-11-25"},
	{"stdio-2026-07-28", "stdio", "modern", "2026-07-28"},
}

func TestInspectorWebUI(t *testing.T) {
	node, chromium := setUp(t)
	t.Run("flows match the script", func(t *testing.T) {
		out, err := runNode(t, node, script, "--list")
		if err != nil {
			t.Fatalf("%s --list: %v", script, err)
		}
		listed := strings.Fields(string(out))
		slices.Sort(listed)
		if known := slices.Sorted(maps.Keys(flows)); !slices.Equal(listed, known) {
			t.Fatalf("%s --list lists %q, the test expects %q", script, listed, known)
		}
	})

	bin := filepath.Join(t.TempDir(), "ze")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/go-elicit/elicit/examples/ze").CombinedOutput(); err != nil {
		t.Fatalf("building examples/ze: %v\n%s", err, out)
	}
	var summary []string
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			target := []string{"--stdio", bin}
			if c.transport == "http" {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				url, stop, err := scenario.StartServer(ctx, bin, nil)
				cancel()
				if err != nil {
					t.Fatalf("starting ze: %v", err)
				}
				t.Cleanup(stop)
				target = []string{"--url", url}
			}
			shots, err := os.MkdirTemp("", "elicit-inspector-shots-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("screenshots of every step: %s", shots)
					return
				}
				os.RemoveAll(shots)
			})
			args := append([]string{script, "--chromium", chromium, "--port", freePorts(t), "--shots", shots, "--era", c.era}, target...)
			out, runErr := runNode(t, node, args...)
			seen := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var r report
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("%s: a line is not a report (%v): %s", script, err, sc.Bytes())
				}
				if r.Flow == "" {
					t.Fatalf("%s failed: %s", script, str(r.Failure))
				}
				seen[r.Flow] = true
				result := "pass"
				if msg := check(r, flows[r.Flow], c.protocol); msg != "" {
					t.Errorf("%s: %s", r.Flow, msg)
					result = "FAIL: " + msg
				}
				summary = append(summary, fmt.Sprintf("%-17s %-26s %s", c.name, r.Flow, result))
			}
			if runErr != nil {
				t.Errorf("%s: %v", script, runErr)
			}
			for name := range flows {
				if !seen[name] {
					t.Errorf("%s reported nothing for flow %s", script, name)
				}
			}
		})
	}
	t.Logf("the Inspector's web UI through examples/ze:\n%s", strings.Join(summary, "\n"))
}

// check says how r differs from w, or "".
func check(r report, w want, protocol string) string {
	var problems []string
	if r.Failure != nil {
		problems = append(problems, "the UI flow failed: "+*r.Failure)
	}
	if r.Protocol != protocol {
		problems = append(problems, fmt.Sprintf("negotiated %q, want %q", r.Protocol, protocol))
	}
	if !slices.Equal(r.Asked, w.asked) {
		problems = append(problems, fmt.Sprintf("asked %q, want %q", r.Asked, w.asked))
	}
	if r.Failure == nil {
		if r.Text == nil || *r.Text != w.text || r.IsError != w.isError {
			problems = append(problems, fmt.Sprintf("result %s (tool error %v), want %q (tool error %v)", str(r.Text), r.IsError, w.text, w.isError))
		}
	}
	return strings.Join(problems, "; ")
}

// freePorts finds a loopback port N with N+1 and N+2 free too (the
// Inspector's web server, MCP Apps sandbox and app origin), and returns N.
func freePorts(t *testing.T) string {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		free := port+2 <= 65535
		for p := port + 1; free && p <= port+2; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return fmt.Sprint(port)
		}
	}
	t.Fatal("found no three free loopback ports in a row")
	return ""
}

// setUp finds Chromium and node, installs the pinned modules and returns
// the pinned Node's path and Chromium's. Without Chromium, node or npm it
// skips with the reason; under CI=true it fails instead, since CI installs
// them and a silent skip there would hide a gap.
func setUp(t *testing.T) (node, chromium string) {
	t.Helper()
	missing := t.Skipf
	if os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	chromium = os.Getenv("ELICIT_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing("Chromium not found at %s (%v): the Inspector web UI test drives it headless; install it (Debian: apt-get install chromium; make test does under CI=true) or set ELICIT_CHROMIUM", chromium, err)
		return "", ""
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing("%s not found on PATH: the Inspector web UI test installs its pinned Inspector, Node 22 and playwright-core with npm ci", tool)
			return "", ""
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// Install scripts run: the node package's fetches the Node binary.
	// playwright-core downloads no browser on install.
	nodetest.Install(t, dir, []string{"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"})
	// The Inspector needs Node 22.19 or newer: the pinned one.
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("npm ci installed no node: %v", err)
	}
	return node, chromium
}

// runNode runs node with args in the test's folder and returns its stdout;
// stderr goes into the error.
func runNode(t *testing.T, node string, args ...string) ([]byte, error) {
	t.Helper()
	return nodetest.Run(runTimeout, node, args...)
}

func str(p *string) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%q", *p)
}
