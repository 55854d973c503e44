package runtime

import (
	"context"
	"errors"

	"github.com/go-elicit/elicit/runtime/formimpl"
)

// The outcomes of an elicitation, to be tested with errors.Is. An accepted
// answer returns a nil error; every other outcome is one of these (wrapped
// with detail), or the context's error when the call's context ended first.
var (
	// ErrElicitDeclined: the user declined to answer (action "decline").
	ErrElicitDeclined = errors.New("elicit: declined by the user")
	// ErrElicitCanceled: the user dismissed the request (action "cancel").
	ErrElicitCanceled = errors.New("elicit: canceled by the user")
	// ErrElicitMalformed: the client's answer was not a valid elicitation
	// result (unknown action, result not an object, ...).
	ErrElicitMalformed = errors.New("elicit: malformed answer")
	// ErrElicitFailed: the client answered the elicitation with a JSON-RPC
	// error instead of a result; the error is a *ClientError.
	ErrElicitFailed = errors.New("elicit: the client answered with an error")
	// ErrElicitUnsupported: this client cannot be asked: it did not declare
	// the elicitation capability (or the mode), its protocol version cannot
	// express the form, or the request cannot carry a server message (its
	// Accept header does not allow text/event-stream).
	ErrElicitUnsupported = errors.New("elicit: not supported by this client")
	// ErrElicitTooMany: the session already has the maximum number of pending
	// elicitations (32 by default).
	ErrElicitTooMany = errors.New("elicit: too many pending elicitations in this session")
	// ErrElicitSchemaInvalid: a hand-built schema is outside the elicitation
	// subset of the session's protocol version; nothing was sent.
	ErrElicitSchemaInvalid = errors.New("elicit: schema is not a valid elicitation schema")
	// ErrElicitTimeout: nobody answered within the server's elicitation
	// timeout. It also matches context.DeadlineExceeded.
	ErrElicitTimeout = errors.New("elicit: no answer before the elicitation timeout")
	// ErrElicitInvalidContent: the accepted content breaks the schema or the
	// form's validate tags; the error is a *ContentError naming each property.
	ErrElicitInvalidContent = formimpl.ErrInvalidContent
	// ErrNoCall: the context names no tool call (context.Background(), a
	// nil ctx, a ctx of another server library), so there is no call to
	// ask in. Elicit[T], CanElicit[T], ElicitSchema, ElicitURL and the
	// adapters' Elicit[T] find the call, its session and its stream through
	// the handler's ctx. It is the same on every protocol, so a handler
	// tested on one fails on none.
	ErrNoCall = errors.New("elicit: the context belongs to no tool call: pass the ctx the handler was given, or one derived from it")
	// ErrSessionClosed: the session ended (DELETE, idle expiry, server
	// shutdown) while the call was running.
	ErrSessionClosed = errors.New("elicit: session closed")
	// ErrServerShutdown: the server is shutting down. It also matches
	// ErrSessionClosed.
	ErrServerShutdown = errors.New("elicit: server shutting down")
)

// ContentError reports an accepted answer that breaks the form; it names each
// failing property. errors.Is(err, ErrElicitInvalidContent) is true for it.
type ContentError = formimpl.ContentError

// Problem is one failing property of a ContentError.
type Problem = formimpl.Problem

// timeoutError is ErrElicitTimeout that also matches context.DeadlineExceeded.
type timeoutError struct{}

func (timeoutError) Error() string { return ErrElicitTimeout.Error() }
func (timeoutError) Is(target error) bool {
	return target == ErrElicitTimeout || target == context.DeadlineExceeded
}

// shutdownError is ErrServerShutdown that also matches ErrSessionClosed.
type shutdownError struct{}

func (shutdownError) Error() string { return ErrServerShutdown.Error() }
func (shutdownError) Is(target error) bool {
	return target == ErrServerShutdown || target == ErrSessionClosed
}
