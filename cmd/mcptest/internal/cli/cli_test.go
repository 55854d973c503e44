package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a stdio server (the go-sdk fixture) for
	// the --stdio tests.
	if len(os.Args) == 2 && strings.HasPrefix(os.Args[1], stdioHelperFlag) {
		os.Exit(stdioHelper(strings.TrimPrefix(os.Args[1], stdioHelperFlag)))
	}
	// Under -race a helper would sleep a second at exit without this.
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	goleak.VerifyTestMain(m)
}

type outcome struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, stdin string, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(stdin), &out, &errb)
	return outcome{code, out.String(), errb.String()}
}

func (o outcome) check(t *testing.T, code int, stdout string, stderrHas ...string) {
	t.Helper()
	if o.code != code {
		t.Errorf("exit %d, want %d", o.code, code)
	}
	if o.stdout != stdout {
		t.Errorf("stdout %q, want %q", o.stdout, stdout)
	}
	for _, s := range stderrHas {
		if !strings.Contains(o.stderr, s) {
			t.Errorf("stderr lacks %q", s)
		}
	}
	if len(stderrHas) == 0 && o.stderr != "" {
		t.Errorf("unexpected stderr")
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", o.stderr)
	}
}

func TestElicitationScenarios(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	cases := []struct {
		name, script string
		args         []string
		code         int
		stdout       string
		stderr       []string
	}{
		{
			name:   "accept",
			script: "# seed style\nelicit-accept {\"name\":\"Ada\"}\n@greet\n",
			args:   []string{"--elicit"},
			stdout: "hello Ada\n",
		},
		{
			name:   "decline",
			script: "elicit-decline\n@greet\n",
			args:   []string{"--elicit"},
			code:   1,
			stderr: []string{"mcptest: stdin:2: @greet: elicitation declined\n"},
		},
		{
			name:   "cancel",
			script: "elicit-cancel\n@greet\n",
			args:   []string{"--elicit"},
			code:   1,
			stderr: []string{"mcptest: stdin:2: @greet: elicitation canceled\n"},
		},
		{
			name:   "empty queue answers cancel",
			script: "@greet\n",
			args:   []string{"--elicit"},
			code:   1,
			stderr: []string{`elicitation "What is your name?" arrived with no queued reply; answering cancel`, "@greet: elicitation canceled"},
		},
		{
			name:   "no capability",
			script: "elicit-accept {\"name\":\"Ada\"}\n@greet\n",
			code:   1,
			stderr: []string{"stdin:2: @greet: elicit: client does not support elicitation", "1 queued elicitation reply never used (first at stdin:1)"},
		},
		{
			name:   "queue spans calls and failures continue",
			script: "elicit-accept {\"name\":\"A\"}\nelicit-decline\n@greet\n@greet\n@fail\n@echo {\"text\":\"after\"}\n",
			args:   []string{"--elicit", "--protocol", "2025-11-25"},
			code:   1,
			stdout: "hello A\necho: after\n",
			stderr: []string{"stdin:4: @greet: elicitation declined", "stdin:5: @fail: boom"},
		},
		{
			name:   "json-rpc error",
			script: "@nope\n@echo {\"text\":\"x\"}\n",
			code:   1,
			stdout: "echo: x\n",
			stderr: []string{`stdin:1: @nope: tools/call "nope": json-rpc error -32602`},
		},
		{
			name:   "url mode",
			script: "elicit-accept {\"ignored\":true}\n@login\n",
			args:   []string{"--elicit=form,url", "--protocol=2025-11-25"},
			stdout: "elicitation url: https://example.test/login\nlogin: accept\n",
			stderr: []string{"content dropped, a url-mode accept carries none"},
		},
		{
			name:   "url mode not declared",
			script: "@login\n",
			args:   []string{"--elicit=form", "--protocol=2025-11-25"},
			code:   1,
			stderr: []string{`client does not support "url" elicitation`},
		},
		{
			name:   "structured content",
			script: "@structured\n",
			stdout: "{\"n\":42}\n{\"n\":42}\n",
		},
		{
			name:   "input requests on a legacy session",
			script: "elicit-accept {\"ok\":false}\n@confirm\n",
			args:   []string{"--elicit"},
			stdout: "confirmed: accept {\"ok\":false}\n",
		},
		{
			name:   "wait",
			script: "wait 1ms\n@echo {\"text\":\"late\"}\n",
			stdout: "echo: late\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, tc.script, append([]string{"--url", url}, tc.args...)...).check(t, tc.code, tc.stdout, tc.stderr...)
		})
	}
}

func TestModernProtocol(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{Stateless: true}).URL
	run(t, "elicit-accept {\"ok\":true}\n@confirm\n@echo {\"text\":\"m\"}\n", "--url", url, "--elicit", "--protocol", "2026-07-28").
		check(t, 0, "confirmed: accept {\"ok\":true}\necho: m\n")
}

func TestListen(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{JSONResponse: true}).URL
	run(t, "elicit-accept {\"name\":\"J\"}\n@greet\n", "--url", url, "--elicit", "--listen").check(t, 0, "hello J\n")
}

func TestTrace(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	o := run(t, "elicit-accept {\"name\":\"Ada\"}\n@greet\n", "--url", url, "--elicit", "--trace")
	o.check(t, 0, "hello Ada\n",
		"] > POST "+url,
		"] < Content-Type: text/event-stream",
		`] < sse data: {"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"What is your name?"`,
		`] > {"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}`,
		"] < HTTP/1.1 202 Accepted",
		"] > DELETE "+url,
		`"capabilities":{"elicitation":{}}`,
	)
}

func TestTimeout(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	t.Run("call", func(t *testing.T) {
		run(t, "@sleep {\"ms\":10000}\n@echo\n", "--url", url, "--timeout", "200ms").
			check(t, 1, "", "mcptest: stdin:1: @sleep: timed out after 200ms (--timeout)")
	})
	t.Run("wait", func(t *testing.T) {
		run(t, "wait 10s\n", "--url", url, "--timeout=100ms").
			check(t, 1, "", "mcptest: stdin:1: timed out after 100ms (--timeout)")
	})
}

func TestScriptErrorsSendNothing(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	o := run(t, "@echo\nelicit-decline\nfoo\nwait x\n", "--url", srv.URL)
	o.check(t, 2, "", "stdin:3: unknown directive \"foo\"\nstdin:4: wait: bad duration \"x\"\n")
	if hits.Load() != 0 {
		t.Errorf("server got %d requests for a bad script", hits.Load())
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{nil, "--url or --stdio is required"},
		{[]string{"--url", "http://x", "--protocol", "2024-11-05"}, `unsupported version "2024-11-05"`},
		{[]string{"--url", "http://x", "--elicit=bogus"}, `unknown elicitation mode "bogus"`},
		{[]string{"--url", "http://x", "--protocol", "2025-06-18", "--elicit=url"}, "--elicit=url needs protocol 2025-11-25"},
		{[]string{"--url", "http://x", "--elicit", "--protocol", "2025-03-26"}, "--elicit needs protocol 2025-06-18"},
		{[]string{"--url", "http://x", "extra"}, `unexpected argument "extra"`},
		{[]string{"--url", "http://x", "--elicit", "form,url"}, "to declare those modes write --elicit=form,url"},
		{[]string{"--stdio", "'unterminated"}, "--stdio: unterminated '"},
		{[]string{"--url", "http://x", "--timeout", "-1s"}, "negative duration"},
		{[]string{"--url", "http://x", "--header", "nocolon"}, "want 'Name: value'"},
		{[]string{"--nope"}, "flag provided but not defined"},
	}
	for _, tc := range cases {
		o := run(t, "", tc.args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.msg)
		}
	}
}

func TestConnectFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	run(t, "@echo\n", "--url", url).check(t, 1, "", "mcptest: connect "+url+": initialize:")
}

func TestHeaderFlag(t *testing.T) {
	fixture := sdkfixture.Handler(sdkfixture.Options{})
	var origin atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("X-Test"); o != "" {
			origin.Store(o)
		}
		fixture.ServeHTTP(w, r)
	}))
	defer srv.Close()
	run(t, "@echo {\"text\":\"h\"}\n", "--url", srv.URL, "--header", "X-Test: yes").check(t, 0, "echo: h\n")
	if origin.Load() != "yes" {
		t.Errorf("header not sent: %v", origin.Load())
	}
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"./ze -stdio", []string{"./ze", "-stdio"}},
		{"  go   run ./examples/ze  -stdio ", []string{"go", "run", "./examples/ze", "-stdio"}},
		{`'/opt/my tools/ze' -stdio`, []string{"/opt/my tools/ze", "-stdio"}},
		{`ze -name "two words" -v`, []string{"ze", "-name", "two words", "-v"}},
		{`ze -q "say \"hi\" \\ \$HOME \n"`, []string{"ze", "-q", `say "hi" \ $HOME \n`}},
		{`ze a\ b c\\d`, []string{"ze", "a b", `c\d`}},
		{`ze '' ""`, []string{"ze", "", ""}},
		{`ze pre'fix'"ed"`, []string{"ze", "prefixed"}},
		{"ze\t-stdio\n", []string{"ze", "-stdio"}},
		{`ze '$HOME' "~"`, []string{"ze", "$HOME", "~"}},
		{"", nil},
	} {
		got, err := splitCommand(tc.line)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", tc.line, got, err, tc.want)
		}
	}
	for _, bad := range []string{`ze 'open`, `ze "open`, `ze "a\"`, `ze \`} {
		if got, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q) = %q, want an error", bad, got)
		}
	}
}

// TestToolsDirective: "tools" prints tools/list, a tool per line.
func TestToolsDirective(t *testing.T) {
	url := sdkfixture.Serve(t, sdkfixture.Options{}).URL
	o := run(t, "tools\n", "--url", url)
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	found := false
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || !strings.HasPrefix(f[2], "{") {
			t.Errorf("line %q: want name, description and schema separated by tabs", l)
		}
		if f[0] == "echo" && f[1] == "echo text" && strings.Contains(f[2], `"text"`) {
			found = true
		}
	}
	if !found || len(lines) < 5 {
		t.Errorf("tools output:\n%s", o.stdout)
	}
}
