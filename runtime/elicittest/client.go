package elicittest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

// Client is one MCP client connected to a [Server], speaking one protocol
// version over one transport. Its Calls run one at a time; connect several
// clients for concurrent calls.
type Client struct {
	mc        *mcpclient.Client
	protocol  string
	transport string
	timeout   time.Duration

	callMu sync.Mutex // one Call at a time
	mu     sync.Mutex
	cur    *call // the Call in flight, whose script answers elicitations
}

// Protocol returns the protocol version the client speaks ("" for a nil
// Client).
func (c *Client) Protocol() string {
	if c == nil {
		return ""
	}
	return c.protocol
}

// Transport returns HTTP or Stdio ("" for a nil Client).
func (c *Client) Transport() string {
	if c == nil {
		return ""
	}
	return c.transport
}

// Call calls the tool with args (nil for none; a value marshalled with
// encoding/json to an object, or JSON as a string, []byte or
// json.RawMessage) and answers the elicitations it makes with answers, in
// order, and its sampling and roots requests too ([Sampled], [Roots]). On 2026-07-28 it performs the input_required retries, so the
// same script works on every protocol.
//
// The test fails, with the call's transcript, when an elicitation finds no
// answer left (it is canceled, so the handler goes on), when an answer is
// left unasked, when Accept of a generated form meets another form, and
// when no result arrives within the server's CallTimeout. A JSON-RPC error
// response is no failure by itself: it is the Result's Err, for
// WantRPCError; nor is a call a [ReplyError] ends on 2026-07-28. From a
// client connected with [Conn] Tasks, a call the server makes a task is
// followed to its end: polled, its questions answered from answers, and
// a cancelled task is no failure either (see "Tasks" in the package doc).
func (c *Client) Call(t testing.TB, tool string, args any, answers ...Answer) *Result {
	t.Helper()
	if c == nil || c.mc == nil {
		t.Fatal("elicittest: Call on a nil Client: get one from Server.Connect or Server.Each")
		return &Result{}
	}
	res := &Result{tool: tool, protocol: c.protocol, transport: c.transport}
	raw, err := argsJSON(args)
	if err == nil {
		err = checkScript(answers)
	}
	if err != nil {
		res.Err = err
		t.Errorf("%s: %v; nothing was called", res.head(), err)
		return res
	}
	c.callMu.Lock()
	defer c.callMu.Unlock()
	cl := &call{protocol: c.protocol, answers: answers}
	c.setCall(cl)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	out, err := c.mc.CallTool(ctx, tool, raw)
	if task := mcpclient.TaskOf(out); err == nil && task != nil {
		out, err = c.awaitTask(ctx, cl, res, task.TaskID)
	}
	cancel()
	c.setCall(nil)

	cl.mu.Lock()
	res.asked = cl.asked
	problems, unused, gaveUp := cl.problems, cl.answers, cl.gaveUp
	cl.mu.Unlock()
	var rpcErr *mcpclient.RPCError
	switch {
	case err == nil:
		res.fill(out)
	case errors.Is(err, errTaskCancelled):
		res.Err = err
	case gaveUp != "":
		res.Err = fmt.Errorf("elicittest: answered %s, which 2026-07-28 cannot send (an input request has no error answer): the client gave up the call: %w", gaveUp, err)
	case errors.As(err, &rpcErr):
		res.Err = &runtime.RPCError{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}
	case ctx.Err() != nil:
		res.Err = err
		c.cancelStuckTask(res.TaskID)
		t.Errorf("%s: no result within %v (Server.CallTimeout): a handler that never returns, or waits on something the script does not do%s", res.head(), c.timeout, res.askedLines())
	default:
		res.Err = err
		t.Errorf("%s: %v%s", res.head(), err, res.askedLines())
	}
	for _, p := range problems {
		t.Errorf("%s: %s", res.head(), p)
	}
	if len(unused) > 0 {
		descs := make([]string, len(unused))
		for i, a := range unused {
			descs[i] = a.String()
		}
		t.Errorf("%s: %d scripted answer(s) never asked for: %s; the handler asked %d question(s)%s",
			res.head(), len(unused), strings.Join(descs, ", "), len(res.asked), res.askedLines())
	}
	return res
}

// errTaskCancelled is the Err of a Call whose task was cancelled.
var errTaskCancelled = errors.New("elicittest: the task was cancelled")

// awaitTask follows a Call that became the task id to its end, answering
// its input requests from the script as a call's are.
func (c *Client) awaitTask(ctx context.Context, cl *call, res *Result, id string) (*mcpclient.CallToolResult, error) {
	res.TaskID = id
	cl.mu.Lock()
	cl.taskID = id
	cl.mu.Unlock()
	ended, err := c.mc.AwaitTask(ctx, id)
	if err != nil {
		return nil, err
	}
	res.TaskStatus, res.Rounds = runtime.TaskStatus(ended.Status), ended.Rounds
	switch {
	case ended.Status == mcpclient.TaskCompleted:
		return ended.CallToolResult()
	case ended.Status == mcpclient.TaskFailed && ended.Error != nil:
		return nil, ended.Error
	case ended.Status == mcpclient.TaskCancelled:
		return nil, fmt.Errorf("%w (%s)", errTaskCancelled, ended.StatusMessage)
	}
	return nil, fmt.Errorf("%w: task %q ended %s without an error", mcpclient.ErrProtocol, id, ended.Status)
}

// cancelStuckTask cancels the task of a Call that timed out, so that its
// handler does not outlive the test.
func (c *Client) cancelStuckTask(id string) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	_ = c.mc.CancelTask(ctx, id) // best effort: the Call has failed already
}

func (c *Client) setCall(cl *call) {
	c.mu.Lock()
	c.cur = cl
	c.mu.Unlock()
}

// argsJSON encodes a Call's arguments: nil (a nil map, pointer or slice too) and
// null are none, JSON text is sent as is, anything else is marshalled; the
// result must be an object.
func argsJSON(args any) (json.RawMessage, error) {
	if args == nil {
		return nil, nil
	}
	switch v := reflect.ValueOf(args); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
	}
	raw, err := rawJSON(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	if string(raw) == "null" {
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("arguments %s are not a JSON object: pass a struct, a map or nil", raw)
	}
	return raw, nil
}

// checkScript refuses answers that cannot be sent, before the call.
func checkScript(answers []Answer) error {
	for i, a := range answers {
		switch {
		case a.err != nil:
			return fmt.Errorf("answer %d: %w", i+1, a.err)
		case a.action == "" && a.respond == nil && a.rpcErr == nil && a.method == "":
			return fmt.Errorf("answer %d is the zero Answer: build answers with elicittest.Accept, Decline, Cancel, Sampled, Roots or another constructor", i+1)
		}
	}
	return nil
}

// onElicit answers an elicitation from the script of the Call in flight;
// one that arrives outside any Call (after a Call gave up) is canceled.
func (c *Client) onElicit(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
	c.mu.Lock()
	cl := c.cur
	c.mu.Unlock()
	if cl == nil {
		return mcpclient.ElicitResult{Action: mcpclient.ActionCancel}, nil
	}
	e := Elicitation{
		Method:        methodElicit,
		Mode:          p.EffectiveMode(),
		Message:       p.Message,
		Schema:        bytes.Clone(p.RequestedSchema),
		URL:           p.URL,
		ElicitationID: p.ElicitationID,
		protocol:      c.protocol,
	}
	a := cl.next(e)
	if a.rpcErr != nil {
		if c.protocol == runtime.Version20260728 {
			cl.mu.Lock()
			cl.gaveUp = a.desc
			cl.mu.Unlock()
		}
		return mcpclient.ElicitResult{}, a.rpcErr
	}
	if a.cancelTask {
		// The answer that goes with it is a cancel, which the cancelled
		// task ignores.
		if err := c.mc.CancelTask(ctx, cl.task()); err != nil {
			cl.problem(fmt.Sprintf("CancelTask(): %v", err))
		}
	}
	return mcpclient.ElicitResult{Action: a.action, Content: a.content}, nil
}

// onRequest answers sampling/createMessage or roots/list from the script
// of the Call in flight, as onElicit answers elicitations.
func (c *Client) onRequest(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	c.mu.Lock()
	cl := c.cur
	c.mu.Unlock()
	if cl == nil {
		return nil, &mcpclient.RPCError{Code: runtime.CodeInternalError, Message: "elicittest: no Call in flight"}
	}
	a := cl.next(Elicitation{Method: method, Params: bytes.Clone(params), protocol: c.protocol})
	switch {
	case a.rpcErr != nil:
		if c.protocol == runtime.Version20260728 {
			cl.mu.Lock()
			cl.gaveUp = a.desc
			cl.mu.Unlock()
		}
		return nil, &mcpclient.RPCError{Code: a.rpcErr.Code, Message: a.rpcErr.Message}
	case a.result == nil:
		return nil, &mcpclient.RPCError{Code: runtime.CodeInternalError, Message: "elicittest: " + a.desc}
	}
	return a.result, nil
}

// call is the script of one Call and what happened to it.
type call struct {
	protocol string

	mu       sync.Mutex
	answers  []Answer                 // not asked yet
	respond  func(Elicitation) Answer // answers the rest, once reached
	asked    []Elicitation
	problems []string
	gaveUp   string // the ReplyError that ended a 2026-07-28 call
	taskID   string // the task the Call became, once it has
}

func (cl *call) task() string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.taskID
}

func (cl *call) problem(p string) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.problems = append(cl.problems, p)
}

// next picks the answer to elicitation e and records both.
func (cl *call) next(e Elicitation) Answer {
	cl.mu.Lock()
	n := len(cl.asked) + 1
	if cl.respond == nil && len(cl.answers) > 0 && cl.answers[0].respond != nil {
		cl.respond, cl.answers = cl.answers[0].respond, cl.answers[1:]
	}
	respond := cl.respond
	var a Answer
	scripted := respond != nil
	if !scripted && len(cl.answers) > 0 {
		a, cl.answers, scripted = cl.answers[0], cl.answers[1:], true
	}
	cl.mu.Unlock()

	problem := ""
	switch {
	case !scripted:
		problem = "has no scripted answer: add one to the Call (elicittest.Accept, Decline, Cancel, ...); it was canceled"
	case respond != nil:
		a = respond(e)
		if a.respond != nil || (a.action == "" && a.err == nil && a.rpcErr == nil && a.method == "") {
			problem = fmt.Sprintf("Respond's function returned %v, which cannot answer: return Accept, Decline, Cancel, ...; it was canceled", a)
		}
	}
	if problem == "" {
		problem = cl.mismatch(a, e)
	}
	switch {
	case problem != "" && e.isElicitation():
		a = Answer{action: mcpclient.ActionCancel, desc: "canceled by elicittest"}
	case problem != "":
		a = Answer{method: e.Method, desc: "refused by elicittest"}
	case a.form != nil && e.Mode == mcpclient.ModeForm:
		a.content = onlyAsked(a.content, e.Schema)
	}
	e.answer = a.desc
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if problem != "" {
		cl.problems = append(cl.problems, fmt.Sprintf("elicitation %d (%s) %s", n, e.label(), problem))
	}
	cl.asked = append(cl.asked, e)
	return a
}

// mismatch says why a cannot answer e ("" if it can): a value that could
// not be marshalled, a form answer to a url elicitation, or a generated
// form whose schema is not the one asked.
func (cl *call) mismatch(a Answer, e Elicitation) string {
	switch {
	case a.err != nil:
		return fmt.Sprintf("cannot be answered %v: %v; it was canceled", a, a.err)
	case a.rpcErr == nil && a.method != e.method():
		return fmt.Sprintf("is answered with %v, which answers %s: check the order of the answers; it was %s", a, orElicitation(a.method), refusedOrCanceled(e))
	case !e.isElicitation():
		return ""
	case a.cancelTask && cl.task() == "":
		return "is answered with CancelTask(), which answers only inside a task (Conn Tasks, a tool that allows tasks); it was canceled"
	case e.Mode == mcpclient.ModeURL && a.action == mcpclient.ActionAccept && len(a.content) > 0:
		return fmt.Sprintf("is a url elicitation (%s), answered with form content %v: use elicittest.AcceptURL(); it was canceled", e.URL, a)
	case a.form == nil || e.Mode != mcpclient.ModeForm:
		return ""
	}
	want, err := formSchemaFor(a.form, cl.protocol)
	if err != nil {
		return fmt.Sprintf("is answered with a %s, which cannot be asked on %s (%v); it was canceled", a.form.Name, cl.protocol, err)
	}
	if diff := questionDiff(a.form.Name, cl.protocol, want, e.Schema); diff != "" {
		return fmt.Sprintf("did not ask for the %s of %v: %s\n\tasked:   %s\n\t%s is: %s\n\tit was canceled; check the order of the answers",
			a.form.Name, a, diff, e.Schema, a.form.Name, want)
	}
	return ""
}

// method is the request's method as Answer.method names it: "" for an
// elicitation.
func (e Elicitation) method() string {
	if e.isElicitation() {
		return ""
	}
	return e.Method
}

func (e Elicitation) isElicitation() bool { return e.Method == "" || e.Method == methodElicit }

func orElicitation(method string) string {
	if method == "" {
		return "an elicitation"
	}
	return "a " + method
}

func refusedOrCanceled(e Elicitation) string {
	if e.isElicitation() {
		return "canceled"
	}
	return "refused"
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}
