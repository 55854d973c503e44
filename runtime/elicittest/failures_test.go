package elicittest_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// recorder is a testing.TB that records failures instead of failing: the
// real test's Cleanup and the rest stay. Its Fatal does not stop the
// goroutine; the kit returns right after calling it.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, s)
}
func (r *recorder) Errorf(format string, args ...any) { r.add(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.add(fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.add(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                 { r.add(fmt.Sprint(args...)) }

// want checks that exactly the failures matching these patterns were
// recorded, in order, and forgets them.
func (r *recorder) want(t *testing.T, patterns ...string) {
	t.Helper()
	r.mu.Lock()
	got := r.failures
	r.failures = nil
	r.mu.Unlock()
	if len(got) != len(patterns) {
		t.Errorf("%d failure(s), want %d:\n%s", len(got), len(patterns), strings.Join(got, "\n---\n"))
		return
	}
	for i, p := range patterns {
		if !regexp.MustCompile(p).MatchString(got[i]) {
			t.Errorf("failure %d:\n%s\nwant it to match %s", i+1, got[i], p)
		}
	}
}

func TestFailuresAreReported(t *testing.T) {
	r := &recorder{TB: t}
	srv := elicittest.NewServer(t, newServer())
	srv.CallTimeout = 500 * time.Millisecond
	for _, conn := range []elicittest.Conn{{Protocol: runtime.Version20251125}, {Protocol: runtime.Version20260728, Transport: elicittest.Stdio}} {
		c := srv.Connect(t, conn)
		head := regexp.QuoteMeta(fmt.Sprintf(`elicittest: "greet" on %s over %s`, c.Protocol(), c.Transport()))

		c.Call(r, "greet", nil).WantError(r, "canceled by the user")
		r.want(t, `^`+head+`: elicitation 1 \(form "Who\?"\) has no scripted answer: add one to the Call`)

		c.Call(r, "greet", nil, elicittest.Accept(testform.NameForm{Name: "Ada"}), elicittest.Decline()).WantText(r, "hello Ada")
		r.want(t, `^`+head+`: 1 scripted answer\(s\) never asked for: Decline\(\); the handler asked 1 question\(s\)\n\tasked:\n\t  1\. form "Who\?" → Accept\(testform\.NameForm\{"name":"Ada"\}\)$`)

		c.Call(r, "greet", nil, elicittest.Accept(deploy.ConfirmForm{Confirm: true})).WantText(r, "hello Ada")
		r.want(t, `^`+head+`: elicitation 1 \(form "Who\?"\) did not ask for the ConfirmForm of Accept\(deploy\.ConfirmForm\{"confirm":true\}\): it asks for "name", which the ConfirmForm does not have\n\tasked:   \{.*"name".*\}\n\tConfirmForm is: \{.*"confirm".*\}\n\tit was canceled; check the order of the answers$`,
			`^`+head+`:\n\twant text "hello Ada"\n\tgot  isError result "elicit: canceled by the user"\n\tasked:\n\t  1\. form "Who\?" → canceled by elicittest$`)

		c.Call(r, "greet", nil, elicittest.Respond(func(elicittest.Elicitation) elicittest.Answer { return elicittest.Answer{} })).WantError(r, "canceled")
		r.want(t, `Respond's function returned Answer\{\} \(the zero Answer\), which cannot answer`)

		c.Call(r, "login", nil, elicittest.Accept(testform.NameForm{Name: "Ada"})).WantError(r, "canceled")
		r.want(t, `elicitation 1 \(url "Sign in"\) is a url elicitation \(https://auth\.example/start\), answered with form content Accept\(testform\.NameForm\{"name":"Ada"\}\): use elicittest\.AcceptURL\(\)`)

		c.Call(r, "greet", nil, elicittest.Answer{}).WantText(r, "x")
		r.want(t, `^`+head+`: answer 1 is the zero Answer: build answers with elicittest\.Accept, Decline, Cancel, Sampled, Roots or another constructor; nothing was called$`,
			`want text "x"\n\tgot  error: answer 1 is the zero Answer`)
		c.Call(r, "greet", nil, elicittest.Accept(make(chan int)))
		r.want(t, `answer 1: Accept\(chan int\): json: unsupported type: chan int; nothing was called`)
		var none map[string]any
		c.Call(r, "count", none).WantError(r, `"n" is required`) // sent as {}
		c.Call(r, "count", "null").WantError(r, `"n" is required`)
		c.Call(r, "greet", []int{1})
		r.want(t, `arguments \[1\] are not a JSON object: pass a struct, a map or nil; nothing was called`)
		c.Call(r, "greet", nil, elicittest.AcceptRaw(`{"name":`))
		r.want(t, `AcceptRaw: content "\{\\"name\\":" is not JSON`)

		c.Call(r, "hang", nil).WantText(r, "never")
		r.want(t, `"hang" on .*: no result within 500ms \(Server.CallTimeout\): a handler that never returns`, `want text "never"\n\tgot  error: .*`)

		res := c.Call(r, "count", `{"n":3}`)
		res.WantStructured(r, map[string]int{"n": 4})
		res.WantAsked(r, "Who?")
		res.WantRPCError(r, -32042)
		r.want(t, `want structured content \{"n":4\}\n\tgot  result "3" structured \{"n":3\}\n\tasked nothing$`,
			`want the questions \["Who\?"\]`, `want JSON-RPC error -32042\n\tgot  result "3"`)
	}
}

func TestMisuseIsAClearError(t *testing.T) {
	r := &recorder{TB: t}
	if elicittest.NewServer(r, nil) != nil {
		t.Error("NewServer(nil) returned a server")
	}
	var nilServer *runtime.Server
	elicittest.NewServer(r, nilServer)
	r.want(t, `^elicittest: NewServer: nil handler`, `^elicittest: NewServer: nil \*runtime\.Server: build it with runtime\.NewServer$`)

	var s *elicittest.Server
	s.Connect(r, elicittest.Conn{})
	var c *elicittest.Client
	c.Call(r, "x", nil)
	if (elicittest.Elicitation{}).Asks(nil) || (elicittest.Elicitation{Mode: "form"}).Asks(map[string]any{}) || (elicittest.Elicitation{Mode: "form"}).Asks(deploy.ConfirmForm{}) {
		t.Error("a zero Elicitation asks for a form")
	}
	if c.Protocol() != "" || c.Transport() != "" {
		t.Error("a nil Client speaks something")
	}
	var res *elicittest.Result
	if res.Asked() != nil {
		t.Error("a nil Result asked something")
	}
	res.WantText(r, "x")
	res.WantError(r, "x")
	res.WantRPCError(r, 1)
	res.WantStructured(r, "{}")
	res.WantAsked(r)
	(&elicittest.Server{}).Connect(r, elicittest.Conn{})
	r.want(t, `Connect on a nil or zero Server`, `Call on a nil Client`, `nil \*Result`, `nil \*Result`, `nil \*Result`, `nil \*Result`, `nil \*Result`,
		`Connect on a nil or zero Server`)

	other := elicittest.NewServer(t, http.NotFoundHandler())
	if got := other.Transports(); len(got) != 1 || got[0] != elicittest.HTTP {
		t.Errorf("an http.Handler is served over %v, want http only", got)
	}
	other.Connect(r, elicittest.Conn{Transport: elicittest.Stdio})
	other.Connect(r, elicittest.Conn{Transport: "carrier-pigeon"})
	other.Connect(r, elicittest.Conn{Protocol: "2024-11-05"})
	other.Connect(r, elicittest.Conn{Elicitation: 7})
	other.Connect(r, elicittest.Conn{})
	r.want(t, `stdio needs a \*runtime\.Server`, `unknown transport "carrier-pigeon": use elicittest\.HTTP or elicittest\.Stdio`,
		`unknown protocol version "2024-11-05": use one of`, `unknown Capability 7`, `^elicittest: connecting over http with protocol 2026-07-28: `)
}

// TestFailureTranscript runs TestDeliberatelyWrongExpectations in a child
// test process and checks its failure output, line for line but for the
// timings: this is what an adopter sees when a handler misbehaves.
func TestFailureTranscript(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeliberatelyWrongExpectations$", "-test.count=1")
	cmd.Env = append(os.Environ(), deliberateEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the deliberately wrong test passed:\n%s", out)
	}
	got := regexp.MustCompile(`\(\d+\.\d+s\)`).ReplaceAllString(string(out), "(TIME)")
	got = regexp.MustCompile(`(?m)^FAIL\s*$\n?`).ReplaceAllString(got, "")
	t.Logf("the child's output:\n%s", got)
	want := `--- FAIL: TestDeliberatelyWrongExpectations (TIME)
    wrong_test.go:27: elicittest: "deploy" on 2025-11-25 over http:
        	want text "deployed 4 replicas to staging on web1.example.com"
        	got  result "deployed 3 replicas to staging on web1.example.com"
        	asked:
        	  1. form "Where should the service go?" → Accept(deploy.DeployForm{"host":"web1.example.com","env":"staging","replicas":3})
        	  2. form "Deploy 3 replicas to staging on web1.example.com?" → Accept(deploy.ConfirmForm{"confirm":true})
    wrong_test.go:29: elicittest: "deploy" on 2025-11-25 over http: elicitation 2 (form "Deploy 3 replicas to staging on web1.example.com?") has no scripted answer: add one to the Call (elicittest.Accept, Decline, Cancel, ...); it was canceled
    wrong_test.go:29: elicittest: "deploy" on 2025-11-25 over http:
        	want text "deployed 3 replicas to staging on web1.example.com"
        	got  isError result "not deployed: elicit: canceled by the user"
        	asked:
        	  1. form "Where should the service go?" → Accept(deploy.DeployForm{"host":"web1.example.com","env":"staging","replicas":3})
        	  2. form "Deploy 3 replicas to staging on web1.example.com?" → canceled by elicittest
    wrong_test.go:31: elicittest: "deploy" on 2025-11-25 over http: elicitation 1 (form "Where should the service go?") did not ask for the ConfirmForm of Accept(deploy.ConfirmForm{"confirm":true}): it asks for "env", which the ConfirmForm does not have
        	asked:   {"type":"object","properties":{"host":{"type":"string","title":"Host","description":"Host to deploy to."},"env":{"type":"string","title":"Environment","description":"Environment the host belongs to.","oneOf":[{"const":"staging","title":"Staging"},{"const":"production","title":"Production"}]},"replicas":{"type":"integer","title":"Replicas","description":"Number of replicas to run.","minimum":1,"maximum":10}},"required":["host","env","replicas"]}
        	ConfirmForm is: {"type":"object","properties":{"confirm":{"type":"boolean","title":"Deploy now","description":"Deploy now?","default":false}}}
        	it was canceled; check the order of the answers
    wrong_test.go:31: elicittest: "deploy" on 2025-11-25 over http: 1 scripted answer(s) never asked for: Accept(deploy.DeployForm{"host":"web1.example.com","env":"staging","replicas":3}); the handler asked 1 question(s)
        	asked:
        	  1. form "Where should the service go?" → canceled by elicittest
    wrong_test.go:31: elicittest: "deploy" on 2025-11-25 over http:
        	want text "deployed 3 replicas to staging on web1.example.com"
        	got  isError result "not deployed: elicit: canceled by the user"
        	asked:
        	  1. form "Where should the service go?" → canceled by elicittest
    wrong_test.go:33: elicittest: "deploy.Deploy" on 2025-06-18 over stdio:
        	want an isError result containing "not deployed: the user did not confirm"
        	got  isError result "not deployed: elicit: declined by the user"
        	asked:
        	  1. form "Where should the service go?" → Decline()
    wrong_test.go:33: elicittest: "deploy.Deploy" on 2025-11-25 over stdio:
        	want an isError result containing "not deployed: the user did not confirm"
        	got  isError result "not deployed: elicit: declined by the user"
        	asked:
        	  1. form "Where should the service go?" → Decline()
    wrong_test.go:33: elicittest: "deploy.Deploy" on 2026-07-28 over stdio:
        	want an isError result containing "not deployed: the user did not confirm"
        	got  isError result "not deployed: elicit: declined by the user"
        	asked:
        	  1. form "Where should the service go?" → Decline()
`
	if got != want {
		t.Errorf("the transcript differs; want\n%s", want)
	}
}
