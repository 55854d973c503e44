package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
)

// Tasks, the 2026-07-28 extension io.modelcontextprotocol/tasks (SEP-2663):
// a tools/call of a tool whose TaskSupport allows tasks, from a client that
// declares the extension, is answered with a task handle once the task is
// in Options.Tasks.Store (at once, or, for a DeferTask tool, from the
// input_required round whose handler calls ContinueAsTask, with that
// round's answers); the handler runs in the background. When it
// elicits, the task goes input_required with the requests (tasks/get
// shows them); tasks/update brings answers, and the handler runs again
// from the top with the answers so far: the input_required round trip of
// inputrequired.go, its state kept unsealed in the store instead of in a
// requestState. So a task that waits for a person needs no process to
// wait in: a server restarted on the same store picks it up at the next
// tasks/update. See "Tasks" in the package doc for what survives.

// ExtensionTasks is the identifier of the tasks extension, in the
// client's capabilities.extensions and in server/discover.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// Defaults of TaskOptions.
const (
	DefaultTaskTTL          = 24 * time.Hour
	DefaultMaxTasksPerOwner = 100
	DefaultMaxTaskBytes     = 1 << 20
	DefaultTaskPollInterval = time.Second
)

// TaskOptions configure tasks (Options.Tasks). The zero value has no
// Store: no tool runs as a task.
type TaskOptions struct {
	// Store keeps the tasks (runtime/taskstore keeps them on local disk).
	Store TaskStore
	// TTL is how long a task lives from its creation, whatever it does
	// (DefaultTaskTTL): after it, tasks/get no longer finds it and its
	// handler, if it runs, is stopped. The server picks it: 2026-07-28
	// clients ask for none.
	TTL time.Duration
	// MaxPerOwner caps the tasks of one owner that have not expired,
	// ended ones included (the authenticated subject, or everyone together
	// when the server authenticates no one; DefaultMaxTasksPerOwner). A
	// call beyond it gets -32600 saying so.
	MaxPerOwner int
	// MaxBytes caps what a task stores of its own: the request, the
	// answers and the result (DefaultMaxTaskBytes). A result beyond it
	// fails the task; answers beyond it are refused.
	MaxBytes int
	// PollInterval is the pollIntervalMs clients are told
	// (DefaultTaskPollInterval). A running handler's lease on its task
	// (Task.Lease) lasts ten of them.
	PollInterval time.Duration
}

func (o TaskOptions) withDefaults() TaskOptions {
	if o.TTL <= 0 {
		o.TTL = DefaultTaskTTL
	}
	if o.MaxPerOwner <= 0 {
		o.MaxPerOwner = DefaultMaxTasksPerOwner
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxTaskBytes
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultTaskPollInterval
	}
	return o
}

// TaskSupport says whether a tool's calls may run as tasks.
type TaskSupport string

// The task support of a tool.
const (
	// TaskForbidden (or ""): calls never run as tasks.
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional: calls from a client that declares the tasks
	// extension (2026-07-28), and calls with params.task (a 2025-11-25
	// session), run as tasks; other calls run as usual.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: calls run as tasks; a client without the extension
	// gets -32021 naming it, a 2025-11-25 call without params.task
	// -32601.
	TaskRequired TaskSupport = "required"
)

// taskRunner is the tasks of one Server: its options and the runs going
// on in this process, by task id, so that tasks/cancel reaches them.
type taskRunner struct {
	opts    TaskOptions
	mu      sync.Mutex
	running map[string]*taskRun
	watch   *taskWatch // the open subscriptions/listen (listen.go)
}

// taskRun is a run of a task going on in this process: its cancellation,
// and done, closed when it ends.
type taskRun struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

func newTaskRunner(opts TaskOptions) *taskRunner {
	if opts.Store == nil {
		return nil
	}
	w := newTaskWatch()
	opts.Store = notifyingStore{opts.Store, w} // the runtime's writes wake the listens
	return &taskRunner{opts: opts, running: map[string]*taskRun{}, watch: w}
}

// track records a run of the task. When one is going here already, it
// returns the channel closed when that one ends instead.
func (tr *taskRunner) track(id string, cancel context.CancelCauseFunc) (busy <-chan struct{}) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if r, ok := tr.running[id]; ok {
		return r.done
	}
	tr.running[id] = &taskRun{cancel: cancel, done: make(chan struct{})}
	return nil
}

func (tr *taskRunner) untrack(id string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if r, ok := tr.running[id]; ok {
		close(r.done)
		delete(tr.running, id)
	}
}

// cancel ends the run of the task in this process, if there is one.
func (tr *taskRunner) cancel(id string, cause error) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if r, ok := tr.running[id]; ok {
		r.cancel(cause)
	}
}

// cancelAll ends every run in this process (Shutdown past its deadline):
// the tasks stay as stored.
func (tr *taskRunner) cancelAll(cause error) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, r := range tr.running {
		r.cancel(cause)
	}
}

// errTaskExpired is the cause of a run's context when its task outlives
// its TTL.
var errTaskExpired = errors.New("elicit: the task outlived its TTL (Options.Tasks.TTL)")

// errTaskCancelled is the cause of a run's context when tasks/cancel
// cancels its task.
var errTaskCancelled = errors.New("elicit: the client cancelled the task")

// checkTaskSupport panics (a set-up mistake) on a tool whose TaskSupport
// this server cannot give.
func (s *Server) checkTaskSupport(t Tool) {
	switch t.TaskSupport {
	case "", TaskForbidden:
		if t.DeferTask {
			panic(fmt.Sprintf("elicit: AddTool: tool %q has DeferTask but no TaskSupport: give it TaskOptional or TaskRequired", t.Name))
		}
	case TaskOptional, TaskRequired:
		if s.tasks == nil {
			panic(fmt.Sprintf("elicit: AddTool: tool %q allows tasks but Options.Tasks.Store is nil: give the server a store (runtime/taskstore)", t.Name))
		}
	default:
		panic(fmt.Sprintf("elicit: AddTool: tool %q has TaskSupport %q: use TaskForbidden, TaskOptional or TaskRequired", t.Name, t.TaskSupport))
	}
}

// taskSupport is the tool's task support, TaskForbidden when it has none.
func (t *registeredTool) taskSupport() TaskSupport {
	if t.tool.TaskSupport == "" {
		return TaskForbidden
	}
	return t.tool.TaskSupport
}

// declaresTasks reports whether capabilities.extensions names the tasks
// extension.
func declaresTasks(capabilities json.RawMessage) bool {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(capabilities, &caps) != nil {
		return false
	}
	v, ok := caps.Extensions[ExtensionTasks]
	return ok && len(v) > 0 && v[0] == '{'
}

// missingTasks is the -32021 of a task-only tool called by a client
// without the extension.
func missingTasks() *RPCError {
	return (&MissingCapabilityError{Capability: "extensions", Mode: ExtensionTasks}).RPCError()
}

// taskOnly is the error of a call of a TaskRequired tool in a session
// before 2025-11-25, which has no tasks (a 2025-11-25 session's is
// sessionTaskCall's).
func taskOnly(tool string) *RPCError {
	return rpcErrorf(CodeInvalidParams, "tool %q runs only as a task: call it on protocol 2026-07-28 with the extension %s declared in the request's client capabilities, or with params.task in a 2025-11-25 session", clip(tool), ExtensionTasks)
}

// taskCall is the call a task runs, as Task.Request keeps it.
type taskCall struct {
	Tool         string                     `json:"tool"`
	Arguments    json.RawMessage            `json:"arguments"`
	Meta         map[string]json.RawMessage `json:"meta,omitempty"`
	Version      string                     `json:"version"`
	Capabilities json.RawMessage            `json:"capabilities"`
	ClientInfo   json.RawMessage            `json:"clientInfo,omitempty"`
	// Session is the id of the session a 2025-11-25 task belongs to
	// (sessiontasks.go); "" for a 2026-07-28 task.
	Session string `json:"session,omitempty"`
}

// taskTurn is where a call stands with tasks, for ContinueAsTask.
type taskTurn uint8

const (
	// taskNever: the tool's calls never run as tasks (TaskForbidden).
	taskNever taskTurn = iota
	// taskSync: the call runs to its end as it is: a session's, or one
	// from a client without the extension.
	taskSync
	// taskDeferred: a round of a DeferTask tool's call, before its task
	// exists; ContinueAsTask makes the call a task.
	taskDeferred
	// taskInside: the run of a task.
	taskInside
)

// syncTurn is the turn of a call of t that runs as it is.
func (t *registeredTool) syncTurn() taskTurn {
	if t.taskSupport() == TaskForbidden {
		return taskNever
	}
	return taskSync
}

// callTurn is how a 2026-07-28 tools/call of t goes with tasks: taskInside
// when it is a task at once, taskDeferred when it starts as an ordinary
// call that ContinueAsTask may make a task, or the error of a call the
// tool refuses.
func (s *Server) callTurn(mm requestMeta, t *registeredTool) (taskTurn, *RPCError) {
	support := t.taskSupport()
	switch {
	case support == TaskForbidden:
		return taskNever, nil
	case !declaresTasks(mm.capabilities):
		if support == TaskRequired {
			return taskNever, missingTasks()
		}
		return taskSync, nil
	case s.tasks == nil: // a tool registered before the check existed cannot get here; kept for safety
		return taskSync, nil
	case t.tool.DeferTask:
		return taskDeferred, nil
	}
	return taskInside, nil
}

// ErrContinueAsTask is what ContinueAsTask returns in a round of a
// DeferTask tool's call that it has made a task's. The handler should
// return at once (returning the error is fine): the runtime answers the
// call with the task's handle, whatever the handler returns, and runs the
// handler again from the top inside the task, with the answers the call
// has had so far.
var ErrContinueAsTask = errors.New("elicit: continue as a task: the call is answered with a task, in which this handler runs again")

// errNoTaskSupport is ContinueAsTask's error for a tool without tasks.
var errNoTaskSupport = errors.New("elicit: ContinueAsTask: the tool's calls never run as tasks: give it TaskSupport TaskOptional or TaskRequired, and DeferTask")

// ContinueAsTask makes the call a task from here on: in a round of a
// DeferTask tool's 2026-07-28 call (see Tool.DeferTask), before its task
// exists, it returns ErrContinueAsTask, which the handler returns; the
// call is then answered with a task handle (resultType "task"), and the
// handler runs again in the task, where every Elicit answered so far
// returns its answer without asking again. If the round also asked
// something that is not answered yet, the call is input_required as
// usual, and the handler calls ContinueAsTask again on the retry. Inside
// the task it returns nil and the handler goes on, as it does where the
// call runs to its end without a task (a session, on 2025-11-25 and
// before, or a client without the tasks extension calling a TaskOptional
// tool). A tool whose TaskSupport is TaskForbidden gets an error, and a
// ctx that is not a tool call's ErrNoCall.
func ContinueAsTask(ctx context.Context) error {
	c, err := callFrom(ctx)
	if err != nil {
		if ctx != nil && callctx.From(ctx) != nil {
			return errors.New("elicit: ContinueAsTask: tasks run on this package's Server, not through an adapter")
		}
		return err
	}
	switch c.tasking {
	case taskNever:
		return errNoTaskSupport
	case taskDeferred:
		c.asTask.Store(true)
		return ErrContinueAsTask
	}
	return nil
}

// createTask answers a 2026-07-28 tools/call with a task, once it is in
// the store, and starts its run. mc is the run of the round the call
// became a task in (ContinueAsTask), whose answers the task keeps; nil
// for a call that is a task at once.
func (s *Server) createTask(ctx context.Context, msg *message, mm requestMeta, p callParams, mc *roundtrip.Run) reply {
	o := s.tasks.opts
	tc := taskCall{Tool: p.Name, Arguments: p.Arguments, Meta: p.Meta, Version: mm.version, Capabilities: mm.capabilities, ClientInfo: mm.clientInfo}
	request, err := json.Marshal(tc)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the task's call: %v", err))
	}
	task := s.tasks.newTask(mm.subject, o.TTL, request)
	if mc != nil {
		if task.State, err = roundtrip.AppendPlainRun(nil, stateCall("tools/call", p, mm.subject), mc, task.ExpiresAt); err != nil {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "storing the task's answers: %v", err))
		}
	}
	if size := len(request) + len(task.State); size > o.MaxBytes {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "the call takes %d bytes with its answers so far, more than a task may store (%d)", size, o.MaxBytes))
	}
	if s.shutdown.Load() {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	if rerr := s.storeNewTask(ctx, task, p.Name); rerr != nil {
		return replyError(http.StatusOK, msg.ID, rerr)
	}
	// Stored: a tasks/get finds it from now on, so the handle may go out
	// and the run begin.
	go s.runTask(task, &tc, task.State, nil)
	frame, err := encodeResponse(msg.ID, s.typedResult(s.taskFields(task), "task"))
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the task: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}

// newTask is a new task of owner, working, living ttl, leased to the run
// that is to start, its call request.
func (tr *taskRunner) newTask(owner string, ttl time.Duration, request json.RawMessage) *Task {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &Task{ID: newID(), Owner: owner, Status: TaskWorking, CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(ttl), Lease: now.Add(tr.lease()), Request: request}
}

// storeNewTask creates task in the store; the error is the call's reply
// when it could not (the owner's limit, or the store failed, logged).
func (s *Server) storeNewTask(ctx context.Context, task *Task, tool string) *RPCError {
	o := s.tasks.opts
	switch err := o.Store.Create(ctx, task, o.MaxPerOwner); {
	case errors.Is(err, ErrTaskLimit):
		return rpcErrorf(CodeInvalidRequest, "%v (%d)", err, o.MaxPerOwner)
	case err != nil:
		s.log.Error("storing a task", "tool", tool, "err", err)
		return rpcErrorf(CodeInternalError, "the task could not be stored")
	}
	return nil
}

// taskFields are the fields of a Task object of the extension.
func (s *Server) taskFields(t *Task) map[string]any {
	return s.taskObject(t, "ttlMs", "pollIntervalMs")
}

// taskObject are the fields of a Task object, ttlKey and pollKey naming
// its TTL and poll interval in milliseconds (ttlMs and pollIntervalMs in
// the 2026-07-28 extension, ttl and pollInterval on 2025-11-25).
func (s *Server) taskObject(t *Task, ttlKey, pollKey string) map[string]any {
	f := map[string]any{
		"taskId":        t.ID,
		"status":        t.Status,
		"createdAt":     t.CreatedAt.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": t.UpdatedAt.UTC().Format(time.RFC3339Nano),
		ttlKey:          t.ExpiresAt.Sub(t.CreatedAt).Milliseconds(),
		pollKey:         s.tasks.opts.PollInterval.Milliseconds(),
	}
	if t.StatusMessage != "" {
		f["statusMessage"] = t.StatusMessage
	}
	return f
}

// runTask runs the task's handler, round after round while answers that
// arrived during a round are waiting, until it completes, fails, is
// cancelled or waits for input. state and pending are the task's State
// and the responses a tasks/update took for this run (nil on its first).
func (s *Server) runTask(task *Task, tc *taskCall, state []byte, pending json.RawMessage) {
	if !s.startCall(nil) {
		return // shutting down: the task stays as stored, for the next process
	}
	defer s.endCall(nil)
	base, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// Past its TTL the task is gone from the store: its handler stops.
	ctx, stop := context.WithDeadlineCause(base, task.ExpiresAt, errTaskExpired)
	defer stop()
	// A run that a tasks/update starts may come while the run before it,
	// which stored the question, is still ending here: it waits for it.
	for busy := s.tasks.track(task.ID, cancel); busy != nil; busy = s.tasks.track(task.ID, cancel) {
		select {
		case <-busy:
		case <-ctx.Done():
			return // expired: the store no longer has the task
		}
		if s.shutdown.Load() {
			return // the task stays as stored, for the next process
		}
	}
	defer s.tasks.untrack(task.ID)
	defer s.holdLease(ctx, task.ID)()
	for more := true; more; {
		state, pending, more = s.taskRound(ctx, cancel, task, tc, state, pending)
	}
}

// holdLease renews the lease of the task's run until ctx ends or the
// function it returns is called, which waits for the renewal to stop.
func (s *Server) holdLease(ctx context.Context, id string) (release func()) {
	leased, endLease := context.WithCancel(ctx)
	var renewing sync.WaitGroup
	renewing.Go(func() { s.renewLease(leased, id) })
	return func() {
		endLease()
		renewing.Wait()
	}
}

// lease is how long a run's claim on its task (Task.Lease) lasts unless
// renewed: ten poll intervals; renewLease renews it every three.
func (tr *taskRunner) lease() time.Duration { return 10 * tr.opts.PollInterval }

// renewLease keeps the lease of the task's run until ctx ends, while the
// task has one: while it is working, and, for a 2025-11-25 task, whose
// questions wait in its process, while it is input_required too.
func (s *Server) renewLease(ctx context.Context, id string) {
	tick := time.NewTicker(s.tasks.lease() / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		_, err := s.tasks.opts.Store.Update(ctx, id, func(t *Task) error {
			if t.Status.Terminal() || t.Lease.IsZero() { // a 2026-07-28 task waiting for input has no lease
				return errTaskEnded
			}
			t.Lease = time.Now().Add(s.tasks.lease())
			return nil
		})
		if err != nil && ctx.Err() == nil && !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrTaskNotFound) {
			s.log.Error("renewing the lease of a task's run", "task", id, "err", err)
		}
	}
}

// running reports whether a run of the task goes on in this process.
func (tr *taskRunner) isRunning(id string) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	_, ok := tr.running[id]
	return ok
}

// getTask reads a task for a caller that owned admits (ErrTaskNotFound
// otherwise), failing it first when it is an orphan (failOrphan).
func (s *Server) getTask(ctx context.Context, id string, owned func(*Task) error) (*Task, error) {
	t, err := s.tasks.opts.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := owned(t); err != nil {
		return nil, err
	}
	return s.failOrphan(ctx, t), nil
}

// errTaskOrphaned fails a working task whose run stopped with its process.
var errTaskOrphaned = rpcErrorf(CodeInternalError, "the server running this task stopped before its handler finished; the handler is not run again, as it may have done part of its work: call the tool again")

// failOrphan fails t, a task tasks/get read, when it has not ended and
// its lease has lapsed with no run here: the process that ran it is gone
// (killed, or lost with its replica). A task with a lease is a working
// one, or a 2025-11-25 one waiting for input (its questions wait in its
// process). It returns the task as it is now.
func (s *Server) failOrphan(ctx context.Context, t *Task) *Task {
	if t.Status.Terminal() || t.Lease.IsZero() || time.Now().Before(t.Lease) || s.tasks.isRunning(t.ID) {
		return t
	}
	now, err := s.finishTask(ctx, t.ID, TaskFailed, nil, errTaskOrphaned, func(t *Task) bool {
		return !t.Status.Terminal() && !t.Lease.IsZero() && !time.Now().Before(t.Lease)
	})
	if err != nil {
		return t
	}
	return now
}

// taskRound is one run of the task's handler and what it leaves in the
// store; more says that answers for what it asked have already come, and
// the handler runs again with them (next and nextPending).
func (s *Server) taskRound(ctx context.Context, cancel context.CancelCauseFunc, task *Task, tc *taskCall, state []byte, pending json.RawMessage) (next []byte, nextPending json.RawMessage, more bool) {
	t, ok := s.lookupTool(tc.Tool)
	if !ok {
		s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInvalidParams, "unknown tool: %q", clip(tc.Tool)))
		return nil, nil, false
	}
	p := callParams{Name: tc.Tool, Arguments: tc.Arguments, Meta: tc.Meta}
	bound := stateCall("tools/call", p, task.Owner)
	run := &requestRun{}
	mc := &run.round
	if state == nil {
		mc.Start()
	} else {
		answers := map[string]json.RawMessage{}
		_ = json.Unmarshal(pending, &answers) // written by tasks/update: an object of objects
		err := roundtrip.ResumePlain(mc, state, bound, func(key []byte) (json.RawMessage, bool) {
			v, ok := answers[string(key)]
			return v, ok
		})
		if err != nil {
			s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInternalError, "the task's answers do not open: %v", err))
			return nil, nil, false
		}
	}
	sess := &run.sess
	sess.initView(s, tc.Version, clientFacts{caps: parseElicitCaps(tc.Capabilities), capabilities: tc.Capabilities, clientInfo: tc.ClientInfo}, task.Owner, mc)
	c := &run.call
	c.session, c.id, c.cancelF, c.sink, c.inputRequired, c.tasking = sess, taskRequestID(task.ID), cancel, taskSink{}, true, taskInside
	run.req = CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, Round: mc.Round(), call: c}
	res, rpcErr := s.runTool(run.handlerContext(ctx), inputRequiredTool(t, mc), &run.req)
	switch {
	case errors.Is(context.Cause(ctx), errTaskCancelled):
		return nil, nil, false // tasks/cancel stored the status
	case ctx.Err() != nil:
		return nil, nil, false // Shutdown: the task stays as stored
	case mc.Asked():
		return s.taskAsked(task, bound, mc)
	}
	s.endRun(task.ID, p.Name, res, rpcErr, false)
	return nil, nil, false
}

// endRun stores how a task's run of tool ended: its result (an isError
// one fails the task when isErrorFails, as on 2025-11-25) or its error.
func (s *Server) endRun(id, tool string, res *CallToolResult, rpcErr *RPCError, isErrorFails bool) {
	if rpcErr != nil {
		s.endTask(id, TaskFailed, nil, rpcErr)
		return
	}
	raw, err := json.Marshal(res)
	switch {
	case err != nil:
		s.endTask(id, TaskFailed, nil, rpcErrorf(CodeInternalError, "encoding the result of %q: %v", tool, err))
	case len(raw) > s.tasks.opts.MaxBytes:
		s.endTask(id, TaskFailed, nil, rpcErrorf(CodeInternalError, "the result of %q takes %d bytes, more than a task may store (%d)", tool, len(raw), s.tasks.opts.MaxBytes))
	case isErrorFails && res.IsError:
		s.endTask(id, TaskFailed, raw, nil)
	default:
		s.endTask(id, TaskCompleted, raw, nil)
	}
}

// taskAsked stores what a run asked: the task goes input_required, or,
// when responses for what it asked came during the run, runs again.
func (s *Server) taskAsked(task *Task, bound roundtrip.Call, mc *roundtrip.Run) ([]byte, json.RawMessage, bool) {
	asked := mc.AppendRequests(nil)
	requests := appendInputRequests(nil, asked)
	state, err := roundtrip.AppendPlainRun(nil, bound, mc, task.ExpiresAt)
	if err != nil {
		s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInternalError, "storing the task's answers: %v", err))
		return nil, nil, false
	}
	if len(requests)+len(state) > s.tasks.opts.MaxBytes {
		s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInternalError, "the task's questions and answers take more than a task may store (%d bytes)", s.tasks.opts.MaxBytes))
		return nil, nil, false
	}
	var pending json.RawMessage
	_, err = s.tasks.opts.Store.Update(context.Background(), task.ID, func(t *Task) error {
		if t.Status.Terminal() {
			return errTaskEnded
		}
		pending = keepResponses(t.InputResponses, func(key string) bool {
			return slices.ContainsFunc(asked, func(r roundtrip.Request) bool { return r.Key == key })
		})
		t.State, t.InputRequests, t.InputResponses, t.UpdatedAt = state, requests, pending, time.Now().UTC() // pending stays stored until the next run consumes it
		if pending == nil {
			t.Status, t.Lease = TaskInputRequired, time.Time{}
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, errTaskEnded) {
			s.log.Error("storing a task's input requests", "task", task.ID, "err", err)
		}
		return nil, nil, false
	}
	return state, pending, pending != nil
}

// errTaskEnded aborts a store update of a task that has ended meanwhile.
var errTaskEnded = errors.New("elicit: the task has ended")

// endTask stores the end of a task: its result or its error. A task that
// ended meanwhile (cancelled) keeps that end.
func (s *Server) endTask(id string, status TaskStatus, result json.RawMessage, rpcErr *RPCError) {
	_, err := s.finishTask(context.Background(), id, status, result, rpcErr, func(t *Task) bool { return !t.Status.Terminal() })
	if err != nil && !errors.Is(err, errTaskEnded) {
		s.log.Error("storing the end of a task", "task", id, "status", status, "err", err)
	}
}

// finishTask stores the end of a task when may says the stored task may
// still end so (errTaskEnded otherwise), and returns it as stored.
func (s *Server) finishTask(ctx context.Context, id string, status TaskStatus, result json.RawMessage, rpcErr *RPCError, may func(*Task) bool) (*Task, error) {
	var errRaw json.RawMessage
	if rpcErr != nil {
		errRaw, _ = json.Marshal(rpcErr)
	}
	return s.tasks.opts.Store.Update(ctx, id, func(t *Task) error {
		if !may(t) {
			return errTaskEnded
		}
		t.Status, t.Result, t.Error, t.UpdatedAt = status, result, errRaw, time.Now().UTC()
		if rpcErr != nil {
			t.StatusMessage = rpcErr.Message
		}
		t.State, t.InputRequests, t.InputResponses, t.Lease = nil, nil, nil, time.Time{}
		return nil
	})
}

// keepResponses returns the members of the object responses whose key
// keep accepts, nil when none.
func keepResponses(responses json.RawMessage, keep func(string) bool) json.RawMessage {
	var all map[string]json.RawMessage
	if json.Unmarshal(responses, &all) != nil {
		return nil
	}
	for k := range all {
		if !keep(k) {
			delete(all, k)
		}
	}
	if len(all) == 0 {
		return nil
	}
	raw, _ := json.Marshal(all)
	return raw
}

// taskRequestID is the request id a task's handler sees: the task id, as
// a JSON string.
func taskRequestID(id string) json.RawMessage { return appendJSONString(nil, id) }

// taskSink is the sink of a task's run: a task has no stream, so its
// notifications (progress, log) go nowhere.
type taskSink struct{}

func (taskSink) send([]byte) error        { return nil }
func (taskSink) finish(int, []byte) error { return nil }
func (taskSink) close()                   {}
func (taskSink) streaming() bool          { return false }
func (taskSink) canSend() bool            { return false }

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// parseTaskParams reads the params of a tasks/* request under the strict
// member rule (a member once, names exact: inputResponses with a key twice
// is refused, as parsers disagree on which one wins).
func parseTaskParams(msg *message) (taskParams, *RPCError) {
	var tp taskParams
	if len(msg.Params) == 0 {
		return tp, rpcErrorf(CodeInvalidParams, "%s needs params with a taskId", clip(msg.Method))
	}
	if err := roundtrip.StrictUnmarshal(msg.Params, &tp); err != nil {
		return tp, rpcErrorf(CodeInvalidParams, "invalid %s params: %v", clip(msg.Method), err)
	}
	if tp.TaskID == "" {
		return tp, rpcErrorf(CodeInvalidParams, "%s params need a taskId", clip(msg.Method))
	}
	return tp, nil
}

// taskRequest answers tasks/get, tasks/update and tasks/cancel.
func (s *Server) taskRequest(ctx context.Context, msg *message, mm requestMeta) reply {
	if s.tasks == nil {
		return replyError(http.StatusNotFound, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s (this server has no task store)", msg.Method))
	}
	if !declaresTasks(mm.capabilities) {
		return replyError(http.StatusBadRequest, msg.ID, missingTasks())
	}
	tp, rerr := parseTaskParams(msg)
	if rerr != nil {
		return replyError(http.StatusOK, msg.ID, rerr)
	}
	var (
		t   *Task
		err error
		run func()
	)
	owned := func(t *Task) error {
		if t.Owner != mm.subject || sessionOf(t) != "" { // another's task, or a session's, is not there for this caller
			return ErrTaskNotFound
		}
		return nil
	}
	store := s.tasks.opts.Store
	switch msg.Method {
	case "tasks/get":
		t, err = s.getTask(ctx, tp.TaskID, owned)
	case "tasks/update":
		responses := tp.InputResponses
		if responses == nil {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "tasks/update needs inputResponses, an object of responses by the keys of inputRequests"))
		}
		for k, v := range responses {
			if len(v) == 0 || v[0] != '{' {
				return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "inputResponses[%q] must be an object", clip(k)))
			}
		}
		t, err = store.Update(ctx, tp.TaskID, func(t *Task) error {
			run = nil // a store may call change again, on a newer task
			if err := owned(t); err != nil {
				return err
			}
			start, err := s.addResponses(t, responses)
			if start {
				// The responses stay stored until the run they start
				// stores what it asked or how it ended: a process killed
				// meanwhile loses no acknowledged answer.
				state, pending, task := t.State, t.InputResponses, *t
				run = func() { s.resumeTask(&task, state, pending) }
			}
			return err
		})
	case "tasks/cancel":
		t, err = store.Update(ctx, tp.TaskID, func(t *Task) error {
			if err := owned(t); err != nil || t.Status.Terminal() {
				return err
			}
			t.Status, t.StatusMessage, t.UpdatedAt, t.Lease = TaskCancelled, "cancelled by the client", time.Now().UTC(), time.Time{}
			t.State, t.InputRequests, t.InputResponses = nil, nil, nil
			return nil
		})
		if err == nil {
			s.tasks.cancel(tp.TaskID, errTaskCancelled)
		}
	}
	var tooBig taskTooBig
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown task: %q", clip(tp.TaskID)))
	case errors.As(err, &tooBig):
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "%v", tooBig))
	case err != nil:
		s.log.Error("reading or writing a task", "method", msg.Method, "task", tp.TaskID, "err", err)
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "the task store failed"))
	}
	if run != nil {
		go run()
	}
	if msg.Method != "tasks/get" {
		return s.completeResult(msg.ID, map[string]any{})
	}
	return s.completeResult(msg.ID, s.detailedTask(t))
}

// taskTooBig: answers that would make a task store more than MaxBytes.
type taskTooBig struct{ size, limit int }

func (e taskTooBig) Error() string {
	return fmt.Sprintf("the answers would make the task store %d bytes, more than it may (%d)", e.size, e.limit)
}

// addResponses adds to t, in a store update, the responses for keys it
// has outstanding, ignoring others (never asked, answered already,
// superseded), as the extension asks. start says that t, waiting for
// input, now has answers to run with: it is marked working, and the
// caller starts the run after the update commits.
func (s *Server) addResponses(t *Task, responses map[string]json.RawMessage) (start bool, err error) {
	if t.Status.Terminal() {
		return false, nil
	}
	var outstanding, pending map[string]json.RawMessage
	_ = json.Unmarshal(t.InputRequests, &outstanding)
	_ = json.Unmarshal(t.InputResponses, &pending)
	if pending == nil {
		pending = map[string]json.RawMessage{}
	}
	added := false
	for k, v := range responses {
		if _, asked := outstanding[k]; !asked {
			continue
		}
		if _, have := pending[k]; !have {
			pending[k], added = v, true
		}
	}
	if !added {
		return false, nil
	}
	raw, err := json.Marshal(pending)
	if err != nil {
		return false, err
	}
	if size := len(raw) + len(t.State) + len(t.Request) + len(t.InputRequests); size > s.tasks.opts.MaxBytes {
		return false, taskTooBig{size, s.tasks.opts.MaxBytes}
	}
	t.InputResponses, t.UpdatedAt = raw, time.Now().UTC()
	if t.Status != TaskInputRequired {
		return false, nil // a run is going: it reads them when it ends (taskAsked)
	}
	// Partial answers: the task stays input_required until every request
	// has its response (SEP-2663), and tasks/get shows the unanswered ones.
	left := make(map[string]json.RawMessage, len(outstanding))
	for k, v := range outstanding {
		if _, have := pending[k]; !have {
			left[k] = v
		}
	}
	if len(left) > 0 {
		if t.InputRequests, err = json.Marshal(left); err != nil {
			return false, err
		}
		return false, nil
	}
	t.Status, t.Lease = TaskWorking, time.Now().Add(s.tasks.lease())
	return true, nil
}

// resumeTask runs a stored task again with the answers a tasks/update
// brought.
func (s *Server) resumeTask(task *Task, state []byte, pending json.RawMessage) {
	var tc taskCall
	if err := json.Unmarshal(task.Request, &tc); err != nil {
		s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInternalError, "the task's call does not decode: %v", err))
		return
	}
	s.runTask(task, &tc, state, pending)
}

// discoverCapabilities are the capabilities server/discover declares: the
// tasks extension with a task store.
func (s *Server) discoverCapabilities() map[string]any {
	caps := map[string]any{"tools": map[string]any{"listChanged": false}}
	if s.tasks != nil {
		caps["extensions"] = map[string]any{ExtensionTasks: map[string]any{}}
	}
	return caps
}
