package runtime

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// The 2025-11-25 tasks (SEP-1686) of a session: a tools/call with
// params.task of a tool whose TaskSupport allows tasks is answered with a
// result {"task":…} once the task is in Options.Tasks.Store, and the
// handler runs in the background in this process, in the session. Its
// server requests (an Elicit's elicitation/create) and notifications carry
// the related-task _meta and wait in the task's queue (liveTask) for a
// tasks/result of the task, whose stream carries them; the client's answer
// comes back as any answer of the session does (correlate.go), and
// Session.deliver tells the task. The store keeps the record (status,
// result, error), so tasks/get, tasks/list and tasks/result read it there.

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// sessionTasksPage is how many tasks one tasks/list result holds.
const sessionTasksPage = 50

// maxTaskNotes caps the notifications a task keeps for a tasks/result
// stream that is not open: older ones are dropped.
const maxTaskNotes = 64

// servesTasks reports whether the session is on 2025-11-25 with a task
// store: its tools may run as tasks.
func (s *Server) servesTasks(sess *Session) bool {
	return s.tasks != nil && sess.protocol == Version20251125
}

// sessionTaskCapabilities are the tasks capabilities of initialize.
func sessionTaskCapabilities() map[string]any {
	return map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
}

// sessionTasks are the 2025-11-25 tasks started in one session.
type sessionTasks struct {
	mu    sync.Mutex
	live  map[string]*liveTask // running here, by task id
	asks  map[string]*liveTask // by the id of a request a task sent and awaits
	order []listedTask         // the session's tasks the store may have, oldest first
	seq   uint64               // the seq of the last task started
}

// listedTask is a task of tasks/list; seq numbers the session's tasks from
// 1, the cursor of a page being the seq it starts at (so that forgetting
// expired tasks moves no page).
type listedTask struct {
	seq uint64
	id  string
}

// liveTask is a task's run in this process: its outstanding requests and
// notifications for a tasks/result stream, and that stream when open.
type liveTask struct {
	id    string
	srv   *Server
	tasks *sessionTasks
	mu    sync.Mutex
	asks  []taskAsk // sent, unanswered: sent again on each new stream
	notes [][]byte  // notifications no stream has carried yet
	out   sink      // the open tasks/result stream (nil: none)
	ended chan struct{}
}

type taskAsk struct {
	id    string
	frame []byte
}

// taskTable returns the session's tasks, made on first use.
func (s *Session) taskTable() *sessionTasks {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = &sessionTasks{live: map[string]*liveTask{}, asks: map[string]*liveTask{}}
	}
	return s.tasks
}

// liveTaskOf returns the task's run here, nil when none.
func (s *Session) liveTaskOf(id string) *liveTask {
	s.mu.Lock()
	st := s.tasks
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.live[id]
}

// answered tells the task that sent request id that its answer came.
func (st *sessionTasks) answered(id string) {
	st.mu.Lock()
	lt := st.asks[id]
	delete(st.asks, id)
	st.mu.Unlock()
	if lt != nil {
		lt.drop(id)
	}
}

// cancelAll cancels every task running in the session.
func (st *sessionTasks) cancelAll(srv *Server, cause error) {
	st.mu.Lock()
	ids := make([]string, 0, len(st.live))
	for id := range st.live {
		ids = append(ids, id)
	}
	st.mu.Unlock()
	for _, id := range ids {
		srv.tasks.cancel(id, cause)
	}
}

// send queues a message of the task's handler, with the related-task
// _meta, and writes it on the open tasks/result stream. A request makes
// the task input_required until it is answered (drop).
func (lt *liveTask) send(frame []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &m); err != nil {
		return err
	}
	frame, err := withRelatedTask(frame, "params", lt.id)
	if err != nil {
		return err
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	switch {
	case len(m.ID) > 0:
		id, _ := stringID(m.ID)
		lt.tasks.mu.Lock()
		lt.tasks.asks[string(id)] = lt
		lt.tasks.mu.Unlock()
		lt.asks = append(lt.asks, taskAsk{id: string(id), frame: frame})
		if len(lt.asks) == 1 {
			lt.setStatusLocked(TaskInputRequired)
		}
		if lt.out != nil && lt.out.send(frame) != nil {
			lt.out = nil // sent again on the next stream
		}
	default:
		if id, ok := stringID(m.Params.RequestID); ok && m.Method == "notifications/cancelled" {
			lt.dropLocked(string(id)) // the handler gave up on a request: no longer asked (the client is told)
		}
		if len(lt.notes) == maxTaskNotes {
			lt.notes = lt.notes[1:]
		}
		lt.notes = append(lt.notes, frame)
		lt.sendNotesLocked()
	}
	return nil
}

// sendNotesLocked writes the notifications no stream has carried on the
// open stream, if any.
func (lt *liveTask) sendNotesLocked() {
	for lt.out != nil && len(lt.notes) > 0 {
		if lt.out.send(lt.notes[0]) != nil {
			lt.out = nil
			return
		}
		lt.notes = lt.notes[1:]
	}
}

// attach makes sk the task's stream and sends it what is waiting: the
// notifications no stream has carried, then every unanswered request.
func (lt *liveTask) attach(sk sink) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.out = sk
	lt.sendNotesLocked()
	for _, a := range lt.asks {
		if lt.out == nil || sk.send(a.frame) != nil {
			lt.out = nil
			return
		}
	}
}

func (lt *liveTask) detach(sk sink) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.out == sk {
		lt.out = nil
	}
}

// drop forgets an answered request; none left, the task is working.
func (lt *liveTask) drop(id string) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.dropLocked(id)
}

func (lt *liveTask) dropLocked(id string) {
	lt.tasks.mu.Lock()
	delete(lt.tasks.asks, id)
	lt.tasks.mu.Unlock()
	for i, a := range lt.asks {
		if a.id == id {
			lt.asks = append(lt.asks[:i], lt.asks[i+1:]...)
			if len(lt.asks) == 0 {
				lt.setStatusLocked(TaskWorking)
			}
			return
		}
	}
}

// setStatusLocked stores working or input_required, unless the task ended.
func (lt *liveTask) setStatusLocked(status TaskStatus) {
	_, err := lt.srv.tasks.opts.Store.Update(context.Background(), lt.id, func(t *Task) error {
		if t.Status.Terminal() {
			return errTaskEnded
		}
		t.Status, t.UpdatedAt = status, time.Now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrTaskNotFound) {
		lt.srv.log.Error("storing a task's status", "task", lt.id, "status", status, "err", err)
	}
}

func (lt *liveTask) finish(int, []byte) error { return nil }
func (lt *liveTask) close()                   {}
func (lt *liveTask) streaming() bool          { return false }
func (lt *liveTask) canSend() bool            { return true }

// withRelatedTask sets _meta[relatedTaskKey] in the object member of
// msg (member "" is msg itself) to the task id.
func withRelatedTask(msg []byte, member, id string) ([]byte, error) {
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(msg, &outer); err != nil || outer == nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	obj := outer
	if member != "" {
		obj = map[string]json.RawMessage{}
		if raw := outer[member]; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &obj); err != nil {
				return nil, err
			}
		}
	}
	meta := map[string]json.RawMessage{}
	if raw := obj["_meta"]; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	meta[relatedTaskKey] = append(append([]byte(`{"taskId":`), appendJSONString(nil, id)...), '}')
	var err error
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	if member != "" {
		if outer[member], err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	return json.Marshal(outer)
}

// callTaskParams reads params.task of a tools/call: has says it is there.
func callTaskParams(params json.RawMessage) (ttl time.Duration, has bool, rerr *RPCError) {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return 0, false, nil
	}
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Task) == 0 || string(p.Task) == "null" {
		return 0, false, nil
	}
	var tp struct {
		TTL *float64 `json:"ttl"`
	}
	if err := json.Unmarshal(p.Task, &tp); err != nil {
		return 0, true, rpcErrorf(CodeInvalidParams, "tools/call params.task must be an object with an optional ttl in milliseconds: %v", err)
	}
	if tp.TTL != nil && *tp.TTL > 0 && *tp.TTL < float64(365*24*time.Hour/time.Millisecond) {
		ttl = time.Duration(*tp.TTL) * time.Millisecond
	}
	return ttl, true, nil
}

// sessionTaskCall is sessionCall's part for tasks: done says the call is
// answered by rep (a task, or the error of a call the tool refuses).
func (s *Server) sessionTaskCall(sess *Session, msg *message, p callParams, t *registeredTool) (rep reply, done bool) {
	ttl, has, rerr := callTaskParams(msg.Params)
	switch {
	case rerr != nil:
		return replyError(http.StatusOK, msg.ID, rerr), true
	case has && t.taskSupport() == TaskForbidden:
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeMethodNotFound, "tool %q does not run as a task (its execution.taskSupport is forbidden): call it without params.task", clip(p.Name))), true
	case !has && t.taskSupport() == TaskRequired:
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeMethodNotFound, "tool %q runs only as a task (its execution.taskSupport is required): call it with params.task", clip(p.Name))), true
	case !has:
		return reply{}, false
	}
	return s.createSessionTask(sess, msg, p, t, ttl), true
}

// createSessionTask stores a 2025-11-25 task and starts its run.
func (s *Server) createSessionTask(sess *Session, msg *message, p callParams, t *registeredTool, ttl time.Duration) reply {
	o := s.tasks.opts
	if ttl <= 0 || ttl > o.TTL {
		ttl = o.TTL
	}
	tc := taskCall{Tool: p.Name, Arguments: p.Arguments, Meta: p.Meta, Version: sess.protocol, Capabilities: sess.capabilities, ClientInfo: sess.clientInfo, Session: sess.id}
	request, err := json.Marshal(tc)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the task's call: %v", err))
	}
	if len(request) > o.MaxBytes {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "the call takes %d bytes, more than a task may store (%d)", len(request), o.MaxBytes))
	}
	task := s.tasks.newTask(sess.subject, ttl, request)
	if !s.startCall(nil) {
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	if rerr := s.storeNewTask(context.Background(), task, p.Name); rerr != nil {
		s.endCall(nil)
		return replyError(http.StatusOK, msg.ID, rerr)
	}
	st := sess.taskTable()
	lt := &liveTask{id: task.ID, srv: s, tasks: st, ended: make(chan struct{})}
	base, cancel := context.WithCancelCause(context.Background())
	s.tasks.track(task.ID, cancel) // a new id: nothing runs it yet
	st.mu.Lock()
	st.live[task.ID] = lt
	st.seq++
	st.order = append(st.order, listedTask{st.seq, task.ID})
	st.mu.Unlock()
	select {
	case <-sess.done: // closed meanwhile: close did not see the task
		cancel(errTaskSessionEnded)
	default:
	}
	go s.runSessionTask(base, cancel, sess, lt, task, t, p)
	frame, err := encodeResponse(msg.ID, map[string]any{"task": s.sessionTaskFields(task)})
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the task: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}

// errTaskSessionEnded ends the run of a task whose session ended.
var errTaskSessionEnded = errors.New("elicit: the session of the task ended")

// runSessionTask runs a 2025-11-25 task's handler in its session and
// stores how it ended. base is the run's context, canceled by
// tasks/cancel, the session's end and Shutdown's deadline.
func (s *Server) runSessionTask(base context.Context, cancel context.CancelCauseFunc, sess *Session, lt *liveTask, task *Task, t *registeredTool, p callParams) {
	defer s.endCall(nil)
	defer close(lt.ended)
	defer func() {
		lt.mu.Lock()
		defer lt.mu.Unlock()
		lt.tasks.mu.Lock()
		defer lt.tasks.mu.Unlock()
		delete(lt.tasks.live, task.ID)
		for _, a := range lt.asks { // the run is over: nobody waits for them
			delete(lt.tasks.asks, a.id)
		}
		lt.asks = nil
	}()
	defer s.tasks.untrack(task.ID)
	ctx, stop := context.WithDeadlineCause(base, task.ExpiresAt, errTaskExpired)
	defer stop()
	defer s.holdLease(ctx, task.ID)()

	run := &callRun{}
	c := &run.call
	c.session, c.id, c.cancelF, c.sink, c.tasking = sess, taskRequestID(task.ID), cancel, lt, taskInside
	run.req = CallToolRequest{Session: sess, Name: p.Name, Arguments: p.Arguments, Meta: p.Meta, call: c}
	res, rpcErr := s.runTool(run.handlerContext(ctx), t, &run.req)
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errTaskCancelled):
		return // tasks/cancel stored the status
	case ctx.Err() != nil:
		s.endTask(task.ID, TaskFailed, nil, rpcErrorf(CodeInternalError, "the task's run stopped: %v", cause))
		return
	}
	s.endRun(task.ID, p.Name, res, rpcErr, true) // 2025-11-25: an isError result fails its task
}

// sessionTaskFields are the fields of a 2025-11-25 Task object.
func (s *Server) sessionTaskFields(t *Task) map[string]any {
	return s.taskObject(t, "ttl", "pollInterval")
}

// sessionOf is the session a stored task belongs to ("" for a 2026-07-28
// task).
func sessionOf(t *Task) string {
	var tc struct {
		Session string `json:"session"`
	}
	_ = json.Unmarshal(t.Request, &tc)
	return tc.Session
}

// sessionTaskRequest answers tasks/get, tasks/result, tasks/list and
// tasks/cancel in a session; ok is false for any other method.
func (s *Server) sessionTaskRequest(ctx context.Context, sess *Session, msg *message, sk sink) (rep reply, ok bool) {
	switch msg.Method {
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
	default:
		return reply{}, false
	}
	if !s.servesTasks(sess) {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s (tasks are served on protocol %s with a task store)", msg.Method, Version20251125)), true
	}
	if msg.Method == "tasks/list" {
		return s.listSessionTasks(ctx, sess, msg), true
	}
	var tp struct {
		TaskID string          `json:"taskId"`
		Meta   json.RawMessage `json:"_meta"`
	}
	if len(msg.Params) == 0 || roundtrip.StrictUnmarshal(msg.Params, &tp) != nil || tp.TaskID == "" {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "%s needs params with a taskId", msg.Method)), true
	}
	owned := func(t *Task) error {
		if t.Owner != sess.subject || sessionOf(t) != sess.id {
			return ErrTaskNotFound // another session's task is not there for this one
		}
		return nil
	}
	store := s.tasks.opts.Store
	var (
		t   *Task
		err error
	)
	switch msg.Method {
	case "tasks/get":
		t, err = s.getTask(ctx, tp.TaskID, owned)
	case "tasks/cancel":
		ended := false
		t, err = store.Update(ctx, tp.TaskID, func(t *Task) error {
			ended = false
			if err := owned(t); err != nil {
				return err
			}
			if t.Status.Terminal() {
				ended = true
				return errTaskEnded
			}
			t.Status, t.StatusMessage, t.UpdatedAt, t.Lease = TaskCancelled, "cancelled by the client", time.Now().UTC(), time.Time{}
			return nil
		})
		if ended {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "task %q has ended already: it cannot be cancelled", clip(tp.TaskID))), true
		}
		if err == nil {
			s.tasks.cancel(tp.TaskID, errTaskCancelled)
		}
	case "tasks/result":
		return s.sessionTaskResult(ctx, sess, msg, sk, tp.TaskID, owned), true
	}
	if rep, failed := taskStoreError(msg, tp.TaskID, err); failed {
		return rep, true
	}
	frame, err := encodeResponse(msg.ID, s.sessionTaskFields(t))
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the task: %v", err)), true
	}
	return reply{status: http.StatusOK, frame: frame}, true
}

// taskStoreError is the reply to a task request whose store access
// failed; failed is false when err is nil.
func taskStoreError(msg *message, id string, err error) (rep reply, failed bool) {
	switch {
	case err == nil:
		return reply{}, false
	case errors.Is(err, ErrTaskNotFound):
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "unknown task: %q", clip(id))), true
	}
	return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "the task store failed")), true
}

// sessionTaskResult answers tasks/result: once the task has ended, with
// what its tools/call would have returned; meanwhile its stream (sk)
// carries the task's requests and notifications.
func (s *Server) sessionTaskResult(ctx context.Context, sess *Session, msg *message, sk sink, id string, owned func(*Task) error) reply {
	for {
		t, err := s.getTask(ctx, id, owned)
		if rep, failed := taskStoreError(msg, id, err); failed {
			if ctx.Err() != nil {
				return cancelledReply(msg.ID)
			}
			return rep
		}
		if t.Status.Terminal() {
			return s.taskOutcome(msg, t)
		}
		var wait <-chan struct{}
		var tick *time.Timer
		if lt := sess.liveTaskOf(id); lt != nil {
			lt.attach(sk)
			wait = lt.ended
			defer lt.detach(sk)
		} else { // running elsewhere (another replica), or ending
			tick = time.NewTimer(s.tasks.opts.PollInterval)
		}
		var tc <-chan time.Time
		if tick != nil {
			tc = tick.C
		}
		select {
		case <-wait:
		case <-tc:
		case <-ctx.Done():
			return cancelledReply(msg.ID)
		case <-sess.done:
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "the session ended"))
		}
		if tick != nil {
			tick.Stop()
		}
	}
}

// taskOutcome is the reply of tasks/result for an ended task: its result,
// with the related-task _meta, or its error.
func (s *Server) taskOutcome(msg *message, t *Task) reply {
	if len(t.Result) > 0 && string(t.Result) != "null" {
		result, err := withRelatedTask(t.Result, "", t.ID)
		if err != nil {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "the task's result does not decode: %v", err))
		}
		return replyResult(msg.ID, result)
	}
	var rerr RPCError
	if len(t.Error) == 0 || json.Unmarshal(t.Error, &rerr) != nil || rerr.Code == 0 {
		rerr = RPCError{Code: CodeInternalError, Message: "the task was " + string(t.Status)}
		if t.StatusMessage != "" {
			rerr.Message += ": " + t.StatusMessage
		}
	}
	return replyError(http.StatusOK, msg.ID, &rerr)
}

// listSessionTasks answers tasks/list: the session's tasks that the store
// still has, oldest first, a page at a time.
func (s *Server) listSessionTasks(ctx context.Context, sess *Session, msg *message) reply {
	var lp struct {
		Cursor *string         `json:"cursor"`
		Meta   json.RawMessage `json:"_meta"`
	}
	if len(msg.Params) > 0 && roundtrip.StrictUnmarshal(msg.Params, &lp) != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "invalid tasks/list params"))
	}
	st := sess.taskTable()
	st.mu.Lock()
	ids := append([]listedTask(nil), st.order...)
	last := st.seq
	st.mu.Unlock()
	from := 0
	if lp.Cursor != nil {
		n, err := strconv.ParseUint(*lp.Cursor, 10, 64)
		if err != nil || n == 0 || n > last {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "invalid tasks/list cursor: %q", clip(*lp.Cursor)))
		}
		from, _ = slices.BinarySearchFunc(ids, n, func(e listedTask, n uint64) int { return cmp.Compare(e.seq, n) })
	}
	tasks := []map[string]any{}
	next := ""
	gone := map[uint64]bool{}
	defer func() {
		if len(gone) == 0 {
			return
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		st.order = slices.DeleteFunc(st.order, func(e listedTask) bool { return gone[e.seq] })
	}()
	for i := from; i < len(ids); i++ {
		if len(tasks) == sessionTasksPage {
			next = strconv.FormatUint(ids[i].seq, 10)
			break
		}
		t, err := s.tasks.opts.Store.Get(ctx, ids[i].id)
		if errors.Is(err, ErrTaskNotFound) {
			gone[ids[i].seq] = true // expired: forgotten by the session too
			continue
		}
		if err != nil {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "the task store failed"))
		}
		tasks = append(tasks, s.sessionTaskFields(s.failOrphan(ctx, t)))
	}
	result := map[string]any{"tasks": tasks}
	if next != "" {
		result["nextCursor"] = next
	}
	frame, err := encodeResponse(msg.ID, result)
	if err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInternalError, "encoding the tasks: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}
