package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
)

const stdioHelperFlag = "-mcptest-stdio-helper="

// stdioHelper serves the go-sdk fixture on stdin/stdout; "noisy" also
// writes to stderr first, "crash" exits at once.
func stdioHelper(mode string) int {
	switch mode {
	case "noisy":
		fmt.Fprintln(os.Stderr, "helper: hello from the server's stderr")
	case "crash":
		fmt.Fprintln(os.Stderr, "helper: cannot start")
		return 3
	case "stdout":
		fmt.Println("debug: starting") // the mistake: a log line on the protocol stream
	}
	if err := sdkfixture.RunStdio(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
	}
	return 0
}

func stdioServer(mode string) string { return os.Args[0] + " " + stdioHelperFlag + mode }

func TestStdio(t *testing.T) {
	server := stdioServer("quiet")
	cases := []struct {
		name, script string
		args         []string
		code         int
		stdout       string
		stderr       []string
	}{
		{name: "accept", script: "elicit-accept {\"name\":\"Ada\"}\n@greet\n", args: []string{"--elicit", "--protocol", "2025-06-18"}, stdout: "hello Ada\n"},
		{name: "decline", script: "elicit-decline\n@greet\n", args: []string{"--elicit", "--protocol", "2025-06-18"}, code: 1, stderr: []string{"mcptest: stdin:2: @greet: elicitation declined\n"}},
		{name: "no capability", script: "@greet\n", args: []string{"--protocol", "2025-06-18"}, code: 1, stderr: []string{"stdin:1: @greet: elicit: client does not support elicitation"}},
		{
			name:   "several calls, 2025-11-25",
			script: "elicit-accept {\"name\":\"A\"}\nelicit-cancel\n@greet\n@greet\n@echo {\"text\":\"after\"}\n",
			args:   []string{"--elicit", "--protocol", "2025-11-25"},
			code:   1,
			stdout: "hello A\necho: after\n",
			stderr: []string{"stdin:4: @greet: elicitation canceled"},
		},
		{name: "2026-07-28 input_required", script: "elicit-accept {\"ok\":true}\n@confirm\n@echo {\"text\":\"m\"}\n", args: []string{"--elicit", "--protocol", "2026-07-28"}, stdout: "confirmed: accept {\"ok\":true}\necho: m\n"},
		{name: "input requests on a legacy session", script: "elicit-accept {\"ok\":true}\n@confirm\n", args: []string{"--elicit", "--protocol", "2025-06-18"}, stdout: "confirmed: accept {\"ok\":true}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run(t, tc.script, append([]string{"--stdio", server}, tc.args...)...).check(t, tc.code, tc.stdout, tc.stderr...)
		})
	}
	t.Run("server stderr is passed through", func(t *testing.T) {
		run(t, "@echo {\"text\":\"x\"}\n", "--stdio", stdioServer("noisy")).
			check(t, 0, "echo: x\n", "helper: hello from the server's stderr\n")
	})
	t.Run("trace", func(t *testing.T) {
		o := run(t, "elicit-accept {\"name\":\"Ada\"}\n@greet\n", "--stdio", server, "--elicit", "--protocol", "2025-06-18", "--trace")
		o.check(t, 0, "hello Ada\n",
			"[-] * started "+server+" (pid ",
			`[2] > {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{},"name":"greet"}}`,
			`"method":"elicitation/create","params":{"mode":"form","message":"What is your name?"`,
			`,"result":{"action":"accept","content":{"name":"Ada"}}}`,
			"exited (status 0)",
		)
		if strings.Contains(o.stderr, "POST") {
			t.Errorf("stdio trace shows HTTP")
		}
	})
	t.Run("server that cannot start", func(t *testing.T) {
		run(t, "@echo\n", "--stdio", stdioServer("crash")).
			check(t, 1, "", "helper: cannot start\n", "mcptest: connect "+stdioServer("crash")+": initialize: stream ended before the response to request 1: the server exited: exit status 3")
	})
	t.Run("no such program", func(t *testing.T) {
		run(t, "@echo\n", "--stdio", "/nonexistent/mcp-server -x").
			check(t, 1, "", "mcptest: connect /nonexistent/mcp-server -x: mcpclient: starting the server:")
	})
}

func TestStdioUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--url", "http://x", "--stdio", "ze -stdio"}, "--url and --stdio are mutually exclusive"},
		{[]string{"--stdio", "  "}, "--stdio: empty command"},
		{[]string{"--stdio", "ze", "--listen"}, "--listen needs --url"},
		{[]string{"--stdio", "ze", "--header", "Origin: x"}, "--header needs --url"},
	} {
		o := run(t, "", tc.args...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, o.code, o.stderr, tc.msg)
		}
	}
}

// TestStdioQuotedCommand: --stdio splits its command as a shell would, so a
// program whose path holds a space can be quoted.
func TestStdioQuotedCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my tools")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "server")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	server := "'" + link + "' " + stdioHelperFlag + "quiet"
	run(t, "@echo {\"text\":\"quoted\"}\n", "--stdio", server).check(t, 0, "echo: quoted\n")
	run(t, "@echo {}\n", "--stdio", "'"+link).check(t, 2, "", "--stdio: unterminated '")
}

// TestStdioServerWritingJunk: a server that prints anything but JSON-RPC on
// stdout fails the run, though mcptest skipped the line and went on.
func TestStdioServerWritingJunk(t *testing.T) {
	run(t, "@echo {\"text\":\"x\"}\n", "--stdio", stdioServer("stdout")).check(t, 1, "echo: x\n",
		"the server broke the protocol 1 time (first: ignoring a line that is not JSON-RPC", "log to stderr")
}
