package ts

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/testsupport/interop/nodetest"
	"github.com/go-elicit/elicit/internal/testsupport/scenario"
)

const (
	script = "interop.mjs"
	// minNode is the v2 client's engines field (@modelcontextprotocol/client
	// says >=20; so does the v1 sdk's @hono/node-server).
	minNode = 20
	// caseTimeout bounds one node run; the script gives each case 15 s.
	caseTimeout = 30 * time.Second
)

const (
	askCommand = "Which ze command should run?"
	askPeer    = "Describe the new BGP peer"
	askConfirm = "Add peer 192.0.2.7 AS 65001?"
	peerList   = "peer1 127.0.0.1 AS 1\npeer2 192.0.2.2 AS 64512"
)

// report is one line of interop.mjs output.
type report struct {
	Case            string        `json:"case"`
	ProtocolVersion *string       `json:"protocolVersion"`
	IsError         *bool         `json:"isError"`
	Text            *string       `json:"text"`
	Failure         *string       `json:"failure"`
	Elicitations    []elicitation `json:"elicitations"`
	Stderr          *string       `json:"stderr"` // stdio: what ze wrote to stderr
	// Requests are the sampling/createMessage and roots/list requests a
	// sampling case's client got, in order.
	Requests []string `json:"requests"`
	// ErrorCode is the JSON-RPC error code of a failed interop-v2.mjs
	// call, when the server answered with an error.
	ErrorCode *int `json:"errorCode"`
}

type elicitation struct {
	Message         string         `json:"message"`
	Mode            *string        `json:"mode"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// want is what a case must end with.
type want struct {
	protocol string
	isError  bool
	text     string   // the whole text, when set
	contains []string // substrings of the text, when text is not set
	asked    []string // the elicitation messages, in order
	// required lists the first form's required properties, when set.
	required []string
	// requests are the sampling and roots requests, in order, when set.
	requests []string
}

var cases = map[string]want{
	"accept":         {protocol: "2025-11-25", text: peerList, asked: []string{askCommand}, required: []string{"command"}},
	"accept-unknown": {protocol: "2025-11-25", isError: true, text: "unknown command: reboot", asked: []string{askCommand}},
	"decline":        {protocol: "2025-11-25", isError: true, text: "the user declined to answer", asked: []string{askCommand}},
	"cancel":         {protocol: "2025-11-25", isError: true, text: "the user canceled the request", asked: []string{askCommand}},
	"command-given":  {protocol: "2025-11-25", text: "ze 1.0.0 (elicit example)"},
	"no-capability":  {protocol: "2025-11-25", isError: true, text: "missing required argument: command"},
	// The TypeScript client passes {"command": 42} through: only the
	// server's validation catches it, and its error names the field.
	"bad-content": {protocol: "2025-11-25", isError: true, contains: []string{`"command" must be a string`}, asked: []string{askCommand}},
	"add-peer": {
		protocol: "2025-11-25",
		text:     "added peer 192.0.2.7 AS 65001 families ipv6-unicast,l2vpn-evpn passive contact noc@example.net",
		asked:    []string{askPeer, askConfirm},
		required: []string{"address", "asn"}, // family and passive have defaults, so they are optional
	},
	"add-peer-second-declined": {protocol: "2025-11-25", isError: true, text: "the user declined to answer", asked: []string{askPeer, askConfirm}},
	"add-peer-bad-content": {
		protocol: "2025-11-25",
		isError:  true,
		contains: []string{`"address" is required`, `"asn" must be an integer`, `"family" must be one of`},
		asked:    []string{askPeer, askPeer + ` — "address" is required; "asn" must be an integer; "family" must be one of "ipv4-unicast", "ipv6-unicast", "l2vpn-evpn"; please correct them`},
	},
	// An optional property sent empty is not given: no "must be an email
	// address" for the cleared contact.
	"add-peer-cleared-contact": {
		protocol: "2025-11-25",
		text:     "added peer 192.0.2.7 AS 65001 families ipv6-unicast,l2vpn-evpn passive",
		asked:    []string{askPeer, askConfirm},
	},
	// ze re-asks PeerForm once (runtime.WithReask(1)): the TypeScript client
	// answers the re-ask, whose schema carries the valid answers as defaults.
	"add-peer-reask": {
		protocol: "2025-11-25",
		text:     "added peer 192.0.2.7 AS 65001 families ipv6-unicast,l2vpn-evpn passive contact noc@example.net",
		asked:    []string{askPeer, askPeer + ` — "address" must be an IP address; please correct it`, askConfirm},
	},
	"add-peer-no-capability":   {protocol: "2025-11-25", isError: true, text: "ze_add_peer needs a client that supports elicitation: elicit: not supported by this client: the client did not declare form elicitation"},
	"legacy-2025-06-18-accept": {protocol: "2025-06-18", text: peerList, asked: []string{askCommand}, required: []string{"command"}},
	// 2025-06-18 has no multi-select, so the server refuses before asking.
	"legacy-2025-06-18-add-peer": {
		protocol: "2025-06-18",
		text:     "added peer 192.0.2.7 AS 65001 families ipv6-unicast passive contact noc@example.net (not asked: extra)",
		asked:    []string{askPeer, askConfirm},
	},
}

// stdioCases run over stdio too, each starting its own "ze -stdio" through
// the SDK's StdioClientTransport; they must end exactly as over HTTP.
var stdioCases = []string{
	"accept", "decline", "cancel", "no-capability", "bad-content",
	"add-peer", "add-peer-reask", "add-peer-no-capability", "legacy-2025-06-18-accept",
}

func TestTypeScriptSDKClient(t *testing.T) {
	node := setUp(t)
	t.Run("cases match the script", func(t *testing.T) { casesMatch(t, node, "--list", cases) })

	bin, url := startServer(t, "github.com/go-elicit/elicit/examples/ze")

	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each case is its own session; the server serves them at once
			r := runCase(t, node, []string{url}, name)
			check(t, r, w)
		})
	}
	t.Run("stdio", func(t *testing.T) {
		for _, name := range stdioCases {
			w, ok := cases[name]
			if !ok {
				t.Fatalf("stdio case %q is not a case", name)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each case runs its own ze
				r := runCase(t, node, []string{"--stdio", bin}, name)
				check(t, r, w)
				if r.Stderr == nil {
					t.Errorf("stdio report carries no stderr field")
				} else if t.Failed() {
					t.Logf("ze's stderr:\n%s", *r.Stderr)
				}
			})
		}
	})
}

// startServer builds the server program pkg (examples/ze, the conformance
// fixture), starts it on a free loopback port until the test ends, and
// returns the binary (for stdio cases) and its URL.
func startServer(t *testing.T, pkg string) (bin, url string) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	url, stop, err := scenario.StartServer(ctx, bin, nil)
	cancel()
	if err != nil {
		t.Fatalf("starting %s: %v", pkg, err)
	}
	t.Cleanup(stop)
	return bin, url
}

// runCase runs one case of interop.mjs against target (URL, or --stdio ZE)
// and parses its report; the client must not have failed.
func runCase(t *testing.T, node string, target []string, name string) report {
	t.Helper()
	r, err := runScript(t, node, script, target, name)
	if r.Failure != nil {
		t.Fatalf("%s %s: the client failed: %s", script, name, *r.Failure)
	}
	if err != nil {
		t.Fatalf("%s %s: %v", script, name, err)
	}
	return r
}

// runScript runs one case of the script file against target and parses its
// report, which must be for that case; it returns node's error too (a case
// whose client failed exits 1).
func runScript(t *testing.T, node, file string, target []string, name string) (report, error) {
	t.Helper()
	args := append(append([]string{file}, target...), name)
	out, err := runNode(t, node, args...)
	var r report
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &r); jerr != nil {
		t.Fatalf("%s %s: output is not one JSON report (%v; run error: %v):\n%s", file, name, jerr, err, out)
	}
	if r.Case != name {
		t.Fatalf("report is for case %q, want %q", r.Case, name)
	}
	return r, err
}

func check(t *testing.T, r report, w want) {
	t.Helper()
	if r.ProtocolVersion == nil || *r.ProtocolVersion != w.protocol {
		t.Errorf("negotiated protocol %v, want %q", str(r.ProtocolVersion), w.protocol)
	}
	if r.IsError == nil || r.Text == nil {
		t.Fatalf("report has no tool result: %+v", r)
	}
	if *r.IsError != w.isError {
		t.Errorf("isError = %v, want %v (text %q)", *r.IsError, w.isError, *r.Text)
	}
	if w.text != "" && *r.Text != w.text {
		t.Errorf("text = %q, want %q", *r.Text, w.text)
	}
	for _, sub := range w.contains {
		if !strings.Contains(*r.Text, sub) {
			t.Errorf("text = %q, want it to contain %q", *r.Text, sub)
		}
	}
	var asked []string
	for _, e := range r.Elicitations {
		asked = append(asked, e.Message)
		// 2025-11-25 names the mode; 2025-06-18 has no mode field at all.
		switch {
		case w.protocol == "2025-06-18" && e.Mode != nil:
			t.Errorf("elicitation %q carries mode %q on 2025-06-18", e.Message, *e.Mode)
		case w.protocol != "2025-06-18" && (e.Mode == nil || *e.Mode != "form"):
			t.Errorf("elicitation %q has mode %v, want \"form\"", e.Message, str(e.Mode))
		}
		if e.RequestedSchema["type"] != "object" {
			t.Errorf("elicitation %q: requestedSchema type %v, want \"object\"", e.Message, e.RequestedSchema["type"])
		}
	}
	if !slices.Equal(asked, w.asked) {
		t.Errorf("elicitations asked %q, want %q", asked, w.asked)
	}
	if w.requests != nil && !slices.Equal(r.Requests, w.requests) {
		t.Errorf("requests %q, want %q", r.Requests, w.requests)
	}
	if w.required != nil && len(r.Elicitations) > 0 {
		var required []string
		if list, ok := r.Elicitations[0].RequestedSchema["required"].([]any); ok {
			for _, v := range list {
				s, _ := v.(string)
				required = append(required, s)
			}
		}
		if !slices.Equal(required, w.required) {
			t.Errorf("first form requires %q, want %q", required, w.required)
		}
	}
}

// setUp finds node and installs the SDK client's modules, holding a lock
// for the rest of the test: one run at a time per work tree, since npm ci
// rewrites node_modules. It returns node's path.
func setUp(t *testing.T) string {
	node := requireNode(t)
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// No lifecycle scripts: none of the pinned packages has one.
	nodetest.Install(t, dir, nil, "--ignore-scripts")
	return node
}

// casesMatch fails the test unless interop.mjs lists (with listFlag)
// exactly the cases the test expects.
func casesMatch(t *testing.T, node, listFlag string, cases map[string]want) {
	t.Helper()
	listMatches(t, node, script, listFlag, slices.Sorted(maps.Keys(cases)))
}

// listMatches fails the test unless the script file lists (with listFlag)
// exactly the sorted case names known.
func listMatches(t *testing.T, node, file, listFlag string, known []string) {
	t.Helper()
	out, err := runNode(t, node, file, listFlag)
	if err != nil {
		t.Fatalf("%s %s: %v", file, listFlag, err)
	}
	listed := strings.Fields(string(out))
	slices.Sort(listed)
	if !slices.Equal(listed, known) {
		t.Fatalf("%s %s lists cases %q, the test expects %q", file, listFlag, listed, known)
	}
}

// requireNode finds node on PATH and checks its major version. Without a
// suitable Node the test skips with the reason, so that `go test ./...` passes
// on a machine without it; under CI=true it fails instead, since CI has Node
// and a silent skip there would hide a gap.
func requireNode(t *testing.T) string {
	t.Helper()
	missing := t.Skipf
	if os.Getenv("CI") == "true" {
		missing = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found on PATH: the TypeScript SDK interop test needs Node.js %d or newer and npm", minNode)
		return ""
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missing("%s --version: %v", node, err)
		return ""
	}
	version := strings.TrimSpace(string(out))
	major, _, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < minNode {
		missing("%s is Node.js %s: the TypeScript SDK interop test needs %d or newer", node, version, minNode)
		return ""
	}
	if _, err := exec.LookPath("npm"); err != nil {
		missing("npm not found on PATH: the TypeScript SDK interop test installs its pinned client with npm ci")
		return ""
	}
	return node
}

// runNode runs node with args in the test's folder and returns its stdout;
// stderr goes into the error.
func runNode(t *testing.T, node string, args ...string) ([]byte, error) {
	t.Helper()
	return nodetest.Run(caseTimeout, node, args...)
}

func str(p *string) string {
	if p == nil {
		return "none"
	}
	return strconv.Quote(*p)
}
