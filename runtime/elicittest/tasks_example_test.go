package elicittest_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-elicit/elicit/examples/deploy"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// A tool that runs as a task (TaskSupport, a server with a task store)
// is tested with a call's script from a client that declares the tasks
// extension: Call polls the task, answers its questions with
// tasks/update and returns its result. CancelTask, as an answer,
// cancels the task instead.
func ExampleCancelTask() {
	test(func(t testing.TB) {
		store, err := taskstore.Open(filepath.Join(t.TempDir(), "tasks.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: 10 * time.Millisecond}})
		runtime.AddTool(srv, runtime.Tool{Name: "deploy", TaskSupport: runtime.TaskOptional}, deploy.Deploy)

		c := elicittest.NewServer(t, srv).Connect(t, elicittest.Conn{Tasks: true})
		res := c.Call(t, "deploy", nil,
			elicittest.Accept(deploy.DeployForm{Host: "web1.example.com", Env: deploy.Staging, Replicas: 3}),
			elicittest.Accept(deploy.ConfirmForm{Confirm: true}))
		res.WantText(t, "deployed 3 replicas to staging on web1.example.com")
		fmt.Println(res.TaskStatus, res.Rounds, res.Text)

		res = c.Call(t, "deploy", nil, elicittest.CancelTask())
		fmt.Println(res.TaskStatus, res.Err)
	})
	// Output:
	// completed 2 deployed 3 replicas to staging on web1.example.com
	// cancelled elicittest: the task was cancelled (cancelled by the client)
}
