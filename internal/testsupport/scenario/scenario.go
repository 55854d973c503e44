// Package scenario reads and runs functional test scenarios: a server to
// start, a scripted mcptest client to run against it, and what the client
// must print and exit with. It generalises the seed's elicitation-*.ci tests.
//
// # Format
//
// A scenario file (testdata/scenarios/*.ci) is a header of directives, one a
// line, then a line "-- stdin --" and the client's standard input verbatim:
//
//	# elicitation-accept: the user accepts and the command runs.
//	server ze -elicit-timeout 30s
//	client --elicit
//	exit 0
//	stdout-contains peer1 127.0.0.1 AS 1
//	-- stdin --
//	elicit-accept {"command":"show bgp peer list"}
//	@ze_execute
//
// Directives (blank lines and lines starting with # are ignored):
//
//	server NAME [FLAG...]       the example server examples/NAME, with flags
//	client [FLAG...]            mcptest flags; --url or --stdio is added by the runner
//	transport http|stdio|both   how the client reaches the server (default http)
//	exit N                      the client's expected exit status (default 0)
//	timeout DURATION            bound on the client run (default 30s)
//	stdout-contains TEXT        TEXT must appear in the client's stdout
//	stdout-not-contains TEXT    TEXT must not appear there
//	stderr-contains TEXT        likewise for stderr
//	stderr-not-contains TEXT
//
// Flags are split on white space; a flag value cannot contain spaces.
//
// Transports. Over http the runner starts the server itself with
// -addr 127.0.0.1:0 and the server flags, waits for its "listening on URL"
// line, and runs mcptest --url URL. Over stdio it starts no server: it runs
// mcptest --stdio 'BINARY -stdio FLAG...', so mcptest starts the server as
// its child and speaks newline-delimited JSON-RPC on its stdin and stdout
// (the server's stderr then shows in the client's stderr). A "both"
// scenario runs once over each, with the same script and the same
// expectations: what a client sees must not depend on the transport. The
// test runs each transport as its own subtest, NAME/http and NAME/stdio.
package scenario

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Scenario is one parsed scenario file.
type Scenario struct {
	Name        string
	Server      string   // examples/<Server>
	ServerFlags []string // flags for the server
	ClientFlags []string // mcptest flags (without --url or --stdio)
	// Transports lists what to run the scenario over, in order: Transport
	// values, [TransportHTTP] unless the file says otherwise.
	Transports []string
	Exit       int
	Timeout    time.Duration
	Expect     []Expectation
	Stdin      string
}

// Expectation is one check of the client's output.
type Expectation struct {
	Stream string // "stdout" or "stderr"
	Negate bool   // "not-contains"
	Text   string
	Line   int // where it was written, for messages
}

// stdinMarker separates the header from the client's stdin.
const stdinMarker = "-- stdin --"

// Transports a scenario can run over.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
	transportBoth  = "both"
)

// Parse reads a scenario. name is used in error messages (file:line: ...).
func Parse(name string, data []byte) (*Scenario, error) {
	s := &Scenario{Name: name, Timeout: 30 * time.Second}
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	text := string(data)
	header, stdin, found := strings.Cut(text, "\n"+stdinMarker+"\n")
	if !found {
		if strings.HasPrefix(text, stdinMarker+"\n") {
			header, stdin, found = "", text[len(stdinMarker)+1:], true
		} else if h, ok := strings.CutSuffix(text, "\n"+stdinMarker); ok {
			header, stdin, found = h, "", true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no %q line before the client's input", name, stdinMarker)
	}
	s.Stdin = stdin
	sawServer, sawClient, sawExit, sawTransport := false, false, false, false
	sc := bufio.NewScanner(strings.NewReader(header))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "server":
			if sawServer {
				fail(n, "second server directive")
				continue
			}
			sawServer = true
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				fail(n, "server needs a name")
				continue
			}
			s.Server, s.ServerFlags = fields[0], fields[1:]
		case "client":
			if sawClient {
				fail(n, "second client directive")
				continue
			}
			sawClient = true
			s.ClientFlags = strings.Fields(rest)
		case "transport":
			if sawTransport {
				fail(n, "second transport directive")
				continue
			}
			sawTransport = true
			switch rest {
			case TransportHTTP, TransportStdio:
				s.Transports = []string{rest}
			case transportBoth:
				s.Transports = []string{TransportHTTP, TransportStdio}
			default:
				fail(n, "transport needs http, stdio or both, not %q", rest)
			}
		case "exit":
			if sawExit {
				fail(n, "second exit directive")
				continue
			}
			sawExit = true
			code, err := strconv.Atoi(rest)
			if err != nil || code < 0 || code > 255 {
				fail(n, "exit needs a status from 0 to 255, not %q", rest)
				continue
			}
			s.Exit = code
		case "timeout":
			d, err := time.ParseDuration(rest)
			if err != nil || d <= 0 {
				fail(n, "timeout needs a positive duration, not %q", rest)
				continue
			}
			s.Timeout = d
		case "stdout-contains", "stdout-not-contains", "stderr-contains", "stderr-not-contains":
			if rest == "" {
				fail(n, "%s needs text", word)
				continue
			}
			stream, kind, _ := strings.Cut(word, "-")
			s.Expect = append(s.Expect, Expectation{Stream: stream, Negate: kind == "not-contains", Text: rest, Line: n})
		default:
			fail(n, "unknown directive %q", word)
		}
	}
	if !sawServer {
		errs = append(errs, fmt.Errorf("%s: no server directive", name))
	}
	if s.Transports == nil {
		s.Transports = []string{TransportHTTP}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Result is what a client run produced.
type Result struct {
	Exit   int
	Stdout string
	Stderr string
}

// Check compares a run with the scenario's expectations and returns every
// mismatch.
func (s *Scenario) Check(r Result) []string {
	var bad []string
	if r.Exit != s.Exit {
		bad = append(bad, fmt.Sprintf("%s: exit status %d, want %d", s.Name, r.Exit, s.Exit))
	}
	for _, e := range s.Expect {
		out := r.Stdout
		if e.Stream == "stderr" {
			out = r.Stderr
		}
		if strings.Contains(out, e.Text) == e.Negate {
			verb := "does not contain"
			if e.Negate {
				verb = "contains"
			}
			bad = append(bad, fmt.Sprintf("%s:%d: %s %s %q", s.Name, e.Line, e.Stream, verb, e.Text))
		}
	}
	return bad
}
