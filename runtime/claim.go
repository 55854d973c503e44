package runtime

import (
	"context"
	"encoding/hex"
	"errors"
	"github.com/go-elicit/elicit/runtime/cluster"
	"sync"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/runtime/internal/callctx"
)

// Replays of a 2026-07-28 call. The server keeps nothing between the
// rounds of an input_required call: the answers travel in requestState. So
// a client that sends a retry again, with the same requestState (within
// Options.RequestStateTTL) and the same inputResponses, runs the handler
// again, to its end: stateless by design, and harmless for a handler that
// only reads. A handler with side effects calls ClaimCall right before
// them: the first run of the call that gets there goes on, any other run
// of the same call (a replay of its last round, or of an earlier one that
// walks the call to the same point again) gets ErrCallReplayed. A call is
// named by the nonce its first requestState drew, which every later state
// of the call carries; a new tools/call (without requestState) is a new
// call.

// ErrCallReplayed is what ClaimCall returns when the call already got
// past ClaimCall. A handler returns it as it is: the client then gets the
// JSON-RPC error -32602 (invalid params, like any requestState the server
// no longer takes), and, to run the tool again, calls it anew without
// requestState.
var ErrCallReplayed = errors.New("elicit: this call already ran: its requestState was sent again")

// ErrClaimUnsupported is what ClaimCall returns on a call served through
// an adapter (runtime/gosdk, runtime/mcpgo), which keeps no claims.
var ErrClaimUnsupported = errors.New("elicit: ClaimCall: calls served through runtime/gosdk or runtime/mcpgo cannot be claimed; serve the tool with runtime.Server to refuse replays")

// replayedError is ErrCallReplayed as a handler's error that the runtime
// turns into a JSON-RPC error.
type replayedError struct{}

var replayedRPC = &RPCError{Code: CodeInvalidParams, Message: "requestState already used: this call ran once and cannot run again; call the tool anew without requestState"}

func (replayedError) Error() string     { return ErrCallReplayed.Error() }
func (replayedError) Unwrap() []error   { return []error{ErrCallReplayed, replayedRPC} }
func (replayedError) Is(err error) bool { return err == ErrCallReplayed }

// ClaimCall claims the call ctx belongs to for side effects that must
// happen once: on a 2026-07-28 retry it records the call's nonce (in the
// Cluster when it is a cluster.Claimer, so that every replica refuses a
// replay; in this process otherwise, for Options.RequestStateTTL) and
// returns nil the first time, ErrCallReplayed for any later run of the same
// call. Call it after the last Elicit, right before the side effects; a
// second call in the same run returns what the first did. A call that has
// no requestState (a first run, or a session's call, whose answers cannot
// be replayed) always gets nil. When the claim cannot be recorded (the
// cluster is unreachable, or Options.MaxClaimedCalls calls are recorded)
// it returns an error that fails the call with -32603 rather than risk a
// second run.
//
// ClaimCall works on this package's Server only: on a call served through
// runtime/gosdk or runtime/mcpgo it returns [ErrClaimUnsupported] (those
// adapters keep no claims yet), so a handler shared with them fails loudly
// rather than run its side effects unguarded.
func ClaimCall(ctx context.Context) error {
	c, err := callFrom(ctx)
	if err != nil {
		if callctx.From(ctx) != nil {
			return ErrClaimUnsupported
		}
		return err
	}
	run := c.session.inputRun
	if run == nil {
		return nil
	}
	nonce, ok := run.Nonce()
	if !ok {
		return nil
	}
	c.claimOnce.Do(func() { c.claimErr = c.session.srv.claim(ctx, nonce) })
	return c.claimErr
}

// errClaimUnrecorded fails a call whose claim could not be recorded.
var errClaimUnrecorded = &RPCError{Code: CodeInternalError, Message: "server busy: cannot record that this call runs once; retry later"}

// claim records a call's nonce: nil the first time, a replayedError after.
func (s *Server) claim(ctx context.Context, nonce [roundtrip.NonceSize]byte) error {
	expires := time.Now().Add(s.opts.RequestStateTTL) // no state of the call lives longer
	if cc, ok := s.opts.Cluster.(cluster.Claimer); ok {
		ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
		defer cancel()
		fresh, err := cc.Claim(ctx, hex.EncodeToString(nonce[:]), expires)
		switch {
		case err != nil:
			s.log.Warn("call claim not recorded in the cluster", "err", err)
			return errClaimUnrecorded
		case !fresh:
			return replayedError{}
		}
		return nil
	}
	fresh, ok := s.claims.claim(nonce, expires, s.opts.MaxClaimedCalls)
	switch {
	case !ok:
		s.log.Warn("call claim not recorded: Options.MaxClaimedCalls calls are claimed")
		return errClaimUnrecorded
	case !fresh:
		return replayedError{}
	}
	return nil
}

// claimSet is the calls claimed in this process, each until it expires.
type claimSet struct {
	mu sync.Mutex
	m  map[[roundtrip.NonceSize]byte]int64 // unix nanos the entry expires
}

// claim records nonce: fresh is false when it was recorded and has not
// expired; ok is false when max entries are live.
func (cs *claimSet) claim(nonce [roundtrip.NonceSize]byte, expires time.Time, max int) (fresh, ok bool) {
	now := time.Now().UnixNano()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if exp, seen := cs.m[nonce]; seen && exp > now {
		return false, true
	}
	if cs.m == nil {
		cs.m = map[[roundtrip.NonceSize]byte]int64{}
	}
	if len(cs.m) >= max {
		for k, exp := range cs.m { // amortised: runs when the set is full
			if exp <= now {
				delete(cs.m, k)
			}
		}
		if len(cs.m) >= max {
			return false, false
		}
	}
	cs.m[nonce] = expires.UnixNano()
	return true, true
}
