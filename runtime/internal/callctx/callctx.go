// Package callctx carries the tool call of another server library (the
// call an adapter in runtime/gosdk or runtime/mcpgo serves) in a handler's
// context, so that runtime.Elicit, CanElicit, Dropped, ElicitSchema,
// ElicitURL and ClientSupportsElicit find it there as they find a call of
// runtime's own Server. It imports nothing of the runtime, which imports it.
package callctx

import (
	"context"
	"encoding/json"
	"time"

	"github.com/go-elicit/elicit/runtime/internal/telemetry"
)

// Call is what the runtime needs of an adapted tool call to elicit in it.
type Call interface {
	// ProtocolVersion is the request's protocol version.
	ProtocolVersion() string
	// Elicitation is what the client declared: declared whether it sent
	// capabilities.elicitation at all, form and url whether that names
	// those modes (on 2026-07-28 in this request's _meta).
	Elicitation() (declared, form, url bool)
	// Ask sends the elicitation/create params (a JSON object, form or URL
	// mode) and returns the client's raw ElicitResult. On a 2026-07-28
	// request it returns the answer recorded under key, or records the
	// request under key and returns runtime.ErrInputRequired. An error the
	// client answered with is a *runtime.ClientError.
	Ask(ctx context.Context, key string, params json.RawMessage) (json.RawMessage, error)
	// ElicitTimeout is how long Ask may wait for an answer in a session
	// (0: as long as ctx lives).
	ElicitTimeout() time.Duration
}

// Requester is what a Call also implements when its adapter can send the
// other requests a server makes of its client in a call:
// sampling/createMessage and roots/list.
type Requester interface {
	// Request is Ask for a request of method ("sampling/createMessage",
	// "roots/list"): on a 2026-07-28 request the method is sealed with
	// the key, so the answer is decoded by it.
	Request(ctx context.Context, key, method string, params json.RawMessage) (json.RawMessage, error)
	// ClientCapabilities is the capabilities object the client declared (on
	// 2026-07-28 in the request's _meta), nil when unknown.
	ClientCapabilities() json.RawMessage
}

// Observed is what a Call also implements when its adapter records
// telemetry (the adapters' Options.TracerProvider and MeterProvider): the
// elicitations asked in the call are recorded by that telemetry, their
// spans children of the call's span in the handler's context. A nil
// *telemetry.T records nothing.
type Observed interface {
	Telemetry() *telemetry.T
}

type key struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Call) context.Context { return context.WithValue(ctx, key{}, c) }

// From returns the call ctx carries, or nil (also for a nil ctx).
func From(ctx context.Context) Call {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(key{}).(Call)
	return c
}
