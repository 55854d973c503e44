package elicittest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
)

// A test of a handler that asks twice: where to deploy, then "are you
// sure?". In a test function, t is the *testing.T; Each would run it on
// every protocol version and transport.
func Example() {
	test(func(t testing.TB) {
		c := elicittest.NewServer(t, deploy.NewServer()).Connect(t, elicittest.Conn{Protocol: "2025-11-25", Transport: elicittest.Stdio})
		res := c.Call(t, "deploy", nil,
			elicittest.Accept(deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}),
			elicittest.Accept(deploy.ConfirmForm{Confirm: true}))
		res.WantText(t, "deployed 3 replicas to staging on web1.example.com")
		fmt.Println(res.Text)
		for _, e := range res.Asked() {
			fmt.Println(e)
		}
	})
	// Output:
	// deployed 3 replicas to staging on web1.example.com
	// form "Where should the service go?" → Accept(deploy.DeployForm{"host":"web1.example.com","env":"staging","replicas":3})
	// form "Deploy 3 replicas to staging on web1.example.com?" → Accept(deploy.ConfirmForm{"confirm":true})
}

// A handler tested without building a server: Handle serves it as the
// one tool of an in-process server and calls it on every protocol version
// (the handler runs again for each input_required round of 2026-07-28).
// Called by hand with context.Background(), it has no call to ask in.
func ExampleHandle() {
	test(func(t testing.TB) {
		res := elicittest.Handle(t, deploy.Deploy, struct{}{},
			elicittest.Accept(deploy.DeployForm{Host: "db1.example.com", Env: deploy.Production, Replicas: 2}),
			elicittest.Accept(deploy.ConfirmForm{Confirm: false}))
		res.WantError(t, "not deployed: the user did not confirm")
		for i, r := range res {
			fmt.Println(elicittest.Protocols()[i], r.Rounds, r.Text)
		}
		byHand, _ := deploy.Deploy(context.Background(), &runtime.CallToolRequest{}, struct{}{})
		fmt.Println(byHand.Content[0].Text)
	})
	// Output:
	// 2025-06-18 0 not deployed: the user did not confirm
	// 2025-11-25 0 not deployed: the user did not confirm
	// 2026-07-28 2 not deployed: the user did not confirm
	// not deployed: elicit: the context belongs to no tool call: pass the ctx the handler was given, or one derived from it; on go-sdk register the tool with gosdk.AddTool, on mcp-go make the server's adapter with mcpgo.New
}

// Content the form refuses, sent as is: the handler's answer names every
// failing property, the validate tag's included.
func ExampleAcceptRaw() {
	test(func(t testing.TB) {
		c := elicittest.NewServer(t, deploy.NewServer()).Connect(t, elicittest.Conn{})
		res := c.Call(t, "deploy", nil, elicittest.AcceptRaw(`{"host":"web 1","env":"staging","replicas":30}`))
		fmt.Println(res.IsError, res.Text)
	})
	// Output:
	// true not deployed: elicit: invalid content: "host" must be a host name; "replicas" must be at most 10
}

// Respond sees each question as the client's protocol version received
// it: a titled enum is enum and enumNames on 2025-06-18, oneOf later.
func ExampleRespond() {
	test(func(t testing.TB) {
		srv := elicittest.NewServer(t, deploy.NewServer())
		for _, version := range []string{"2025-06-18", "2025-11-25"} {
			c := srv.Connect(t, elicittest.Conn{Protocol: version})
			c.Call(t, "deploy", nil, elicittest.Respond(func(e elicittest.Elicitation) elicittest.Answer {
				var schema struct{ Properties map[string]json.RawMessage }
				if err := json.Unmarshal(e.Schema, &schema); err != nil {
					t.Errorf("schema: %v", err)
				}
				fmt.Printf("%s: %s\n", version, schema.Properties["env"])
				return elicittest.Decline()
			}))
		}
	})
	// Output:
	// 2025-06-18: {"type":"string","title":"Environment","description":"Environment the host belongs to.","enum":["staging","production"],"enumNames":["Staging","Production"]}
	// 2025-11-25: {"type":"string","title":"Environment","description":"Environment the host belongs to.","oneOf":[{"const":"staging","title":"Staging"},{"const":"production","title":"Production"}]}
}

// A client that declared no elicitation capability: the handler cannot
// ask, and says so.
func ExampleServer_Connect() {
	test(func(t testing.TB) {
		srv := elicittest.NewServer(t, deploy.NewServer())
		c := srv.Connect(t, elicittest.Conn{Protocol: "2025-06-18", Elicitation: elicittest.NoElicitation})
		c.Call(t, "deploy", nil).WantError(t, "not deployed")
		fmt.Println(c.Call(t, "deploy", nil).Text)
	})
	// Output:
	// not deployed: elicit: not supported by this client: the client did not declare form elicitation
}

// What a failing expectation prints: the call, what was wanted and got,
// and every question asked with its answer.
func ExampleResult_WantText() {
	test(func(t testing.TB) {
		c := elicittest.NewServer(t, deploy.NewServer()).Connect(t, elicittest.Conn{Protocol: "2026-07-28"})
		c.Call(t, "deploy", nil, elicittest.Decline()).WantText(t, "deployed")
	})
	// Output:
	// FAIL: elicittest: "deploy" on 2026-07-28 over http:
	// 	want text "deployed"
	// 	got  isError result "not deployed: elicit: declined by the user"
	// 	asked:
	// 	  1. form "Where should the service go?" → Decline()
}

// test runs f as a test function would run, with t printing its failures
// to standard output, so that the examples' output is checked.
func test(f func(t testing.TB)) {
	t := &printingT{}
	done := make(chan struct{})
	go func() { // Fatal ends this goroutine, as it ends a test's
		defer close(done)
		defer t.cleanup()
		f(t)
	}()
	<-done
}

// printingT is the testing.TB of the examples.
type printingT struct {
	testing.TB // nil: only the methods below are called
	mu         sync.Mutex
	cleanups   []func()
}

func (*printingT) Helper() {}
func (*printingT) Errorf(format string, args ...any) {
	fmt.Println("FAIL: " + fmt.Sprintf(format, args...))
}
func (*printingT) Error(args ...any) {
	fmt.Println("FAIL: " + strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}
func (t *printingT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	goruntime.Goexit()
}
func (t *printingT) Fatal(args ...any) {
	t.Error(args...)
	goruntime.Goexit()
}
func (t *printingT) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// TempDir is a new directory, removed at the example's end.
func (t *printingT) TempDir() string {
	dir, err := os.MkdirTemp("", "elicittest-example-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func (t *printingT) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
