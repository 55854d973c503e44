package runtime

import (
	"context"
	"errors"

	"strings"

	"github.com/go-elicit/elicit/internal/formcore"
	"github.com/go-elicit/elicit/internal/subset"
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
	// ErrElicitFailed: the client answered the elicitation (or sampling
	// request, roots/list) with a JSON-RPC error instead of a result; the
	// error is a *ClientError.
	ErrElicitFailed = errors.New("elicit: the client answered with an error")
	// ErrElicitUnsupported: this client cannot be asked: it did not declare
	// the elicitation capability (or the mode; for Sample and ListRoots,
	// sampling, sampling.tools or roots), its protocol version cannot
	// express the form (or the sampling request), or the request cannot
	// carry a server message (its Accept header does not allow
	// text/event-stream).
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
	ErrElicitInvalidContent = formcore.ErrInvalidContent
	// ErrNoCall: the context names no tool call (context.Background(), a
	// nil ctx, the ctx of a go-sdk or mcp-go tool not served through
	// elicit's adapter), so there is no call to ask in. Elicit[T],
	// CanElicit[T], ElicitSchema and ElicitURL find the call, its session
	// and its stream through the handler's ctx. It is the same on every
	// protocol, so a handler tested on one fails on none.
	ErrNoCall = errors.New("elicit: the context belongs to no tool call: pass the ctx the handler was given, or one derived from it; on go-sdk register the tool with gosdk.AddTool, on mcp-go make the server's adapter with mcpgo.New")
	// ErrSessionClosed: the session ended (DELETE, idle expiry, server
	// shutdown) while the call was running.
	ErrSessionClosed = errors.New("elicit: session closed")
	// ErrServerShutdown: the server is shutting down. It also matches
	// ErrSessionClosed.
	ErrServerShutdown = errors.New("elicit: server shutting down")
)

// ContentError reports content that breaks the form: an accepted answer
// to Elicit[T] or ElicitSchema, or the arguments of a typed tool. It
// names every failing property at once. errors.Is(err,
// ErrElicitInvalidContent) is true for it. A generated ElicitDecode method
// called by hand gives one too.
type ContentError struct {
	// Problems lists each failing property, sorted by Property (the
	// problems of one property in the order they were found). An answer
	// decoded by a generated decoder has at most 32 here: its Error and
	// Detail count the others ("… and 12 more problems"), and name at
	// most 32 of Problems, whoever built the error.
	Problems []Problem
	more     int // problems beyond Problems
}

// Problem is one failing property of a ContentError.
type Problem struct {
	// Property is the JSON property name, "" for the content as a whole
	// (not an object, say).
	Property string
	// Message says what is wrong, lowercase, no final period: "is required",
	// "must be at least 1", "must be one of \"a\", \"b\"".
	Message string
}

func (e *ContentError) Error() string { return formcore.ErrorText(e.Problems, e.more) }

// Detail is the problems, by property, without Error's prefix:
// `"address" must be an IP address; "asn" must be at least 1`. It names
// at most 32, each property cut to 64 bytes, and counts the rest, so that
// it stays short whatever the content was.
func (e *ContentError) Detail() string { return formcore.Detail(e.Problems, e.more) }

// Is makes errors.Is(err, ErrElicitInvalidContent) true for every *ContentError.
func (e *ContentError) Is(target error) bool { return target == ErrElicitInvalidContent }

// Generated decoders and the shared validator report bad content as a
// *ContentError of this package: formcore cannot import it, so the runtime
// hands it the constructor.
func init() { formcore.SetContentError(newContentError) }

// newContentError is the one conversion from the decoders' problems.
func newContentError(problems []formcore.Problem, more int) error {
	e := &ContentError{Problems: make([]Problem, len(problems)), more: more}
	for i, p := range problems {
		e.Problems[i] = Problem(p)
	}
	return e
}

// SchemaError lists every way a hand-built schema given to ElicitSchema
// is outside the elicitation subset; nothing was sent.
// errors.Is(err, ErrElicitSchemaInvalid) is true for it.
type SchemaError struct {
	// Version is the session's protocol version.
	Version string
	// Violations lists every problem found, in schema order.
	Violations []Violation
}

// Violation is one way a schema is outside the elicitation subset.
type Violation struct {
	// Path is the JSON Pointer of the offending part of the schema, e.g.
	// "/properties/asn/minimum"; "" for the schema as a whole.
	Path string
	// Property is the top-level property it concerns, "" for the root.
	Property string
	// Message says what is wrong, lowercase, no final period.
	Message string
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString(ErrElicitSchemaInvalid.Error())
	b.WriteString(" for protocol ")
	b.WriteString(e.Version)
	for i, v := range e.Violations {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		if v.Path != "" {
			b.WriteString(v.Path)
			b.WriteString(": ")
		}
		b.WriteString(v.Message)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrElicitSchemaInvalid) true.
func (e *SchemaError) Is(target error) bool { return target == ErrElicitSchemaInvalid }

// newSchemaError is the SchemaError of the subset checker's violations.
func newSchemaError(version string, violations []subset.Violation) *SchemaError {
	e := &SchemaError{Version: version, Violations: make([]Violation, len(violations))}
	for i, v := range violations {
		e.Violations[i] = Violation{Path: v.Path, Property: v.Property, Message: v.Message}
	}
	return e
}

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
