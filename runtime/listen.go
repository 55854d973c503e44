package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// Task status notifications: a 2026-07-28 subscriptions/listen whose
// params.notifications names taskIds is answered with a stream (the POST's
// reply upgraded to SSE, or lines on stdio) that carries
// notifications/subscriptions/acknowledged with the ids accepted (tasks
// that exist and are the caller's), then a notifications/tasks with each
// accepted task as tasks/get shows it, then one whenever its status or
// lastUpdatedAt changes, until it ends. The store is the source of truth:
// the listen reads its tasks every TaskOptions.PollInterval, so it sees
// what another replica, or a restarted process, wrote; a write of this
// process wakes it at once (notifyingStore). It ends gracefully, with the
// listen's result, once every accepted task has been sent ended (or is
// gone), and when the server shuts down; it ends without a response when
// the client goes away or cancels it.

// Bounds of subscriptions/listen.
const (
	// maxListenTaskIDs caps the taskIds of one listen.
	maxListenTaskIDs = 100
	// maxListensPerSubject caps the open listens of one subject (everyone
	// together when the server authenticates no one).
	maxListensPerSubject = 16
)

// metaSubscriptionID is the _meta key that names, on every message of a
// listen stream, the listen's request id.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// taskWatch is the open listens of one Server: by the task ids they
// watch, to wake them when this process changes a task, and by subject,
// for maxListensPerSubject.
type taskWatch struct {
	mu     sync.Mutex
	byTask map[string]map[*taskListener]struct{}
	open   map[string]int
}

func newTaskWatch() *taskWatch {
	return &taskWatch{byTask: map[string]map[*taskListener]struct{}{}, open: map[string]int{}}
}

// taskListener is one listen: the ids changed since it last looked, and
// the channel that wakes it.
type taskListener struct {
	wake  chan struct{}
	mu    sync.Mutex
	dirty map[string]struct{}
}

// changed takes the ids changed since the last call.
func (l *taskListener) changed() map[string]struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.dirty
	l.dirty = nil
	return d
}

// openListen counts a listen of subject in; false past the cap.
func (w *taskWatch) openListen(subject string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open[subject] >= maxListensPerSubject {
		return false
	}
	w.open[subject]++
	return true
}

func (w *taskWatch) closeListen(subject string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open[subject]--; w.open[subject] <= 0 {
		delete(w.open, subject)
	}
}

// add makes l woken by changes of the tasks ids.
func (w *taskWatch) add(l *taskListener, ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		m := w.byTask[id]
		if m == nil {
			m = map[*taskListener]struct{}{}
			w.byTask[id] = m
		}
		m[l] = struct{}{}
	}
}

// remove undoes add for the ids.
func (w *taskWatch) remove(l *taskListener, ids []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		if m := w.byTask[id]; m != nil {
			delete(m, l)
			if len(m) == 0 {
				delete(w.byTask, id)
			}
		}
	}
}

// notify wakes the listens that watch the task.
func (w *taskWatch) notify(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for l := range w.byTask[id] {
		l.mu.Lock()
		if l.dirty == nil {
			l.dirty = map[string]struct{}{}
		}
		l.dirty[id] = struct{}{}
		l.mu.Unlock()
		select {
		case l.wake <- struct{}{}:
		default: // already due to wake
		}
	}
}

// notifyingStore is the task store as the runtime writes it: an update
// that changes a task's status or lastUpdatedAt wakes the listens of this
// process that watch it. Every store write of the runtime goes through
// it, so a listen hears of this process's changes without waiting for
// its next poll.
type notifyingStore struct {
	TaskStore
	watch *taskWatch
}

func (n notifyingStore) Update(ctx context.Context, id string, change func(*Task) error) (*Task, error) {
	var moved bool
	t, err := n.TaskStore.Update(ctx, id, func(t *Task) error {
		status, updated := t.Status, t.UpdatedAt
		moved = false // a store may call change again, on a newer task
		if err := change(t); err != nil {
			return err
		}
		moved = t.Status != status || !t.UpdatedAt.Equal(updated)
		return nil
	})
	if err == nil && moved {
		n.watch.notify(id)
	}
	return t, err
}

// detailedTask is a task as tasks/get and notifications/tasks show it:
// its fields and what its status carries.
func (s *Server) detailedTask(t *Task) map[string]any {
	res := s.taskFields(t)
	switch t.Status {
	case TaskInputRequired:
		res["inputRequests"] = t.InputRequests
	case TaskCompleted:
		res["result"] = t.Result
	case TaskFailed:
		res["error"] = t.Error
	}
	return res
}

// listenParams are the params of subscriptions/listen this server reads:
// the taskIds of the filter (the other kinds are not served, so not
// acknowledged).
type listenParams struct {
	Notifications *struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
}

// listen answers subscriptions/listen (see the top of this file).
func (s *Server) listen(ctx context.Context, msg *message, mm requestMeta, sk sink) reply {
	if s.tasks == nil { // no task store: nothing to listen to
		return replyError(http.StatusNotFound, msg.ID, rpcErrorf(CodeMethodNotFound, "method not found: %s (this server has no task store, and sends no notifications)", msg.Method))
	}
	var p listenParams
	if err := roundtrip.StrictUnmarshal(msg.Params, &p); err != nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "invalid subscriptions/listen params: %v", err))
	}
	if p.Notifications == nil {
		return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "subscriptions/listen needs params.notifications, the notifications to listen to"))
	}
	asked := p.Notifications.TaskIDs != nil
	var ids []string // once each, in the order asked
	seen := map[string]bool{}
	for _, id := range p.Notifications.TaskIDs {
		if seen[id] {
			continue
		}
		if seen[id], ids = true, append(ids, id); len(ids) > maxListenTaskIDs {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidParams, "subscriptions/listen names more than the %d taskIds one listen may watch", maxListenTaskIDs))
		}
	}
	if len(ids) > 0 && !declaresTasks(mm.capabilities) {
		return replyError(http.StatusBadRequest, msg.ID, missingTasks())
	}
	if !sk.canSend() {
		return replyError(http.StatusNotAcceptable, msg.ID, rpcErrorf(CodeInvalidRequest, "subscriptions/listen answers with a stream: the Accept header must allow text/event-stream"))
	}
	w := s.tasks.watch
	if !w.openListen(mm.subject) {
		return replyError(http.StatusTooManyRequests, msg.ID, rpcErrorf(CodeInvalidRequest, "too many open subscriptions/listen streams for this caller (%d): close one first", maxListensPerSubject))
	}
	defer w.closeListen(mm.subject)
	if !s.startCall(nil) { // counted, so that Shutdown waits for its closing result
		return replyError(http.StatusServiceUnavailable, msg.ID, rpcErrorf(CodeInternalError, "server is shutting down"))
	}
	defer s.endCall(nil)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if mm.calls != nil { // stdio: notifications/cancelled ends the listen
		c := &call{id: msg.ID, key: idKey(msg.ID), cancelF: cancel}
		if !mm.calls.add(c) {
			return replyError(http.StatusOK, msg.ID, rpcErrorf(CodeInvalidRequest, "request id %s is already running", msg.ID))
		}
		defer mm.calls.remove(c)
	}
	l := &taskListener{wake: make(chan struct{}, 1)}
	w.add(l, ids) // before the first read: a change after it wakes l
	defer w.remove(l, ids)
	ls := &listenStream{srv: s, sk: sk, id: msg.ID, subject: mm.subject, sent: map[string]sentTask{}}
	var first []*Task
	accepted := []string{}
	for _, id := range ids {
		if t, _ := ls.read(ctx, id); t != nil {
			first = append(first, t)
			accepted = append(accepted, id)
		}
	}
	w.remove(l, slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(accepted, id) }))
	filter := map[string]any{}
	if asked {
		filter["taskIds"] = accepted
	}
	if ls.notify("notifications/subscriptions/acknowledged", map[string]any{"notifications": filter}) != nil {
		return cancelledReply(msg.ID)
	}
	for _, t := range first {
		if ls.send(t) != nil {
			return cancelledReply(msg.ID)
		}
	}
	tick := time.NewTimer(s.tasks.opts.PollInterval)
	defer tick.Stop()
	for len(ls.sent) > 0 {
		var due map[string]struct{} // nil: every watched task
		select {
		case <-ctx.Done(): // the client went away or cancelled (stdio), or the stdio connection ended
			return cancelledReply(msg.ID)
		case <-s.stopping:
			return ls.closing()
		case <-l.wake:
			due = l.changed()
		case <-tick.C:
			tick.Reset(s.tasks.opts.PollInterval)
		}
		for id := range ls.sent {
			if _, ok := due[id]; due != nil && !ok {
				continue
			}
			t, gone := ls.read(ctx, id)
			switch {
			case gone:
				delete(ls.sent, id) // expired, or deleted: there is nothing more to say of it
			case t != nil && ls.send(t) != nil:
				return cancelledReply(msg.ID)
			}
		}
	}
	return ls.closing() // every task it watched has ended
}

// listenStream is the state of one listen: what it sent of each task it
// still watches.
type listenStream struct {
	srv     *Server
	sk      sink
	id      json.RawMessage
	subject string
	sent    map[string]sentTask
}

// sentTask is what a notifications/tasks said of a task: nothing yet
// (zero) or its status and lastUpdatedAt.
type sentTask struct {
	status  TaskStatus
	updated time.Time
}

// read is the task as tasks/get would show it to the listen's caller.
// gone says it is not there for the caller (missing, expired, another's);
// t is nil then, and when the store fails (logged: the next poll tries
// again).
func (ls *listenStream) read(ctx context.Context, id string) (t *Task, gone bool) {
	t, err := ls.srv.tasks.opts.Store.Get(ctx, id)
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, true
	case err != nil:
		if ctx.Err() == nil {
			ls.srv.log.Error("reading a task for subscriptions/listen", "task", id, "err", err)
		}
		return nil, false
	case t.Owner != ls.subject, sessionOf(t) != "": // another's task, or a session's (sessiontasks.go)
		return nil, true
	}
	return ls.srv.failOrphan(ctx, t), false
}

// send sends t when its status or lastUpdatedAt differs from what was
// sent of it, and stops watching it once it has ended.
func (ls *listenStream) send(t *Task) error {
	now := sentTask{t.Status, t.UpdatedAt}
	if last, ok := ls.sent[t.ID]; ok && last.status == now.status && last.updated.Equal(now.updated) {
		return nil
	}
	if err := ls.notify("notifications/tasks", ls.srv.detailedTask(t)); err != nil {
		return err
	}
	if t.Status.Terminal() {
		delete(ls.sent, t.ID)
	} else {
		ls.sent[t.ID] = now
	}
	return nil
}

// notify sends a notification of the listen, its id in _meta.
func (ls *listenStream) notify(method string, params map[string]any) error {
	params["_meta"] = map[string]any{metaSubscriptionID: ls.id}
	frame, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	return ls.sk.send(frame)
}

// closing is the listen's result: the end of a subscription the server
// ends, its id in _meta.
func (ls *listenStream) closing() reply {
	res := ls.srv.typedResult(map[string]any{}, "complete")
	res["_meta"].(map[string]any)[metaSubscriptionID] = ls.id
	frame, err := encodeResponse(ls.id, res)
	if err != nil {
		return replyError(http.StatusOK, ls.id, rpcErrorf(CodeInternalError, "encoding the result: %v", err))
	}
	return reply{status: http.StatusOK, frame: frame}
}
