package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/taskstore"
)

// Tasks (the 2026-07-28 extension io.modelcontextprotocol/tasks): the same
// tool, the same form and the same answer as the round trip, but the call
// runs as a task on the embedded store (runtime/taskstore, bbolt in a
// temporary directory). A task's life, as a client lives it: tools/call
// answered with the task, tasks/get polled until the task is
// input_required, tasks/update with the answer, tasks/get polled until it
// is completed, and its result checked.
//
// Two figures: what a task's life costs (wall time per task, at each
// concurrency, with the polls it took and the server's allocations), and
// what a task waiting for its person holds in the server's memory (heap,
// stacks, goroutines, after two GCs): the task is in the store, not in a
// goroutine.

// taskFlow is ours serving the tool as a task. It is not in flows: the
// round trips and pending elicitations do not run it.
var taskFlow = flow{"ours-task", serverOursTask, eraModern}

// serverOursTask is ours with Options.Tasks on the embedded store and the
// tool TaskRequired.
const serverOursTask = "ours-task"

// tasksExtension names the extension in the report.
const tasksExtension = runtime.ExtensionTasks

// taskMeta is the request _meta of a client that declares the tasks
// extension.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"` + runtime.ExtensionTasks + `":{}}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// maxPolls bounds the tasks/get of one wait, so that a task that never
// gets there fails the run instead of spinning.
const maxPolls = 100000

// pollPause is how long the client waits between two tasks/get of one
// task: a thousandth of the server's default pollIntervalMs, so that the
// figures show what a task costs and not how fast its client can spin.
const pollPause = time.Millisecond

// newTaskHandler is the ours-task server: its store in a temporary
// directory that stop removes.
func newTaskHandler() (*runtime.Server, func(), error) {
	dir, err := os.MkdirTemp("", "elicit-bench-tasks-")
	if err != nil {
		return nil, nil, err
	}
	store, err := taskstore.Open(filepath.Join(dir, "tasks.db"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	srv := runtime.NewServer(runtime.Options{Name: "bench", Version: "1", ElicitTimeout: -1,
		Tasks: runtime.TaskOptions{Store: store, MaxPerOwner: 1 << 30}})
	srv.AddTool(runtime.Tool{Name: toolName, TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		form, err := runtime.Elicit[AskForm](ctx, askMessage)
		if err != nil {
			return nil, err
		}
		return runtime.TextResult(form.Name + " " + strconv.FormatInt(form.Count, 10)), nil
	})
	return srv, func() {
		_ = srv.Shutdown(context.Background())
		_ = store.Close()
		_ = os.RemoveAll(dir)
	}, nil
}

// taskState is what the flows read of a Task object.
type taskState struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        json.RawMessage            `json:"result"`
	Error         json.RawMessage            `json:"error"`
}

// taskCreate calls the tool and returns its task's id.
func (w *worker) taskCreate(c *rawConn) (string, error) {
	w.id++
	w.body = append(w.body[:0], `{"jsonrpc":"2.0","id":`...)
	w.body = strconv.AppendInt(w.body, int64(w.id), 10)
	w.body = append(w.body, `,"method":"tools/call","params":{"name":"`+toolName+`","arguments":{},`+taskMeta+`}}`...)
	ts, err := w.taskPost(c, reqHeaders{version: modernVersion, method: "tools/call", name: toolName}, "tools/call")
	if err != nil {
		return "", err
	}
	if ts.ResultType != "task" || ts.TaskID == "" {
		return "", fmt.Errorf("%w: tools/call: want a task, got resultType %q", errProtocol, ts.ResultType)
	}
	return ts.TaskID, nil
}

// taskRequest posts tasks/get or tasks/update (with the answer) for id.
func (w *worker) taskRequest(c *rawConn, method, id string) (taskState, error) {
	w.id++
	w.body = append(w.body[:0], `{"jsonrpc":"2.0","id":`...)
	w.body = strconv.AppendInt(w.body, int64(w.id), 10)
	w.body = append(w.body, `,"method":"`+method+`","params":{"taskId":`...)
	w.body = strconv.AppendQuote(w.body, id) // ids are ASCII: Go and JSON quoting agree
	if method == "tasks/update" {
		w.body = append(w.body, `,"inputResponses":{"`+askKey+`":`+acceptReply+`}`...)
	}
	w.body = append(w.body, ","+taskMeta+"}}"...)
	return w.taskPost(c, reqHeaders{version: modernVersion, method: method, name: id}, method)
}

func (w *worker) taskPost(c *rawConn, h reqHeaders, what string) (taskState, error) {
	r, err := c.post(mcpPath, h, w.body)
	if err != nil {
		return taskState{}, fmt.Errorf("%s: %w", what, err)
	}
	msg, err := c.message(r)
	if err != nil {
		return taskState{}, fmt.Errorf("%s: %w", what, err)
	}
	if r.status != 200 {
		return taskState{}, fmt.Errorf("%w: %s: status %d: %.300s", errProtocol, what, r.status, msg)
	}
	m, err := parseMessage(msg)
	if err != nil {
		return taskState{}, fmt.Errorf("%s: %w", what, err)
	}
	var ts taskState
	if err := json.Unmarshal(m.Result, &ts); err != nil {
		return taskState{}, fmt.Errorf("%w: %s: %v: %.300s", errProtocol, what, err, msg)
	}
	return ts, nil
}

// taskAwait polls tasks/get until the task's status is want and returns
// it with the number of polls; a task that ends otherwise fails.
func (w *worker) taskAwait(c *rawConn, id, want string) (taskState, int, error) {
	for polls := 1; polls <= maxPolls; polls++ {
		ts, err := w.taskRequest(c, "tasks/get", id)
		if err != nil {
			return ts, polls, err
		}
		switch ts.Status {
		case want:
			return ts, polls, nil
		case "working":
			time.Sleep(pollPause)
		default:
			return ts, polls, fmt.Errorf("%w: task %s is %s (error %s), want %s", errProtocol, id, ts.Status, ts.Error, want)
		}
	}
	return taskState{}, maxPolls, fmt.Errorf("%w: task %s not %s after %d polls", errProtocol, id, want, maxPolls)
}

// taskAsk creates a task and waits until it asks; it returns the task's id
// and the polls it took.
func (w *worker) taskAsk(c *rawConn) (string, int, error) {
	id, err := w.taskCreate(c)
	if err != nil {
		return "", 0, err
	}
	ts, polls, err := w.taskAwait(c, id, "input_required")
	if err == nil && ts.InputRequests[askKey] == nil {
		err = fmt.Errorf("%w: task %s is input_required without asking %q", errProtocol, id, askKey)
	}
	return id, polls, err
}

// taskAnswer answers the task's question and waits for its result, which
// it checks; it returns the polls it took.
func (w *worker) taskAnswer(c *rawConn, id string) (int, error) {
	if _, err := w.taskRequest(c, "tasks/update", id); err != nil {
		return 0, err
	}
	ts, polls, err := w.taskAwait(c, id, "completed")
	if err == nil && !bytes.Contains(ts.Result, []byte(resultText)) {
		err = fmt.Errorf("%w: task %s completed with %.300s, want %q", errProtocol, id, ts.Result, resultText)
	}
	return polls, err
}

// taskLife is one task's whole life; it returns the polls it took.
func (w *worker) taskLife(c *rawConn) (int, error) {
	id, asked, err := w.taskAsk(c)
	if err != nil {
		return asked, err
	}
	answered, err := w.taskAnswer(c, id)
	return asked + answered, err
}

// taskCost is the cost of a task's life at one concurrency.
type taskCost struct {
	conc   int
	n      int
	wall   time.Duration
	polls  int
	allocs float64       // server allocations per task
	bytes  float64       // server bytes allocated per task
	cpu    time.Duration // server CPU time per task
}

func (t taskCost) perTask() time.Duration { return t.wall / time.Duration(max(t.n, 1)) }
func (t taskCost) pollsPerTask() float64  { return float64(t.polls) / float64(max(t.n, 1)) }

// measureTaskLives runs task lives on conc workers for d (at least one
// each) and returns their cost.
func measureTaskLives(c *child, conc int, d time.Duration) (taskCost, error) {
	workers := make([]*worker, conc)
	for i := range workers {
		workers[i] = newWorker(c.f, c.addr)
		defer workers[i].Close()
		if _, err := workers[i].taskLife(workers[i].stream); err != nil { // warm: the connections exist
			return taskCost{}, fmt.Errorf("%s: %w", c.f.name, err)
		}
	}
	before, err := c.mem(false)
	if err != nil {
		return taskCost{}, err
	}
	var (
		mu    sync.Mutex
		n     int
		polls int
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for _, w := range workers {
		wg.Go(func() {
			for {
				p, err := w.taskLife(w.stream)
				mu.Lock()
				n, polls = n+1, polls+p
				if err != nil && first == nil {
					first = fmt.Errorf("%s: %w", c.f.name, err)
				}
				stop := first != nil
				mu.Unlock()
				if stop || time.Now().After(deadline) {
					return
				}
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	if first != nil {
		return taskCost{}, first
	}
	after, err := c.mem(false)
	if err != nil {
		return taskCost{}, err
	}
	return taskCost{conc: conc, n: n, wall: wall, polls: polls,
		allocs: float64(after.AllocObjects-before.AllocObjects) / float64(n),
		bytes:  float64(after.AllocBytes-before.AllocBytes) / float64(n),
		cpu:    time.Duration((after.CPU - before.CPU) / float64(n) * 1e9)}, nil
}

// measureWaitingTasks holds n tasks waiting for their answer at once and
// returns what each holds in the server's memory; then it answers every
// one and checks its result.
func measureWaitingTasks(c *child, n int) (pendingCost, error) {
	ids := make([]string, n)
	return holdThenAnswer(c, n, "waiting task",
		func(w *worker) error { _, err := w.taskLife(w.stream); return err },
		func(w *worker, i int) (err error) {
			ids[i], _, err = w.taskAsk(w.stream)
			return err
		},
		func(w *worker, i int) error { _, err := w.taskAnswer(w.stream, ids[i]); return err })
}

// measureTasks runs the task figures into rep and their raw lines into
// tasks.txt: task lives for three windows at each concurrency, then up to
// 1000 tasks waiting at once (at most o.pending).
func measureTasks(o *options, rep *report, progress func(string, ...any)) error {
	c, err := startChild(taskFlow)
	if err != nil {
		return err
	}
	defer c.stop()
	raw := newRawFile(o.out, "tasks.txt", rep.machine)
	for _, conc := range o.concs {
		progress("tasks: lives at concurrency %d for %v", conc, 3*o.window)
		t, err := measureTaskLives(c, conc, 3*o.window)
		if err != nil {
			return err
		}
		rep.tasks = append(rep.tasks, t)
		raw.add(fmt.Sprintf("BenchmarkTaskLife/conc=%d \t%d\t%.0f ns/op\t%.1f polls/op\t%.0f server-cpu-ns/op\t%.0f B/op\t%.0f allocs/op", conc, t.n, float64(t.perTask().Nanoseconds()), t.pollsPerTask(), float64(t.cpu.Nanoseconds()), t.bytes, t.allocs))
	}
	n := min(o.pending, 1000)
	progress("tasks: %d waiting at once", n)
	if rep.waiting, err = measureWaitingTasks(c, n); err != nil {
		return err
	}
	w := rep.waiting
	raw.add(fmt.Sprintf("BenchmarkTaskWaiting \t%d\t%.0f heap-B/op\t%.0f stack-B/op\t%.3f goroutines/op", w.n, w.heap, w.stacks, w.goroutines))
	return raw.save()
}
