package runtime

import (
	"encoding/json"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// The rounds of an input_required call: the answers of earlier rounds
// travel sealed in requestState (bound to the call and its subject), this
// retry's in inputResponses; openRound rebuilds them into the run the
// handler's Elicit reads, and inputRequired seals the next requestState.

// requestStateLabel keeps the runtime's requestState ciphertexts apart from
// the adapters' and from any other use of the same key.
const requestStateLabel = "elicit/requestState/v1"

// newStateCodec returns the codec of the runtime's requestState.
func newStateCodec(keys [][]byte, ttl time.Duration) (*roundtrip.Codec, error) {
	return roundtrip.NewCodec(keys, ttl, requestStateLabel)
}

// roundTripParams are the round-trip params of a 2026-07-28 tools/call.
type roundTripParams struct {
	InputResponses json.RawMessage
	RequestState   []byte // the token as sent
	HasState       bool   // a requestState was sent (it may be empty)
}

// stateCall is what the requestState of a call is bound to.
func stateCall(method string, p callParams, subject string) roundtrip.Call {
	return roundtrip.Call{Method: method, Name: p.Name, Args: p.Arguments, Subject: subject}
}

// openRound makes run, a zero Run, this round's: it rebuilds the answers
// of earlier rounds from requestState and adds this retry's
// inputResponses for the keys that were asked. Without a requestState
// nothing was asked, so inputResponses are not even read: a form the user
// was never shown does not count as answered.
func (s *Server) openRound(run *roundtrip.Run, method string, p callParams, mp roundTripParams, subject string) *RPCError {
	if !mp.HasState {
		run.Start()
		return nil
	}
	var responses map[string]json.RawMessage
	if len(mp.InputResponses) > 0 && string(mp.InputResponses) != "null" {
		// A retry: its responses are looked up in place, for the keys the
		// state asked.
		if rs, ok := scanResponses(mp.InputResponses); ok {
			if rs.bad != nil {
				return rpcErrorf(CodeInvalidParams, "inputResponses[%q] must be an object", clip(string(rs.bad)))
			}
			return s.resume(run, method, p, mp, subject, rs.lookup)
		}
		var ok bool
		if responses, ok = decodeResponsesFast(mp.InputResponses); !ok {
			var decoded map[string]json.RawMessage
			if err := roundtrip.StrictUnmarshal(mp.InputResponses, &decoded); err != nil {
				return rpcErrorf(CodeInvalidParams, "inputResponses must be an object of responses: %v", err)
			}
			responses = decoded
		}
		for k, v := range responses {
			if len(v) == 0 || v[0] != '{' {
				return rpcErrorf(CodeInvalidParams, "inputResponses[%q] must be an object", clip(k))
			}
		}
	}
	return s.resume(run, method, p, mp, subject, func(key []byte) (json.RawMessage, bool) {
		v, ok := responses[string(key)]
		return v, ok
	})
}

func (s *Server) resume(run *roundtrip.Run, method string, p callParams, mp roundTripParams, subject string, response func([]byte) (json.RawMessage, bool)) *RPCError {
	if err := s.states.ResumeLookup(run, mp.RequestState, stateCall(method, p, subject), response); err != nil {
		return rpcErrorf(CodeInvalidParams, "%v", err)
	}
	return nil
}

// scannedResponses are the members of a small inputResponses object, read
// in place; bad is the key of the first that is not an object.
type scannedResponses struct {
	n      int
	keys   [8][]byte
	values [8][]byte
	bad    []byte
}

// scanResponses reads inputResponses when it is an object of at most 8
// members with distinct keys; ok is false for anything else, which
// decodeResponsesFast or encoding/json then reads.
func scanResponses(raw json.RawMessage) (rs scannedResponses, ok bool) {
	end, ok := roundtrip.EachMember(raw, 0, func(k, v []byte) bool {
		if rs.n == len(rs.keys) {
			return false
		}
		for _, seen := range rs.keys[:rs.n] {
			if string(seen) == string(k) {
				return false // a duplicate: the last one counts
			}
		}
		rs.keys[rs.n], rs.values[rs.n] = k, v
		rs.n++
		return true
	})
	if !ok || roundtrip.SkipSpace(raw, end) != len(raw) {
		return rs, false
	}
	for i, v := range rs.values[:rs.n] {
		if len(v) == 0 || v[0] != '{' {
			rs.bad = rs.keys[i]
			break
		}
	}
	return rs, true
}

func (rs *scannedResponses) lookup(key []byte) (json.RawMessage, bool) {
	for i, k := range rs.keys[:rs.n] {
		if string(k) == string(key) {
			return rs.values[i], true
		}
	}
	return nil, false
}

// decodeResponsesFast reads inputResponses as json.Unmarshal would into a
// map of raw responses, the values slices of raw; ok is false for what it
// leaves to encoding/json.
func decodeResponsesFast(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	responses := make(map[string]json.RawMessage, 2)
	end, ok := roundtrip.EachMember(raw, 0, func(k, v []byte) bool {
		if _, dup := responses[string(k)]; dup {
			return false // refused by StrictUnmarshal
		}
		responses[string(k)] = v
		return true
	})
	return responses, ok && roundtrip.SkipSpace(raw, end) == len(raw)
}

// appendInputRequests appends the inputRequests object of the requests a
// run made, in the order the handler asked: the params are JSON this
// server built, the keys unique within the run.
func appendInputRequests(dst []byte, asked []roundtrip.Request) []byte {
	dst = append(dst, '{')
	for i, r := range asked {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, r.Key)
		dst = append(dst, `:{"method":"`...)
		dst = append(dst, wireMethod(r.Method)...)
		dst = append(dst, `","params":`...)
		dst = append(dst, r.Params...)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// inputRequired builds the input_required result for the requests a run made.
func (s *Server) inputRequired(msg *message, p callParams, run *roundtrip.Run, subject string) []byte {
	// Written directly, in the order the handler asked: the params are
	// JSON this server built, the keys unique within the run.
	var room [4]roundtrip.Request
	asked := run.AppendRequests(room[:0])
	// Room for the requests and a token of a first round (about 200
	// bytes); one carrying many answers grows the frame once.
	size := 256 + 2*len(subject)
	for _, r := range asked {
		size += 2*len(r.Key) + len(r.Params) + 48
	}
	frame := s.startTypedFrame(msg.ID, size)
	frame = append(frame, `"inputRequests":`...)
	frame = appendInputRequests(frame, asked)
	frame = append(frame, `,"requestState":"`...)
	// The token is base64url: nothing in it needs escaping.
	frame, err := s.states.AppendSealRun(frame, stateCall(msg.Method, p, subject), run)
	if err != nil {
		return encodeError(msg.ID, rpcErrorf(CodeInternalError, "sealing requestState: %v", err))
	}
	frame = append(frame, '"')
	return s.endTypedFrame(frame, "input_required")
}
