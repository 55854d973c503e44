package taskstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"go.uber.org/goleak"
)

// listenMessage is one message of a subscriptions/listen stream: a
// notification, or the listen's result.
type listenMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications map[string]json.RawMessage `json:"notifications"`
		ResultType    *string                    `json:"resultType"`
		TaskID        string                     `json:"taskId"`
		Status        runtime.TaskStatus         `json:"status"`
		LastUpdatedAt string                     `json:"lastUpdatedAt"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		Result        *runtime.CallToolResult    `json:"result"`
		Error         *runtime.RPCError          `json:"error"`
	} `json:"params"`
	Result *struct {
		ResultType string                     `json:"resultType"`
		TaskID     string                     `json:"taskId"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	} `json:"result"`
	Error *runtime.RPCError `json:"error"`
}

// listenStream is an open subscriptions/listen: its messages as they come.
type listenStream struct {
	msgs chan listenMessage
	// comments counts the SSE comment lines (keep-alives) read.
	comments atomic.Int32
	done     chan struct{} // closed when the stream has ended and its reader returned
	cancel   context.CancelFunc
}

// listenClient opens every listen on a connection of its own, which ends
// with it: the server's goroutine for it is the listen's alone.
var listenClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// listenID is the request id of every listen the tests open.
const listenID = `"listen-1"`

// listenParams are the params of a listen for the task ids.
func listenParams(ids ...string) string {
	raw, _ := json.Marshal(ids)
	return `"notifications":{"taskIds":` + string(raw) + `,"toolsListChanged":true}`
}

// openListen sends subscriptions/listen as subject and returns its stream;
// a reply that is not a stream is returned as the error response.
func openListen(t *testing.T, url, subject, params, caps string) (*listenStream, int, response) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	body := `{"jsonrpc":"2.0","id":` + listenID + `,"method":"subscriptions/listen","params":{` + params + `,` + meta + `}}`
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(runtime.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(runtime.HeaderMethod, "subscriptions/listen")
	if subject != "" {
		req.Header.Set(subjectHeader, subject)
	}
	resp, err := listenClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		defer cancel()
		defer resp.Body.Close()
		var r response
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatalf("subscriptions/listen: HTTP %d, %s, undecodable: %v", resp.StatusCode, ct, err)
		}
		return nil, resp.StatusCode, r
	}
	ls := &listenStream{msgs: make(chan listenMessage, 64), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(ls.done)
		defer resp.Body.Close()
		defer close(ls.msgs)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), ":") {
				ls.comments.Add(1)
			}
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m listenMessage
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				m.Method = "undecodable: " + data
			}
			ls.msgs <- m
		}
	}()
	t.Cleanup(func() { ls.cancel(); <-ls.done })
	return ls, resp.StatusCode, response{}
}

// next is the stream's next message; it fails the test after 10 s or at
// the stream's end.
func (ls *listenStream) next(t *testing.T) listenMessage {
	t.Helper()
	select {
	case m, ok := <-ls.msgs:
		if !ok {
			t.Fatal("the listen stream ended")
		}
		if strings.HasPrefix(m.Method, "undecodable") {
			t.Fatal(m.Method)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message on the listen stream in 10 s")
	}
	return listenMessage{}
}

// mustListen opens a listen that must be a stream.
func mustListen(t *testing.T, url, subject string, ids ...string) *listenStream {
	t.Helper()
	ls, status, r := openListen(t, url, subject, listenParams(ids...), tasksCaps)
	if ls == nil {
		t.Fatalf("subscriptions/listen: HTTP %d, %+v", status, r)
	}
	return ls
}

// settled reads notifications/tasks of the task until one says it is not
// working, and returns it.
func (ls *listenStream) settled(t *testing.T, id string) listenMessage {
	t.Helper()
	m := ls.task(t, id)
	for m.Params.Status == runtime.TaskWorking {
		m = ls.task(t, id)
	}
	return m
}

// completed reads the task's completion, with the text, and the end of
// the subscription that follows.
func (ls *listenStream) completed(t *testing.T, id, text string) {
	t.Helper()
	m := ls.settled(t, id)
	if r := m.Params.Result; m.Params.Status != runtime.TaskCompleted || r == nil || len(r.Content) != 1 || r.Content[0].Text != text {
		t.Fatalf("task %+v: want completed with %q", m.Params, text)
	}
	ls.closed(t)
}

// ack reads the acknowledgement and returns the task ids it accepts.
func (ls *listenStream) ack(t *testing.T) []string {
	t.Helper()
	m := ls.next(t)
	if m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %+v: want the acknowledgement", m)
	}
	wantSubscription(t, m.Method, m.Params.Meta)
	if _, ok := m.Params.Notifications["toolsListChanged"]; ok || len(m.Params.Notifications) > 1 {
		t.Errorf("the acknowledgement %s acknowledges what is not served", m.Params.Notifications)
	}
	var ids []string
	if raw, ok := m.Params.Notifications["taskIds"]; ok {
		if err := json.Unmarshal(raw, &ids); err != nil || ids == nil {
			t.Fatalf("acknowledged taskIds %s: %v", raw, err)
		}
	}
	return ids
}

// task reads a notifications/tasks of the task.
func (ls *listenStream) task(t *testing.T, id string) listenMessage {
	t.Helper()
	m := ls.next(t)
	if m.Method != "notifications/tasks" || m.Params.TaskID != id {
		t.Fatalf("message %+v: want notifications/tasks of %s", m, id)
	}
	wantSubscription(t, m.Method, m.Params.Meta)
	if m.Params.ResultType != nil {
		t.Errorf("notifications/tasks carries resultType %q", *m.Params.ResultType)
	}
	return m
}

// closed reads the listen's result (the server ended the subscription)
// and the stream's end.
func (ls *listenStream) closed(t *testing.T) {
	t.Helper()
	m := ls.next(t)
	if string(m.ID) != listenID || m.Result == nil || m.Result.ResultType != "complete" {
		t.Fatalf("message %+v: want the listen's result", m)
	}
	wantSubscription(t, "the listen's result", m.Result.Meta)
	ls.ends(t, "after the listen's result")
}

// ends checks that the stream ends with no more messages.
func (ls *listenStream) ends(t *testing.T, when string) {
	t.Helper()
	select {
	case m, ok := <-ls.msgs:
		if ok {
			t.Fatalf("%s: %+v", when, m)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the stream goes on", when)
	}
}

func wantSubscription(t *testing.T, what string, meta map[string]json.RawMessage) {
	t.Helper()
	if got := string(meta["io.modelcontextprotocol/subscriptionId"]); got != listenID {
		t.Errorf("%s: _meta subscriptionId %q, want the listen's id %s", what, got, listenID)
	}
}

// TestListenFollowsTask: a listen on a task that elicits hears it go
// input_required, with the request, and, after tasks/update, completed
// with the result; then the server ends the subscription. The poll
// interval is an hour: what it hears comes from this process's own
// writes, at once.
func TestListenFollowsTask(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: time.Hour})
	id := startTask(t, url, "approve", time.Hour.Milliseconds())
	ls := mustListen(t, url, "", id, id, "no-such-task")
	if got := ls.ack(t); len(got) != 1 || got[0] != id {
		t.Fatalf("acknowledged %q, want [%s] (once, the unknown id left out)", got, id)
	}
	m := ls.settled(t, id)
	if m.Params.Status != runtime.TaskInputRequired || len(m.Params.InputRequests) != 1 {
		t.Fatalf("task %+v: want input_required with one request", m.Params)
	}
	var key string
	for k, v := range m.Params.InputRequests {
		key = k
		if msg := elicitMessage(t, v); msg != "Who approves the deploy?" {
			t.Errorf("the request asks %q", msg)
		}
	}
	if got := getTask(t, url, id); got.Result.LastUpdatedAt != m.Params.LastUpdatedAt || got.Result.Status != m.Params.Status {
		t.Errorf("notifications/tasks says %s at %s, tasks/get %s at %s", m.Params.Status, m.Params.LastUpdatedAt, got.Result.Status, got.Result.LastUpdatedAt)
	}
	updateTask(t, url, id, `{"`+key+`":{"action":"accept","content":{"name":"Ann"}}}`)
	ls.completed(t, id, "deployed, approved by Ann")
}

// TestListenHearsPartialAnswers: an answer to one of two questions leaves
// the task input_required, and its lastUpdatedAt changed: the listen hears
// it, with only the question left.
func TestListenHearsPartialAnswers(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{PollInterval: time.Hour}, func(srv *runtime.Server) {
		srv.AddTool(runtime.Tool{Name: "both", TaskSupport: runtime.TaskRequired}, func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			names := make([]any, 2)
			ask := func(i int) func(context.Context) error {
				return func(ctx context.Context) error {
					got, err := runtime.ElicitSchema(ctx, fmt.Sprint("Approver ", i, "?"), approveSchema)
					names[i] = got["name"]
					return err
				}
			}
			if err := runtime.AskTogether(ctx, ask(0), ask(1)); err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("%v and %v", names...)), nil
		})
	})
	id := startTask(t, url, "both", time.Hour.Milliseconds())
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	m := ls.settled(t, id)
	if m.Params.Status != runtime.TaskInputRequired || len(m.Params.InputRequests) != 2 {
		t.Fatalf("task %+v: want input_required with two requests", m.Params)
	}
	updateTask(t, url, id, `{"elicit":{"action":"accept","content":{"name":"ada"}}}`)
	partial := ls.task(t, id)
	if _, left := partial.Params.InputRequests["elicit_2"]; partial.Params.Status != runtime.TaskInputRequired || len(partial.Params.InputRequests) != 1 || !left || partial.Params.LastUpdatedAt == m.Params.LastUpdatedAt {
		t.Fatalf("after one answer of two: %+v, want input_required with elicit_2 alone, updated after %s", partial.Params, m.Params.LastUpdatedAt)
	}
	updateTask(t, url, id, `{"elicit_2":{"action":"accept","content":{"name":"bob"}}}`)
	ls.completed(t, id, "ada and bob")
}

// TestListenAcrossServers: two servers on one store, as two replicas
// would be: the listen on one hears, by its poll of the store, what the
// other's run of the task stores.
func TestListenAcrossServers(t *testing.T) {
	const poll = 50 * time.Millisecond
	store := openStore(t, filepath.Join(t.TempDir(), "shared.db"))
	t.Cleanup(func() { _ = store.Close() }) // after the servers' cleanups
	urls := make([]string, 2)
	for i := range urls {
		srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store, PollInterval: poll}})
		addTaskTools(srv)
		urls[i] = serve(t, srv)
	}
	id := startTask(t, urls[0], "approve", poll.Milliseconds())
	ls := mustListen(t, urls[1], "", id)
	if got := ls.ack(t); len(got) != 1 {
		t.Fatalf("acknowledged %q, want [%s]", got, id)
	}
	m := ls.settled(t, id)
	if m.Params.Status != runtime.TaskInputRequired || len(m.Params.InputRequests) != 1 {
		t.Fatalf("task %+v: want input_required with one request", m.Params)
	}
	for key := range m.Params.InputRequests {
		updateTask(t, urls[0], id, `{"`+key+`":{"action":"accept","content":{"name":"Bo"}}}`)
	}
	ls.completed(t, id, "deployed, approved by Bo")
}

// TestListenOnlyOwnTasks: another subject's task is not acknowledged (nor
// said to exist), and a listen left with nothing it serves ends at once.
func TestListenOnlyOwnTasks(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	_, r := postAs(t, url, "bob", "tools/call", "approve", `"name":"approve","arguments":{}`, tasksCaps)
	if r.Result.TaskID == "" {
		t.Fatalf("bob's task: %+v", r)
	}
	ls, status, rr := openListen(t, url, "alice", listenParams(r.Result.TaskID), tasksCaps)
	if ls == nil {
		t.Fatalf("subscriptions/listen: HTTP %d, %+v", status, rr)
	}
	if got := ls.ack(t); len(got) != 0 {
		t.Errorf("alice's listen acknowledges bob's task: %q", got)
	}
	ls.closed(t)
	// Nothing but kinds this server does not send: acknowledged empty,
	// and ended.
	ls, status, rr = openListen(t, url, "alice", `"notifications":{"toolsListChanged":true}`, `{}`)
	if ls == nil {
		t.Fatalf("subscriptions/listen without taskIds: HTTP %d, %+v", status, rr)
	}
	if got := ls.ack(t); got != nil {
		t.Errorf("a listen that asks no taskIds is acknowledged taskIds %q", got)
	}
	ls.closed(t)
}

// TestListenBounds: the refusals of subscriptions/listen, each with its
// code, and the cap on open listens of one subject, whose slots a closed
// listen gives back.
func TestListenBounds(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	id := startTask(t, url, "approve", runtime.DefaultTaskPollInterval.Milliseconds())
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprint("t", i)
	}
	huge := make([]string, 200000) // a request the body limit lets through: refused without reading it all
	for i := range huge {
		huge[i] = fmt.Sprint(i)
	}
	same := make([]string, 500) // one id many times is one id
	for i := range same {
		same[i] = id
	}
	for _, c := range []struct {
		what, params, caps string
		status, code       int
		says               string
	}{
		{"101 taskIds", listenParams(many...), tasksCaps, http.StatusOK, runtime.CodeInvalidParams, "100"},
		{"200000 taskIds", listenParams(huge...), tasksCaps, http.StatusOK, runtime.CodeInvalidParams, "100"},
		{"no notifications", `"x":1`, tasksCaps, http.StatusOK, runtime.CodeInvalidParams, "params.notifications"},
		{"taskIds not strings", `"notifications":{"taskIds":[1]}`, tasksCaps, http.StatusOK, runtime.CodeInvalidParams, "invalid"},
		{"taskIds twice", `"notifications":{"taskIds":[],"taskIds":["x"]}`, tasksCaps, http.StatusOK, runtime.CodeInvalidParams, "more than once"},
		{"no tasks extension", listenParams(id), `{}`, http.StatusBadRequest, runtime.CodeMissingCapability, ""},
	} {
		ls, status, r := openListen(t, url, "", c.params, c.caps)
		if ls != nil {
			t.Fatalf("%s: a stream", c.what)
		}
		wantError(t, c.what, status, r, c.status, c.code, c.says)
	}
	_, status, r := openListenAccept(t, url, listenParams(id), "application/json")
	wantError(t, "Accept without text/event-stream", status, r, http.StatusNotAcceptable, runtime.CodeInvalidRequest, "text/event-stream")
	if got := mustListen(t, url, "", same...).ack(t); len(got) != 1 || got[0] != id {
		t.Errorf("a listen naming one task 500 times acknowledges %q", got)
	}

}

// TestListenCap: one subject holds at most 16 open listens; the 17th is
// refused, and a listen whose client went away gives its slot back.
func TestListenCap(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	id := startTask(t, url, "approve", runtime.DefaultTaskPollInterval.Milliseconds())
	pollTask(t, url, id, runtime.TaskInputRequired) // it stays so: every listen on it stays open
	open := make([]*listenStream, 16)
	for i := range open {
		ls, status, r := openListen(t, url, "", listenParams(id), tasksCaps)
		if ls == nil {
			t.Fatalf("listen %d: HTTP %d, %+v", i, status, r)
		}
		ls.ack(t)
		ls.task(t, id)
		open[i] = ls
	}
	ls, status, r := openListen(t, url, "", listenParams(id), tasksCaps)
	if ls != nil {
		t.Fatal("a 17th listen of one subject is open")
	}
	wantError(t, "a 17th listen", status, r, http.StatusTooManyRequests, runtime.CodeInvalidRequest, "16")
	_, dave := postAs(t, url, "dave", "tools/call", "approve", `"name":"approve","arguments":{}`, tasksCaps)
	if ls, status, r := openListen(t, url, "dave", listenParams(dave.Result.TaskID), tasksCaps); ls == nil {
		t.Errorf("another subject's listen is refused by the first one's cap: HTTP %d, %+v", status, r)
	} else if got := ls.ack(t); len(got) != 1 {
		t.Errorf("dave's listen acknowledges %q", got)
	}
	open[0].cancel()
	<-open[0].done
	deadline := time.Now().Add(10 * time.Second)
	for {
		ls, status, r := openListen(t, url, "", listenParams(id), tasksCaps)
		if ls != nil {
			ls.ack(t)
			break
		}
		if status != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("after a listen's client went away: HTTP %d, %+v", status, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestListenClientGoesAway: when the client closes a listen's stream, its
// goroutine ends: nothing is left running that was not before it.
func TestListenClientGoesAway(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{})
	id := startTask(t, url, "approve", runtime.DefaultTaskPollInterval.Milliseconds())
	pollTask(t, url, id, runtime.TaskInputRequired)
	before := goleak.IgnoreCurrent()
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	ls.task(t, id)
	ls.cancel()
	<-ls.done
	if err := goleak.Find(before,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	); err != nil {
		t.Errorf("after the client closed its listen: %v", err)
	}
}

// TestListenEndsOnShutdown: Shutdown ends an open listen gracefully, with
// the listen's result, and does not wait for it otherwise.
func TestListenEndsOnShutdown(t *testing.T) {
	var srv *runtime.Server
	url, _ := startServer(t, runtime.TaskOptions{}, func(s *runtime.Server) { srv = s })
	id := startTask(t, url, "approve", runtime.DefaultTaskPollInterval.Milliseconds())
	pollTask(t, url, id, runtime.TaskInputRequired)
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	ls.task(t, id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a listen open: %v", err)
	}
	ls.closed(t)
}

// TestListenKeepsAlive: a quiet listen stream carries SSE comments every
// Options.StreamKeepAlive, so that proxies do not cut it.
func TestListenKeepsAlive(t *testing.T) {
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	t.Cleanup(func() { _ = store.Close() })
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store}, StreamKeepAlive: 20 * time.Millisecond})
	addTaskTools(srv)
	url := serve(t, srv)
	id := startTask(t, url, "approve", runtime.DefaultTaskPollInterval.Milliseconds())
	pollTask(t, url, id, runtime.TaskInputRequired)
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	ls.task(t, id)
	for deadline := time.Now().Add(10 * time.Second); ls.comments.Load() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d keep-alives in 10 s on a quiet listen, want 2", ls.comments.Load())
		}
	}
}

// TestListenTaskExpires: a task past its TTL is gone, so the listen stops
// watching it, and, with nothing left, ends.
func TestListenTaskExpires(t *testing.T) {
	url, _ := startServer(t, runtime.TaskOptions{TTL: 300 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	id := startTask(t, url, "approve", 20)
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	if m := ls.settled(t, id); m.Params.Status != runtime.TaskInputRequired {
		t.Fatalf("task %+v: want input_required", m.Params)
	}
	ls.closed(t)
}

// TestListenNeedsAStore: a server without a task store sends no
// notifications, so subscriptions/listen is a method it does not have.
func TestListenNeedsAStore(t *testing.T) {
	ls, status, r := openListen(t, serve(t, runtime.NewServer(runtime.Options{})), "", listenParams("x"), tasksCaps)
	if ls != nil {
		t.Fatal("a server without a store opens a listen")
	}
	wantError(t, "subscriptions/listen without a store", status, r, http.StatusNotFound, runtime.CodeMethodNotFound, "no task store")
}

// openListenAccept is openListen with the Accept header given.
func openListenAccept(t *testing.T, url, params, accept string) (*listenStream, int, response) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}`
	body := `{"jsonrpc":"2.0","id":` + listenID + `,"method":"subscriptions/listen","params":{` + params + `,` + meta + `}}`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set(runtime.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(runtime.HeaderMethod, "subscriptions/listen")
	status, raw, _ := do(t, req)
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("response %q: %v", raw, err)
	}
	return nil, status, r
}

// stdioPeer is a client of ServeStdio: it writes lines and reads the
// messages the server writes.
type stdioPeer struct {
	in   *io.PipeWriter
	msgs chan listenMessage
}

func (p *stdioPeer) request(t *testing.T, id, method, params string) {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}`
	if params != "" {
		params += ","
	}
	if _, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s%s}}`+"\n", id, method, params, meta); err != nil {
		t.Fatal(err)
	}
}

// await returns the first message for which want is true, skipping others.
func (p *stdioPeer) await(t *testing.T, what string, want func(listenMessage) bool) listenMessage {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				t.Fatalf("stdio ended before %s", what)
			}
			if want(m) {
				return m
			}
		case <-timeout:
			t.Fatalf("no %s in 10 s", what)
		}
	}
}

// TestListenOverStdio: on stdio the listen's messages are lines among the
// others, each with its subscription id; notifications/cancelled ends a
// listen (its cap slot free again), and Shutdown ends the others with
// their result.
func TestListenOverStdio(t *testing.T) {
	store := openStore(t, filepath.Join(t.TempDir(), "tasks.db"))
	defer store.Close()
	srv := runtime.NewServer(runtime.Options{Tasks: runtime.TaskOptions{Store: store}})
	addTaskTools(srv)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{in: inW, msgs: make(chan listenMessage, 256)}
	served := make(chan error, 1)
	go func() { served <- srv.ServeStdio(context.Background(), inR, outW); _ = outW.Close() }()
	go func() {
		defer close(p.msgs)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m listenMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.msgs <- m
			}
		}
	}()
	defer func() {
		_ = inW.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
		for range p.msgs {
		}
	}()
	p.request(t, "1", "tools/call", `"name":"approve","arguments":{}`)
	m := p.await(t, "the task handle", func(m listenMessage) bool { return string(m.ID) == "1" })
	if m.Result == nil || m.Result.TaskID == "" {
		t.Fatalf("tools/call: %+v", m)
	}
	id := m.Result.TaskID
	subscription := func(m listenMessage) string { return string(m.Params.Meta["io.modelcontextprotocol/subscriptionId"]) }
	open := func(n int) bool {
		lid := fmt.Sprintf(`"listen-%d"`, n)
		p.request(t, lid, "subscriptions/listen", listenParams(id))
		m := p.await(t, "the acknowledgement of "+lid, func(m listenMessage) bool {
			return string(m.ID) == lid || m.Method == "notifications/subscriptions/acknowledged" && subscription(m) == lid
		})
		if m.Error != nil {
			if m.Error.Code != runtime.CodeInvalidRequest || !strings.Contains(m.Error.Message, "16") {
				t.Fatalf("listen %s: %+v", lid, m.Error)
			}
			return false
		}
		if m.Method == "" {
			t.Fatalf("listen %s answered at once: %+v", lid, m)
		}
		m = p.await(t, "the task on "+lid, func(m listenMessage) bool { return m.Method == "notifications/tasks" && subscription(m) == lid })
		if m.Params.TaskID != id {
			t.Fatalf("listen %s: %+v", lid, m)
		}
		return true
	}
	for n := range 16 {
		if !open(n) {
			t.Fatalf("listen %d refused", n)
		}
	}
	if open(16) {
		t.Fatal("a 17th listen is open")
	}
	if _, err := fmt.Fprintln(p.in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen-0"}}`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for n := 17; !open(n); n++ {
		if time.Now().After(deadline) {
			t.Fatal("notifications/cancelled did not end the listen: its slot is still taken")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	closed := map[string]bool{}
	for len(closed) < 16 {
		m := p.await(t, "the listens' results", func(m listenMessage) bool { return m.Result != nil && strings.HasPrefix(string(m.ID), `"listen-`) })
		if string(m.ID) == `"listen-0"` {
			t.Fatal("the cancelled listen is answered")
		}
		if got := string(m.Result.Meta["io.modelcontextprotocol/subscriptionId"]); got != string(m.ID) || m.Result.ResultType != "complete" {
			t.Errorf("the result of %s: %+v", m.ID, m.Result)
		}
		closed[string(m.ID)] = true
	}
}

// TestListenAcrossRestart: a listen's stream ends, with no result, when
// its server is killed; a listen to the server restarted on the store
// hears the task as it is now, and, with no tasks/get, its failure once
// the lease of the killed run lapses.
func TestListenAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.db")
	first, url := startChild(t, path)
	id := startTask(t, url, "wait", childPoll.Milliseconds())
	ls := mustListen(t, url, "", id)
	ls.ack(t)
	if m := ls.task(t, id); m.Params.Status != runtime.TaskWorking {
		t.Fatalf("task %+v: want working", m.Params)
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	ls.ends(t, "the killed server's listen")

	_, url = startChild(t, path)
	ls = mustListen(t, url, "", id)
	if got := ls.ack(t); len(got) != 1 {
		t.Fatalf("acknowledged %q after the restart", got)
	}
	m := ls.settled(t, id)
	if e := m.Params.Error; m.Params.Status != runtime.TaskFailed || e == nil || !strings.Contains(e.Message, "stopped before its handler finished") {
		t.Fatalf("task %+v: want failed, its run gone", m.Params)
	}
	ls.closed(t)
}
