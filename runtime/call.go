package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/runtime/internal/callctx"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
)

// callKey is the context key under which a running call is stored.
type callKey struct{}

// callFrom returns the tool call ctx belongs to: ErrNoCall for a nil ctx
// or one that belongs to no call of a Server.
func callFrom(ctx context.Context) (*call, error) {
	if ctx == nil {
		return nil, ErrNoCall
	}
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil || c.session == nil {
		return nil, ErrNoCall
	}
	return c, nil
}

// asker is the tool call an elicitation asks in: a call of this package's
// Server (*call), or the call of another server library an adapter put
// into the handler's context (adaptedCall).
type asker interface {
	protocol() string
	caps() elicitCaps
	// roundTrip reports whether the call is a 2026-07-28 request, which
	// asks through the input_required round trip.
	roundTrip() bool
	// ask sends the elicitation/create params under key and returns the
	// client's raw ElicitResult, or ErrInputRequired once the question is
	// recorded on a 2026-07-28 request.
	ask(ctx context.Context, key string, params []byte) (json.RawMessage, error)
	// request is ask for a request of method (see Session.request):
	// sampling/createMessage or roots/list.
	request(ctx context.Context, key, method string, params []byte) (json.RawMessage, error)
	// capabilities is the capabilities object the client declared (on
	// 2026-07-28 in the request's _meta); nil when it is not known.
	capabilities() json.RawMessage
}

// askerFrom returns the call ctx belongs to, of this package's Server or
// of an adapter, or ErrNoCall.
func askerFrom(ctx context.Context) (asker, error) {
	c, err := callFrom(ctx)
	if err == nil {
		return c, nil
	}
	if ac := callctx.From(ctx); ac != nil {
		return &adaptedCall{c: ac}, nil
	}
	return nil, err
}

func (c *call) protocol() string { return c.session.protocol }
func (c *call) caps() elicitCaps { return c.session.caps }
func (c *call) roundTrip() bool  { return c.session.inputRun != nil }
func (c *call) ask(ctx context.Context, key string, params []byte) (json.RawMessage, error) {
	return c.session.ask(ctx, c, key, params)
}
func (c *call) request(ctx context.Context, key, method string, params []byte) (json.RawMessage, error) {
	return c.session.request(ctx, c, key, method, params)
}
func (c *call) capabilities() json.RawMessage { return c.session.capabilities }

// adaptedCall is the call of an adapter (runtime/gosdk, runtime/mcpgo).
// The outcomes are made the runtime's here, once for every adapter: the
// elicitation timeout (ErrElicitTimeout) and the context's error with its
// cause.
type adaptedCall struct{ c callctx.Call }

func (a *adaptedCall) protocol() string { return a.c.ProtocolVersion() }
func (a *adaptedCall) caps() elicitCaps { return elicitCapsOf(a.c.Elicitation()) }
func (a *adaptedCall) roundTrip() bool  { return a.c.ProtocolVersion() >= Version20260728 }
func (a *adaptedCall) ask(ctx context.Context, key string, params []byte) (json.RawMessage, error) {
	return a.send(ctx, func(ctx context.Context) (json.RawMessage, error) { return a.c.Ask(ctx, key, params) })
}

func (a *adaptedCall) request(ctx context.Context, key, method string, params []byte) (json.RawMessage, error) {
	r, ok := a.c.(callctx.Requester)
	if !ok {
		return nil, unsupportedf("this adapter cannot send %s", method)
	}
	return a.send(ctx, func(ctx context.Context) (json.RawMessage, error) { return r.Request(ctx, key, method, params) })
}

func (a *adaptedCall) capabilities() json.RawMessage {
	if r, ok := a.c.(callctx.Requester); ok {
		return r.ClientCapabilities()
	}
	return nil
}

// send runs one request of the call with the adapter's timeout.
func (a *adaptedCall) send(ctx context.Context, do func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	askCtx := ctx
	if d := a.c.ElicitTimeout(); d > 0 && !a.roundTrip() {
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > d {
			var cancel context.CancelFunc
			askCtx, cancel = context.WithTimeoutCause(ctx, d, timeoutError{})
			defer cancel()
		}
	}
	res, err := do(askCtx)
	switch {
	case err == nil:
		return res, nil
	case ctx.Err() != nil:
		return nil, ctxError(ctx)
	case askCtx.Err() != nil:
		return nil, timeoutError{}
	}
	return nil, err
}

// call is one running tools/call: its session, its reply sink and its
// cancellation. Elicit finds it through the handler's context.
type call struct {
	session *Session
	key     string          // idKey of the client's request id
	id      json.RawMessage // the client's request id, raw
	sink    sink
	// cancelF cancels the call's context, made by the call's maker; own
	// instead, when the handler's context cancels on its own.
	cancelF context.CancelCauseFunc
	own     *handlerCtx
	// canceledByClient is set by notifications/cancelled for this call.
	canceledByClient atomic.Bool
	// inputRequired marks a request of the input_required mechanism;
	// logLevel is its _meta log level (without one, such a request gets no
	// log notifications).
	inputRequired bool
	logLevel      string
	// claimOnce and claimErr make ClaimCall's answer one per run.
	claimOnce sync.Once
	claimErr  error
	// tasking is where the call stands with tasks (ContinueAsTask);
	// asTask is set once ContinueAsTask has made this round a task's.
	tasking taskTurn
	asTask  atomic.Bool
	// rounds is what a 2026-07-28 call's requestState carried for
	// telemetry (zero without it).
	rounds telemetry.Rounds
	// prevRunning and nextRunning link the server's running calls
	// (Server.runningCalls), under its callsMu.
	prevRunning, nextRunning *call
}

var errCanceledByClient = errors.New("elicit: the client cancelled the request")

// cancel cancels the call's context with cause: its own
// (cancelableContext) or its maker's.
func (c *call) cancel(cause error) {
	if c.own != nil {
		c.own.cancelCall(cause)
		return
	}
	c.cancelF(cause)
}

func (c *call) cancelByClient(reason string) {
	c.canceledByClient.Store(true)
	if reason != "" {
		c.cancel(fmt.Errorf("%w: %s", errCanceledByClient, reason))
		return
	}
	c.cancel(errCanceledByClient)
}

// notify sends a notification on the call's stream.
func (c *call) notify(method string, params any) error {
	frame, err := encodeNotification(method, params)
	if err != nil {
		return fmt.Errorf("elicit: encoding %s: %w", method, err)
	}
	return c.sink.send(frame)
}

// callRun is what running one tools/call allocates, in one piece: the
// call, the handler's request and the handler's context. Each is a
// pointer the handler may keep; together they live as long as the
// longest-kept one.
type callRun struct {
	call call
	req  CallToolRequest
	ctx  handlerCtx
}

// handlerContext returns ctx with the call in it (what callFrom finds), as
// context.WithValue(ctx, callKey{}, &r.call) would, without allocating.
// The call's cancellation is its maker's (the call's cancelF).
func (r *callRun) handlerContext(ctx context.Context) context.Context {
	r.ctx.parent, r.ctx.c = ctx, &r.call
	r.ctx.state.Store(ctxPlain)
	return &r.ctx
}

// cancelableContext is handlerContext with a cancellation of the call's
// own, as context.WithCancelCause(ctx) would give it: the call's cancel
// cancels it, and end, once the call is over, cancels it with
// context.Canceled. It costs nothing until a Done or a cancel needs it.
func (r *callRun) cancelableContext(ctx context.Context) *handlerCtx {
	r.ctx.parent, r.ctx.c = ctx, &r.call
	r.call.own = &r.ctx
	return &r.ctx
}

// handlerCtx is a context carrying a call under callKey. Every other
// value, its deadline, Done, Err and cancellation cause are parent's, as for
// a context.WithValue child; or, when it cancels on its own
// (cancelableContext), those of a context.WithCancelCause child of parent.
//
// That child is made on first need: a Done, a cancel, or a use after end.
// Until then nothing can have canceled the context but parent, and a
// WithCancelCause child of parent would report parent's Err, Value and
// cause (context.Cause finds parent's) anyway. A 2026-07-28 round that
// asks or completes without waiting never makes it, which saves the
// child's allocations and its link in parent's children. The call's own
// wait for an answer (Session.request) does not need it either: it waits
// on parent and on its pending answer, which a cancel resolves (await).
//
// A resumable call's parent (callBase) never ends: what cancels the call
// before its stream is upgraded is the POST's connection ending. The sink
// watches it (httpSink.watch) once the child is made; until then Err looks
// at the connection itself (httpSink.checkConnection), as do the call's
// wait (httpSink.connDone) and its first send (httpSink.send).
type handlerCtx struct {
	parent context.Context
	c      *call
	state  atomic.Uint32 // ctxLazy, ctxMade, ctxOver or ctxPlain
	mu     sync.Mutex    // making child; waiter
	child  context.Context
	cancel context.CancelCauseFunc
	// waiter is the answer the call waits for without a child (await): a
	// cancel, or the call's end, resolves it with errWaitCanceled. One at
	// a time: a second wait at once waits on Done.
	waiter *pendingElicit
}

// errWaitCanceled resolves the answer a call waits for when the call is
// canceled (handlerCtx.await): the wait then returns the context's error.
var errWaitCanceled = errors.New("elicit: the call was canceled while it waited")

const (
	ctxLazy  = iota // no child yet
	ctxMade         // child and cancel are set
	ctxOver         // no child, and the call is over: a child, once made, is canceled
	ctxPlain        // no cancellation of its own: parent's
)

// made returns the child, making it first if need be.
func (x *handlerCtx) made() context.Context {
	if x.state.Load() == ctxMade {
		return x.child
	}
	x.mu.Lock()
	was := x.state.Load()
	switch was {
	case ctxLazy, ctxOver:
		x.child, x.cancel = context.WithCancelCause(x.parent)
		if was == ctxOver {
			x.cancel(nil)
		}
		x.state.Store(ctxMade)
	}
	child := x.child
	x.mu.Unlock()
	if was == ctxLazy {
		x.watch() // the child can tell a dropped connection now
	}
	return child
}

// watch starts the sink's watch on a resumable call's connection.
func (x *handlerCtx) watch() {
	if sk, ok := x.c.sink.(*httpSink); ok {
		sk.watch()
	}
}

// await registers p as the answer the call waits for, if the context has
// no child and no other wait is registered: a cancel, or the call's end,
// then resolves p with errWaitCanceled, so the wait needs no Done of its
// own. false: wait on Done.
func (x *handlerCtx) await(p *pendingElicit) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.state.Load() != ctxLazy || x.waiter != nil {
		return false
	}
	x.waiter = p
	return true
}

// unawait ends the wait on p that await registered.
func (x *handlerCtx) unawait(p *pendingElicit) {
	x.mu.Lock()
	if x.waiter == p {
		x.waiter = nil
	}
	x.mu.Unlock()
}

// wake resolves the registered wait's answer with errWaitCanceled: the
// context is canceled.
func (x *handlerCtx) wake() {
	x.mu.Lock()
	p := x.waiter
	x.mu.Unlock()
	if p != nil {
		p.resolve(elicitReply{err: errWaitCanceled})
	}
}

// current is the context that answers for x now.
func (x *handlerCtx) current() context.Context {
	switch x.state.Load() {
	case ctxLazy, ctxPlain:
		return x.parent
	}
	return x.made()
}

func (x *handlerCtx) Deadline() (time.Time, bool) { return x.parent.Deadline() }

func (x *handlerCtx) Done() <-chan struct{} {
	if x.state.Load() == ctxPlain {
		return x.parent.Done()
	}
	return x.made().Done()
}

func (x *handlerCtx) Err() error {
	if x.state.Load() == ctxLazy {
		if sk, ok := x.c.sink.(*httpSink); ok {
			sk.checkConnection() // unwatched yet: a dropped connection cancels the call now
		}
	}
	return x.current().Err()
}

func (x *handlerCtx) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return x.c
	}
	return x.current().Value(key)
}

// cancelCall cancels a cancelableContext with cause.
func (x *handlerCtx) cancelCall(cause error) {
	x.made()
	x.cancel(cause)
	x.wake()
}

// end is the call's end: the context is canceled, as by a WithCancelCause
// child's deferred cancel(nil). Without a child yet, nothing waits on it:
// the child is made (canceled) only if the context is used after.
func (x *handlerCtx) end() {
	x.mu.Lock()
	lazy := x.state.Load() == ctxLazy
	if lazy {
		x.state.Store(ctxOver)
	}
	x.mu.Unlock()
	if !lazy {
		x.cancel(nil)
	}
	x.wake() // a wait the handler left running (in a goroutine of its own) ends with the call
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string                     `json:"name"`
	Arguments json.RawMessage            `json:"arguments"`
	Meta      map[string]json.RawMessage `json:"_meta"`
}

func parseCallParams(msg *message) (callParams, *RPCError) {
	if len(msg.Params) == 0 {
		return callParams{}, rpcErrorf(CodeInvalidParams, "tools/call needs params")
	}
	rp, err := msg.decodedParams()
	if err != nil {
		return callParams{}, rpcErrorf(CodeInvalidParams, "invalid tools/call params: %v", err)
	}
	p := callParams{Name: rp.Name, Arguments: rp.Arguments, Meta: rp.Meta}
	if p.Name == "" {
		return p, rpcErrorf(CodeInvalidParams, "tools/call params need a tool name")
	}
	switch {
	case len(p.Arguments) == 0 || string(p.Arguments) == "null":
		p.Arguments = json.RawMessage("{}")
	case p.Arguments[0] != '{':
		return p, rpcErrorf(CodeInvalidParams, "tools/call arguments must be an object")
	}
	return p, nil
}

// emptyToolResult is the result of a handler that returned none. It is
// shared: runTool's callers only encode the result it returns.
var emptyToolResult = CallToolResult{Content: []Content{}}

// runTool runs a handler, turning its error into an isError result or an
// RPC error, and a panic into an internal error (logged with its stack).
func (s *Server) runTool(ctx context.Context, t *registeredTool, req *CallToolRequest) (res *CallToolResult, rpcErr *RPCError) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("tool handler panicked", "tool", req.Name, "panic", v, "stack", string(debug.Stack()))
			res, rpcErr = nil, rpcErrorf(CodeInternalError, "tool %q failed: internal error", req.Name)
		}
	}()
	res, err := t.handler(ctx, req)
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) {
			if re.Code == CodeURLElicitationRequired {
				return urlRequired(req.Session, re)
			}
			return nil, re
		}
		var mc *MissingCapabilityError
		if req.call != nil && req.call.inputRequired && errors.As(err, &mc) {
			return nil, mc.RPCError()
		}
		return ErrorResult("%s", err.Error()), nil
	}
	if res == nil {
		return &emptyToolResult, nil
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return res, nil
}
