package runtime

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// The handler's context of a call that cancels on its own
// (cancelableContext) makes its cancellation only when it is needed; in
// every state it must answer as the context.WithCancelCause child of its
// parent it stands for.

type ctxKey struct{}

var errTestCause = errors.New("test cause")

// newCancelable returns a cancelable handler context over a parent that
// holds a value, and the parent's cancel.
func newCancelable(t *testing.T) (*callRun, *handlerCtx, context.CancelCauseFunc) {
	t.Helper()
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
	t.Cleanup(func() { cancel(nil) })
	run := &callRun{}
	return run, run.cancelableContext(parent), cancel
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestHandlerContextBeforeUse(t *testing.T) {
	run, ctx, _ := newCancelable(t)
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err = %v, want nil", err)
	}
	if cause := context.Cause(ctx); cause != nil {
		t.Fatalf("Cause = %v, want nil", cause)
	}
	if v := ctx.Value(ctxKey{}); v != "v" {
		t.Fatalf("Value = %v, want the parent's", v)
	}
	if c := ctx.Value(callKey{}); c != &run.call {
		t.Fatalf("the call key holds %v, want the run's call", c)
	}
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("a deadline the parent does not have")
	}
	if ctx.state.Load() != ctxLazy {
		t.Fatalf("state %d: Err, Value and Deadline made the cancellation", ctx.state.Load())
	}
}

func TestHandlerContextCancelledByTheCall(t *testing.T) {
	for _, wait := range []bool{false, true} {
		run, ctx, _ := newCancelable(t)
		var done <-chan struct{}
		if wait {
			done = ctx.Done() // a handler waiting before the cancel
		}
		run.call.cancel(errTestCause)
		if !wait {
			done = ctx.Done()
		}
		if !isClosed(done) {
			t.Fatalf("wait %v: Done not closed after the call's cancel", wait)
		}
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != errTestCause {
			t.Fatalf("wait %v: Err %v, Cause %v; want Canceled and the cause", wait, ctx.Err(), context.Cause(ctx))
		}
		if v := ctx.Value(ctxKey{}); v != "v" {
			t.Fatalf("wait %v: Value = %v after the cancel, want the parent's", wait, v)
		}
		ctx.end()
		if context.Cause(ctx) != errTestCause {
			t.Fatalf("wait %v: end changed the cause to %v", wait, context.Cause(ctx))
		}
	}
}

func TestHandlerContextCancelledByTheParent(t *testing.T) {
	for _, wait := range []bool{false, true} {
		_, ctx, cancelParent := newCancelable(t)
		var done <-chan struct{}
		if wait {
			done = ctx.Done()
		}
		cancelParent(errTestCause)
		if !wait {
			done = ctx.Done()
		}
		if !isClosed(done) || !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != errTestCause {
			t.Fatalf("wait %v: closed %v, Err %v, Cause %v; want the parent's cancellation", wait, isClosed(done), ctx.Err(), context.Cause(ctx))
		}
		ctx.end()
	}
}

// TestHandlerContextAfterTheCall: a goroutine the handler left behind sees
// its context canceled, whether or not it was made before the end.
func TestHandlerContextAfterTheCall(t *testing.T) {
	for _, made := range []bool{false, true} {
		_, ctx, _ := newCancelable(t)
		if made {
			_ = ctx.Done()
		}
		ctx.end()
		if !isClosed(ctx.Done()) || !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), context.Canceled) {
			t.Fatalf("made %v: after the end: Err %v, Cause %v; want Canceled", made, ctx.Err(), context.Cause(ctx))
		}
	}
}

// TestHandlerContextChildren: contexts a handler derives follow it, with
// no goroutine of their own (the standard library links them to the
// cancelCtx it finds).
func TestHandlerContextChildren(t *testing.T) {
	run, ctx, _ := newCancelable(t)
	child, stop := context.WithTimeout(ctx, time.Hour)
	defer stop()
	var fired sync.WaitGroup
	fired.Add(1)
	context.AfterFunc(ctx, fired.Done)
	run.call.cancel(errTestCause)
	fired.Wait()
	<-child.Done()
	if context.Cause(child) != errTestCause {
		t.Fatalf("child's Cause = %v, want the call's", context.Cause(child))
	}
}

// TestHandlerContextRaces: Done, Err, cancel and end from several
// goroutines at once (run with -race).
func TestHandlerContextRaces(t *testing.T) {
	for range 50 {
		run, ctx, _ := newCancelable(t)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				switch i {
				case 0:
					<-ctx.Done()
				case 1:
					run.call.cancel(errTestCause)
				case 2:
					_ = ctx.Err()
					_ = context.Cause(ctx)
				case 3:
					_ = ctx.Value(ctxKey{})
				}
			})
		}
		wg.Wait()
		ctx.end()
		if context.Cause(ctx) != errTestCause {
			t.Fatalf("Cause = %v, want the call's", context.Cause(ctx))
		}
	}
}

// TestHandlerContextWaits: a wait registered on the call's own context
// (await) is woken by a cancel and by the call's end, as a wait on a
// WithCancelCause child's Done would be; a second wait at once is told to
// wait on Done, and the first one's end does not unregister it.
func TestHandlerContextWaits(t *testing.T) {
	_, ctx, _ := newCancelable(t)
	p1, p2 := newPendingElicit(), newPendingElicit()
	if !ctx.await(p1) {
		t.Fatal("the first wait was not registered")
	}
	if ctx.await(p2) {
		t.Fatal("a second wait at once was registered: one of the two would miss the cancel")
	}
	ctx.unawait(p2) // not registered: p1 stays
	ctx.cancelCall(errTestCause)
	if !isClosed(p1.done) || p1.reply.err != errWaitCanceled {
		t.Fatalf("the registered wait after a cancel: done %v, err %v", isClosed(p1.done), p1.reply.err)
	}
	if !errors.Is(context.Cause(ctx), errTestCause) {
		t.Fatalf("Cause = %v", context.Cause(ctx))
	}

	_, ctx, _ = newCancelable(t)
	p := newPendingElicit()
	ctx.await(p)
	ctx.end()
	if !isClosed(p.done) || p.reply.err != errWaitCanceled {
		t.Fatal("the call's end left its registered wait waiting")
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err after the end = %v", ctx.Err())
	}
}
