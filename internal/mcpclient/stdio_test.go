package mcpclient_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
)

// The stdio tests run three kinds of child: examples/ze -stdio (the
// project's server), the go-sdk fixture served over stdio, and a raw
// scripted server for misbehaviour. The last two are this test binary,
// started with helperFlag.

const helperFlag = "-mcpclient-stdio-helper="

func stdioHelperMode() (string, bool) {
	if len(os.Args) == 2 && strings.HasPrefix(os.Args[1], helperFlag) {
		return strings.TrimPrefix(os.Args[1], helperFlag), true
	}
	return "", false
}

func helperCommand(mode string) []string { return []string{os.Args[0], helperFlag + mode} }

func stdioHelper(mode string) int {
	switch mode {
	case "sdk":
		fmt.Fprintln(os.Stderr, "sdk helper: serving on stdio")
		if err := sdkfixture.RunStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "sdk helper:", err)
		}
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "helper: refusing to serve")
		return 3
	case "env":
		wd, _ := os.Getwd()
		fmt.Fprintf(os.Stderr, "helper: MCPCLIENT_TEST=%s dir=%s\n", os.Getenv("MCPCLIENT_TEST"), wd)
		return 3
	case "raw", "ignore-eof":
		return rawStdioServer(mode == "ignore-eof")
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// rawStdioServer answers initialize and server/discover, and serves tools
// that misbehave in the ways the client must survive. It handles one line
// at a time: a tool that needs the client's answer reads it inline.
func rawStdioServer(ignoreEOF bool) int {
	if ignoreEOF {
		signal.Ignore(syscall.SIGTERM) // so Close has to kill it
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(format string, args ...any) { fmt.Fprintf(os.Stdout, format+"\n", args...) }
	result := func(id json.RawMessage, text string) {
		b, _ := json.Marshal(text)
		send(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}]}}`, id, b)
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string                     `json:"name"`
			Meta      map[string]json.RawMessage `json:"_meta"`
			RequestID json.RawMessage            `json:"requestId"`
		} `json:"params"`
	}
	next := func() (*msg, string, bool) {
		if !in.Scan() {
			return nil, "", false
		}
		var m msg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "raw: bad line %q\n", in.Text())
			return &m, in.Text(), true
		}
		return &m, in.Text(), true
	}
	for {
		m, _, ok := next()
		if !ok {
			break
		}
		switch m.Method {
		case "initialize":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}}`, m.ID)
		case "server/discover":
			send(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}`, m.ID)
		case "notifications/cancelled":
			_, meta := m.Params.Meta[mcpclient.MetaProtocolVersion]
			fmt.Fprintf(os.Stderr, "raw: cancelled %s meta=%v\n", m.Params.RequestID, meta)
		case "":
			fmt.Fprintf(os.Stderr, "raw: answer %s\n", m.ID)
		case "tools/call":
			switch m.Params.Name {
			case "junk":
				send("this is not json")
				send("")
				send(`{"jsonrpc":"2.0","id":424242,"result":{}}`)
				result(m.ID, "after junk")
			case "long":
				send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}`, strings.Repeat("x", 4096))
				result(m.ID, "too late")
			case "ask":
				send(`{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}}`)
				for {
					a, line, ok := next()
					if !ok {
						return 0
					}
					if a.Method == "" && string(a.ID) == `"s1"` {
						result(m.ID, line)
						break
					}
				}
			case "abandon":
				send(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"wait","requestedSchema":{"type":"object","properties":{}}}}`)
				time.Sleep(50 * time.Millisecond)
				send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"gave up"}}`)
				result(m.ID, "abandoned")
			case "die":
				fmt.Fprintln(os.Stderr, "raw: dying")
				os.Exit(4)
			case "slow": // never answered
			default:
				send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool"}}`, m.ID)
			}
		default:
			if len(m.ID) > 0 {
				send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
			}
		}
	}
	if ignoreEOF {
		time.Sleep(time.Minute)
	}
	return 0
}

func connectStdio(t *testing.T, command []string, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	opts.Command = command
	return dial(t, opts)
}

// buildZe builds examples/ze once per test.
func buildZe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ze")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/go-elicit/elicit/examples/ze").CombinedOutput()
	if err != nil {
		t.Fatalf("building examples/ze: %v\n%s", err, out)
	}
	return bin
}

var formCap = mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}}

func TestStdioZe(t *testing.T) {
	ze := buildZe(t)
	cmd := []string{ze, "-stdio"}
	accept := func(content string) mcpclient.ElicitResult {
		return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(content)}
	}
	for _, version := range []string{mcpclient.Version20250618, mcpclient.Version20251125, mcpclient.Version20260728} {
		t.Run(version, func(t *testing.T) {
			cases := []struct {
				name    string
				caps    mcpclient.Capabilities
				answer  mcpclient.ElicitResult
				want    string
				isError bool
			}{
				{"accept", formCap, accept(`{"command":"show bgp peer list"}`), "peer1 127.0.0.1 AS 1\npeer2 192.0.2.2 AS 64512", false},
				{"decline", formCap, mcpclient.ElicitResult{Action: "decline"}, "the user declined to answer", true},
				{"cancel", formCap, mcpclient.ElicitResult{Action: "cancel"}, "the user canceled the request", true},
				{"bad content", formCap, accept(`{"command":42}`), `"command"`, true},
				{"no capability", mcpclient.Capabilities{}, mcpclient.ElicitResult{}, "missing required argument: command", true},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					var asked []string
					opts := mcpclient.Options{Protocol: version, Capabilities: tc.caps}
					if tc.caps.Elicitation != nil {
						opts.OnElicit = func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
							asked = append(asked, p.Message)
							return tc.answer, nil
						}
					}
					c := connectStdio(t, cmd, opts)
					if c.ProtocolVersion() != version || c.SessionID() != "" {
						t.Errorf("protocol %q session %q", c.ProtocolVersion(), c.SessionID())
					}
					res := call(t, c, "ze_execute", "")
					if !strings.Contains(lines(res), tc.want) || res.IsError != tc.isError {
						t.Errorf("result %q isError=%v, want %q isError=%v", lines(res), res.IsError, tc.want, tc.isError)
					}
					wantAsked := 1
					if tc.caps.Elicitation == nil {
						wantAsked = 0
					}
					if len(asked) != wantAsked {
						t.Errorf("elicitations %q", asked)
					}
					if version == mcpclient.Version20260728 && tc.caps.Elicitation != nil && res.Rounds != 1 {
						t.Errorf("rounds %d, want 1", res.Rounds)
					}
				})
			}
			t.Run("two-step form", func(t *testing.T) {
				if version == mcpclient.Version20250618 {
					t.Skip("the form's multi-select needs 2025-11-25")
				}
				answers := []mcpclient.ElicitResult{
					accept(`{"address":"192.0.2.9","asn":64500,"family":"ipv4-unicast","extra":["ipv6-unicast"],"contact":"noc@example.net","passive":false}`),
					accept(`{"confirm":true}`),
				}
				var mu sync.Mutex
				c := connectStdio(t, cmd, mcpclient.Options{Protocol: version, Capabilities: formCap,
					OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
						mu.Lock()
						defer mu.Unlock()
						a := answers[0]
						answers = answers[1:]
						return a, nil
					}})
				res := call(t, c, "ze_add_peer", "")
				want := "added peer 192.0.2.9 AS 64500 families ipv4-unicast,ipv6-unicast active contact noc@example.net"
				if lines(res) != want || res.IsError {
					t.Errorf("result %q isError=%v", lines(res), res.IsError)
				}
			})
			t.Run("concurrent calls", func(t *testing.T) {
				c := connectStdio(t, cmd, mcpclient.Options{Protocol: version, Capabilities: formCap,
					OnElicit: answer(accept(`{"command":"show version"}`))})
				var wg sync.WaitGroup
				errs := make(chan error, 8)
				for range 8 {
					wg.Go(func() {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						res, err := c.CallTool(ctx, "ze_execute", nil)
						switch {
						case err != nil:
							errs <- err
						case lines(res) != "ze 1.0.0 (elicit example)":
							errs <- fmt.Errorf("result %q", lines(res))
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		})
	}
}

func TestStdioTrace(t *testing.T) {
	ze := buildZe(t)
	for _, version := range []string{mcpclient.Version20251125, mcpclient.Version20260728} {
		t.Run(version, func(t *testing.T) {
			var trace syncBuffer
			c := connectStdio(t, []string{ze, "-stdio"}, mcpclient.Options{Protocol: version, Capabilities: formCap, Trace: &trace,
				OnElicit: answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"command":"show version"}`)})})
			call(t, c, "ze_execute", "")
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			out := trace.String()
			want := []string{
				"[-] * started " + ze + " -stdio (pid ",
				`] > {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`,
				ze + " -stdio exited (status 0)",
			}
			if version == mcpclient.Version20260728 {
				want = append(want, `"resultType":"input_required"`, `] > {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)
			} else {
				want = append(want, `] > {"jsonrpc":"2.0","id":1,"method":"initialize"`, `[-] > {"jsonrpc":"2.0","method":"notifications/initialized"}`,
					`,"method":"elicitation/create","params":{"message":"Which ze command should run?"`, `,"result":{"action":"accept","content":{"command":"show version"}}}`)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("trace lacks %q", w)
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if !strings.HasPrefix(l, "[") {
					t.Errorf("trace line %q", l)
				}
			}
			if t.Failed() {
				t.Logf("trace:\n%s", out)
			}
		})
	}
}

// TestStdioGoSDKServer drives the official Go SDK's server over stdio: an
// independent implementation of the transport.
func TestStdioGoSDKServer(t *testing.T) {
	var stderr syncBuffer
	c := connectStdio(t, helperCommand("sdk"), mcpclient.Options{
		Protocol: mcpclient.Version20251125, Capabilities: formCap, Stderr: &stderr,
		OnElicit: answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"name":"Ada"}`)}),
	})
	if res := call(t, c, "greet", ""); lines(res) != "hello Ada" {
		t.Errorf("greet: %q", lines(res))
	}
	if res := call(t, c, "ping", ""); lines(res) != "pong" {
		t.Errorf("ping: %q", lines(res))
	}
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) < 5 {
		t.Errorf("tools/list: %d tools, %v", len(tools), err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "sdk helper: serving on stdio\n") {
		t.Errorf("child's stderr not passed on: %q", stderr.String())
	}
}

func TestStdioMisbehavingServer(t *testing.T) {
	raw := helperCommand("raw")
	t.Run("junk lines are skipped", func(t *testing.T) {
		var trace syncBuffer
		c := connectStdio(t, raw, mcpclient.Options{Trace: &trace})
		if res := call(t, c, "junk", ""); lines(res) != "after junk" {
			t.Errorf("result %q", lines(res))
		}
		for _, w := range []string{"ignoring a line that is not JSON-RPC", "ignoring a response to no pending request 424242"} {
			if !strings.Contains(trace.String(), w) {
				t.Errorf("trace lacks %q:\n%s", w, trace.String())
			}
		}
		if n, first := c.ProtocolViolations(); n != 2 || !strings.Contains(first, "not JSON-RPC") {
			t.Errorf("ProtocolViolations = %d, %q; want 2, the junk line first", n, first)
		}
	})
	t.Run("line too long", func(t *testing.T) {
		c := connectStdio(t, raw, mcpclient.Options{MaxMessageBytes: 1024})
		_, err := c.CallTool(context.Background(), "long", nil)
		if !errors.Is(err, mcpclient.ErrProtocol) || !errors.Is(err, mcpclient.ErrStreamEnded) || !strings.Contains(err.Error(), "longer than 1024 bytes") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.CallTool(context.Background(), "junk", nil); !errors.Is(err, mcpclient.ErrStreamEnded) {
			t.Errorf("call after the end: %v", err)
		}
	})
	t.Run("legacy answer is a line", func(t *testing.T) {
		c := connectStdio(t, raw, mcpclient.Options{Capabilities: formCap,
			OnElicit: answer(mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"n":"x"}`)})})
		if res := call(t, c, "ask", ""); lines(res) != `{"jsonrpc":"2.0","id":"s1","result":{"action":"accept","content":{"n":"x"}}}` {
			t.Errorf("answer %q", lines(res))
		}
	})
	t.Run("modern server request is refused", func(t *testing.T) {
		var trace syncBuffer
		asked := false
		c := connectStdio(t, raw, mcpclient.Options{Protocol: mcpclient.Version20260728, Capabilities: formCap, Trace: &trace,
			OnElicit: func(context.Context, mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				asked = true
				return mcpclient.ElicitResult{Action: "cancel"}, nil
			}})
		res := call(t, c, "ask", "")
		if !strings.Contains(lines(res), `"error":{"code":-32600,"message":"protocol violation: server sent request \"elicitation/create\" in 2026-07-28`) || asked {
			t.Errorf("answer %q (handler asked: %v)", lines(res), asked)
		}
	})
	t.Run("server cancels its elicitation", func(t *testing.T) {
		var stderr syncBuffer
		cause := make(chan error, 1)
		c := connectStdio(t, raw, mcpclient.Options{Capabilities: formCap, Stderr: &stderr,
			OnElicit: func(ctx context.Context, _ mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
				<-ctx.Done()
				cause <- context.Cause(ctx)
				return mcpclient.ElicitResult{}, ctx.Err()
			}})
		if res := call(t, c, "abandon", ""); lines(res) != "abandoned" {
			t.Errorf("result %q", lines(res))
		}
		select {
		case err := <-cause:
			if !strings.Contains(err.Error(), "the server cancelled the request: gave up") {
				t.Errorf("handler ended with %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("handler not cancelled")
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr.String(), "raw: answer 7") {
			t.Errorf("a cancelled request was answered: %q", stderr.String())
		}
	})
	for _, version := range []string{mcpclient.Version20250618, mcpclient.Version20260728} {
		t.Run("caller cancels/"+version, func(t *testing.T) {
			var stderr syncBuffer
			c := connectStdio(t, raw, mcpclient.Options{Protocol: version, Stderr: &stderr})
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if _, err := c.CallTool(ctx, "slow", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v", err)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			// Modern notifications carry _meta too, so a server can tell the
			// era of a message without a session.
			want := fmt.Sprintf("raw: cancelled 2 meta=%v", version == mcpclient.Version20260728)
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q lacks %q", stderr.String(), want)
			}
		})
	}
	t.Run("server exits mid-call", func(t *testing.T) {
		var stderr syncBuffer
		c, err := mcpclient.Connect(context.Background(), mcpclient.Options{Command: raw, Stderr: &stderr})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CallTool(context.Background(), "die", nil)
		if !errors.Is(err, mcpclient.ErrStreamEnded) || !strings.Contains(err.Error(), "the server exited: exit status 4") {
			t.Errorf("call: %v", err)
		}
		if err := c.Close(); err == nil || !strings.Contains(err.Error(), "exit status 4") {
			t.Errorf("close: %v", err)
		}
		if !strings.Contains(stderr.String(), "raw: dying\n") {
			t.Errorf("stderr %q", stderr.String())
		}
		if _, err := c.CallTool(context.Background(), "junk", nil); !errors.Is(err, mcpclient.ErrClosed) {
			t.Errorf("call after close: %v", err)
		}
	})
	t.Run("server that ignores EOF is stopped", func(t *testing.T) {
		defer mcpclient.SetStdioWaits(200*time.Millisecond, 200*time.Millisecond)()
		var trace syncBuffer
		c, err := mcpclient.Connect(context.Background(), mcpclient.Options{Command: helperCommand("ignore-eof"), Trace: &trace})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = c.Close()
		if err == nil || !strings.Contains(err.Error(), "did not exit within 200ms") {
			t.Errorf("close: %v", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("close took %v", d)
		}
		if !strings.Contains(trace.String(), "killing the server") {
			t.Errorf("trace:\n%s", trace.String())
		}
	})
}

func TestStdioConnectErrors(t *testing.T) {
	t.Run("exits at once", func(t *testing.T) {
		var trace syncBuffer
		_, err := mcpclient.Connect(context.Background(), mcpclient.Options{Command: helperCommand("exit"), Trace: &trace})
		if !errors.Is(err, mcpclient.ErrStreamEnded) || !strings.Contains(err.Error(), "exit status 3") {
			t.Errorf("got %v", err)
		}
		if !strings.Contains(trace.String(), "[-] ! helper: refusing to serve\n") {
			t.Errorf("stderr not in the trace:\n%s", trace.String())
		}
	})
	t.Run("env and dir reach the child", func(t *testing.T) {
		var trace syncBuffer
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), "MCPCLIENT_TEST=from-options")
		_, err = mcpclient.Connect(context.Background(), mcpclient.Options{Command: helperCommand("env"), Env: env, Dir: dir, Trace: &trace})
		if !errors.Is(err, mcpclient.ErrStreamEnded) {
			t.Errorf("got %v", err)
		}
		if want := "[-] ! helper: MCPCLIENT_TEST=from-options dir=" + dir + "\n"; !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q:\n%s", want, trace.String())
		}
	})
	t.Run("no such program", func(t *testing.T) {
		_, err := mcpclient.Connect(context.Background(), mcpclient.Options{Command: []string{filepath.Join(t.TempDir(), "nothing-here")}})
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "starting the server") {
			t.Errorf("got %v", err)
		}
	})
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		want string
	}{
		{"both", mcpclient.Options{URL: "http://x", Command: []string{"ze"}}, "set URL or Command, not both"},
		{"neither", mcpclient.Options{}, "no URL or Command"},
		{"empty name", mcpclient.Options{Command: []string{""}}, "empty command name"},
		{"header", mcpclient.Options{Command: []string{"ze"}, Header: map[string][]string{"X": {"y"}}}, "Header needs URL"},
		{"listen", mcpclient.Options{Command: []string{"ze"}, Listen: true}, "Listen needs URL"},
		{"env with url", mcpclient.Options{URL: "http://x", Env: []string{"A=b"}}, "Env and Dir need Command"},
		{"dir with url", mcpclient.Options{URL: "http://x", Dir: "/"}, "Env and Dir need Command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := mcpclient.Connect(context.Background(), tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
