package scenario

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	s, err := Parse("a.ci", []byte(`# a comment
server ze -elicit-timeout 30s
client --elicit --trace

exit 1
timeout 5s
stdout-contains peer1 127.0.0.1 AS 1
stderr-not-contains panic
-- stdin --
elicit-accept {"command":"x"}
@ze_execute
`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Server != "ze" || strings.Join(s.ServerFlags, " ") != "-elicit-timeout 30s" || strings.Join(s.ClientFlags, " ") != "--elicit --trace" ||
		s.Exit != 1 || s.Timeout != 5*time.Second || s.Stdin != "elicit-accept {\"command\":\"x\"}\n@ze_execute\n" {
		t.Fatalf("parsed %+v", s)
	}
	if !slices.Equal(s.Transports, []string{TransportHTTP}) {
		t.Errorf("default transports %q, want http", s.Transports)
	}
	if len(s.Expect) != 2 || s.Expect[0] != (Expectation{"stdout", false, "peer1 127.0.0.1 AS 1", 7}) || s.Expect[1] != (Expectation{"stderr", true, "panic", 8}) {
		t.Fatalf("expectations %+v", s.Expect)
	}
	bad := s.Check(Result{Exit: 0, Stdout: "nothing", Stderr: "panic: x"})
	if len(bad) != 3 || !strings.Contains(bad[0], "exit status 0, want 1") || !strings.Contains(bad[1], "a.ci:7: stdout does not contain") || !strings.Contains(bad[2], "a.ci:8: stderr contains") {
		t.Errorf("check: %q", bad)
	}
	if bad := s.Check(Result{Exit: 1, Stdout: "peer1 127.0.0.1 AS 1"}); len(bad) != 0 {
		t.Errorf("check of a good run: %q", bad)
	}
}

func TestParseTransport(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"transport http", []string{TransportHTTP}},
		{"transport stdio", []string{TransportStdio}},
		{"transport both", []string{TransportHTTP, TransportStdio}},
		{"  transport   both  ", []string{TransportHTTP, TransportStdio}},
	} {
		s, err := Parse("t.ci", []byte("server ze\n"+tc.line+"\n-- stdin --\n@ze_execute\n"))
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if !slices.Equal(s.Transports, tc.want) {
			t.Errorf("%q: transports %q, want %q", tc.line, s.Transports, tc.want)
		}
	}
	s, err := Parse("t.ci", []byte("server ze\ntransport stdio\n-- stdin --\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(t.Context(), Binaries{Servers: map[string]string{"ze": "ze"}}, TransportHTTP); err == nil || !strings.Contains(err.Error(), `not a scenario for transport "http" (it runs over stdio)`) {
		t.Errorf("run over a transport the file does not name: %v", err)
	}
	if _, err := s.Run(t.Context(), Binaries{Servers: map[string]string{"ze": "/a dir/ze"}}, TransportStdio); err == nil || !strings.Contains(err.Error(), "white space in its path") {
		t.Errorf("run with a spaced path: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"server ze\n", `no "-- stdin --" line`},
		{"client\n-- stdin --\n", "no server directive"},
		{"server\n-- stdin --\n", "x.ci:1: server needs a name"},
		{"server ze\nserver ze\n-- stdin --\n", "x.ci:2: second server directive"},
		{"server ze\nexit -1\n-- stdin --\n", `x.ci:2: exit needs a status from 0 to 255, not "-1"`},
		{"server ze\ntimeout soon\n-- stdin --\n", `x.ci:2: timeout needs a positive duration`},
		{"server ze\nfrobnicate\n-- stdin --\n", `x.ci:2: unknown directive "frobnicate"`},
		{"server ze\nstdout-contains\n-- stdin --\n", `x.ci:2: stdout-contains needs text`},
		{"server ze\ntransport\n-- stdin --\n", `x.ci:2: transport needs http, stdio or both, not ""`},
		{"server ze\ntransport sse\n-- stdin --\n", `x.ci:2: transport needs http, stdio or both, not "sse"`},
		{"server ze\ntransport http stdio\n-- stdin --\n", `x.ci:2: transport needs http, stdio or both, not "http stdio"`},
		{"server ze\ntransport both\ntransport http\n-- stdin --\n", "x.ci:3: second transport directive"},
	} {
		_, err := Parse("x.ci", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v, want %q", tc.in, err, tc.want)
		}
	}
	// Every error is reported, not just the first.
	_, err := Parse("x.ci", []byte("bogus\nexit x\n-- stdin --\n"))
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("want three errors, got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("server ze\nclient --elicit\nexit 0\nstdout-contains x\n-- stdin --\n@ze_execute\n"))
	f.Add([]byte("-- stdin --\n"))
	f.Add([]byte("server ze a b\n-- stdin --"))
	f.Add([]byte("server ze\ntransport both\n-- stdin --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.ci", data)
		if err != nil {
			return
		}
		if s.Server == "" || s.Exit < 0 || s.Exit > 255 || s.Timeout <= 0 || len(s.Transports) == 0 {
			t.Fatalf("accepted a bad scenario: %+v", s)
		}
		for _, e := range s.Expect {
			if e.Text == "" || (e.Stream != "stdout" && e.Stream != "stderr") {
				t.Fatalf("bad expectation %+v", e)
			}
		}
	})
}
