package runtime

import (
	"context"
	"errors"

	"github.com/go-elicit/elicit/runtime/internal/callctx"
	"github.com/go-elicit/elicit/runtime/internal/telemetry"
)

// observe answers a request with answer inside its span and duration
// metric (Options.TracerProvider, Options.MeterProvider): s.tel is set.
// protocol is the request's version, sessionID its session's ("" on
// 2026-07-28: mcp.session.id must not be set there).
func (s *Server) observe(ctx context.Context, msg *message, protocol, sessionID string, sk sink, answer func(context.Context) reply) reply {
	r := telemetry.Request{Method: msg.Method, ID: msg.ID, Protocol: protocol, SessionID: sessionID}
	if p, err := msg.decodedParams(); err == nil {
		r.Meta = p.Meta
		r.Target = p.Name
		if msg.Method == "resources/read" {
			r.Target = p.URI
		}
	}
	switch k := sk.(type) {
	case *httpSink:
		r.HTTP = k.req
	case batchSink:
		r.HTTP = k.shared.req
	case *stdioSink:
		r.Stdio, r.SessionID = true, "" // a stdio session's id is never on the wire
	}
	ctx, op := s.tel.Start(ctx, r)
	rep := answer(ctx)
	op.End(telemetry.Outcome{Code: rep.code, ToolError: rep.toolError})
	return rep
}

// startAsk starts the telemetry of an elicitation asked through a: nil
// (nothing recorded, nothing allocated) without a TracerProvider and
// MeterProvider, the server's (Options) for a call of this package's
// Server, the adapter's (callctx.Observed) for an adapter's call.
func startAsk(ctx context.Context, a asker, mode, form string, dropped []string) (context.Context, *telemetry.Ask) {
	var tel *telemetry.T
	switch c := a.(type) {
	case *call:
		if c.session != nil && c.session.srv != nil {
			tel = c.session.srv.tel
		}
	case *adaptedCall:
		if o, ok := c.c.(callctx.Observed); ok {
			tel = o.Telemetry()
		}
	}
	if tel == nil {
		return ctx, nil
	}
	return tel.StartAsk(ctx, telemetry.AskInfo{Mode: mode, Form: form, Protocol: a.protocol(), Dropped: dropped, RoundTrip: a.roundTrip()})
}

// endAsk ends the telemetry of an elicitation that ended with err, after
// reasks asks again.
func endAsk(ask *telemetry.Ask, err error, reasks int) {
	if ask == nil {
		return
	}
	ask.End(askOutcome(err), reasks)
}

// askOutcome is elicit.outcome for what an Elicit function returned.
func askOutcome(err error) string {
	var ce *ContentError
	switch {
	case err == nil:
		return telemetry.OutcomeAccept
	case errors.Is(err, ErrInputRequired):
		return telemetry.OutcomeInputRequired
	case errors.Is(err, ErrElicitDeclined):
		return telemetry.OutcomeDecline
	case errors.Is(err, ErrElicitCanceled):
		return telemetry.OutcomeCancel
	case errors.Is(err, ErrElicitTimeout):
		return telemetry.OutcomeTimeout
	case errors.As(err, &ce), errors.Is(err, ErrElicitMalformed):
		return telemetry.OutcomeInvalid
	}
	return telemetry.OutcomeError
}

// sessionErrorType is the error.type of a session that ended with err:
// "" when it ended as sessions do (deleted by the client, idle past its
// expiry, its stdio connection closed, the server shut down), "evicted"
// when the server made room for another.
func sessionErrorType(err error) string {
	if err == errSessionEvicted {
		return "evicted"
	}
	return ""
}
