package roundtrip

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
)

// DefaultKey is the key of an ask that names none.
const DefaultKey = "elicit"

// Request is one input request a run made: its key in inputRequests and the
// params of the request (for elicitation, the elicitation/create params).
type Request struct {
	Key    string
	Params json.RawMessage
}

// Run is the state of one run of a handler on a 2026-07-28 request. It is
// safe for concurrent use.
type Run struct {
	mu      sync.Mutex
	answers map[string]json.RawMessage // from the state and this retry's inputResponses
	// offered holds the inputResponses of a first request (no state): a
	// client may answer up front, and the keys the handler asks are taken
	// from here (and then sealed with the answers); the rest are ignored, as
	// the spec asks for information a server does not recognise.
	offered  map[string]json.RawMessage
	requests []Request      // asked in this run, in order
	used     map[string]int // how often each base key was asked in this run
	round    int            // input_required results issued before this run
}

// NewRun starts the run of a first request, whose inputResponses (offered,
// by key) answer the keys the handler asks; offered may be nil.
func NewRun(offered map[string]json.RawMessage) *Run {
	return &Run{answers: map[string]json.RawMessage{}, offered: offered}
}

// Resume opens the state a retry echoed and starts its run: the answers of
// earlier rounds, plus this retry's responses for the keys the last round
// asked (responses for other keys are ignored).
func (c *Codec) Resume(sealed string, call Call, responses map[string]json.RawMessage) (*Run, error) {
	st, err := c.Open(sealed, call)
	if err != nil {
		return nil, err
	}
	r := NewRun(nil)
	for k, v := range st.Answers {
		r.answers[k] = v
	}
	for _, k := range st.Asked {
		if v, ok := responses[k]; ok {
			r.answers[k] = v
		}
	}
	r.round = st.Round
	return r, nil
}

// SealRun seals the state of the input_required result that ends run r:
// the answers so far and the keys r asked.
func (c *Codec) SealRun(call Call, r *Run) (string, error) {
	r.mu.Lock()
	st := &State{
		Method:     call.Method,
		Name:       call.Name,
		ArgsDigest: ArgsDigest(call.Args),
		Subject:    call.Subject,
		Round:      r.round + 1,
		Answers:    r.answers,
	}
	for _, req := range r.requests {
		st.Asked = append(st.Asked, req.Key)
	}
	defer r.mu.Unlock() // Seal reads the answers
	return c.Seal(st)
}

// Ask returns the answer for the next ask of base in this run ("" is
// DefaultKey): the first ask of a base is keyed base, later ones base_2,
// base_3, ... When there is no answer yet, it records the request with
// params and reports false.
func (r *Run) Ask(base string, params json.RawMessage) (answer json.RawMessage, ok bool) {
	if base == "" {
		base = DefaultKey
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.used == nil {
		r.used = map[string]int{}
	}
	r.used[base]++
	key := base
	if n := r.used[base]; n > 1 {
		key = base + "_" + strconv.Itoa(n)
	}
	if ans, ok := r.answers[key]; ok {
		return ans, true
	}
	if ans, ok := r.offered[key]; ok {
		r.answers[key] = ans
		return ans, true
	}
	r.requests = append(r.requests, Request{Key: key, Params: params})
	return nil, false
}

// Requests returns the requests of this run in the order asked; empty when
// every ask was answered.
func (r *Run) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Round is the number of input_required results issued before this run.
func (r *Run) Round() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.round
}
