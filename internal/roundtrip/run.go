package roundtrip

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultKey is the key of an ask that names none.
const DefaultKey = "elicit"

// Request is one input request a run made: its key in inputRequests, its
// method ("" for elicitation/create, see AskMethod) and the params of the
// request (for elicitation, the elicitation/create params).
type Request struct {
	Key    string
	Method string
	Params json.RawMessage

	question [questionSize]byte // QuestionDigest of Params
}

// questionSize is the length of a question digest: 128 bits of SHA-256,
// collision-resistant enough for telling two questions of one call apart.
const questionSize = 16

// QuestionDigest is what a requestState binds an asked key to: a digest of
// the params it was asked with, byte for byte (the server builds them the
// same way on every run, so the same question has the same bytes).
func QuestionDigest(params []byte) []byte {
	d := questionDigest(params)
	return d[:]
}

// methodDigest is the question of an ask of method with params: for
// elicitation ("") the digest of the params alone, as before methods were
// named; for another method the digest of the method, a NUL and the params.
func methodDigest(method string, params []byte) (q [questionSize]byte) {
	if method == "" {
		return questionDigest(params)
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(params)
	copy(q[:], h.Sum(nil))
	return q
}

func questionDigest(params []byte) (q [questionSize]byte) {
	if m := knownQuestions.Load(); m != nil {
		if q, ok := (*m)[string(params)]; ok {
			return q
		}
	}
	sum := sha256.Sum256(params)
	copy(q[:], sum[:])
	rememberQuestion(params, q)
	return q
}

// knownQuestions holds the digests of the first questions asked in the
// process, by their params: a server asks the same few questions (a form
// and its message) on every request, twice per round trip (the ask, then
// the retry's), and a map lookup costs less than hashing them again. The
// map is copied on write and never changed once published, so that reads
// take no lock. It keeps at most maxKnownQuestions of at most
// maxKnownQuestionBytes each and then stops growing: the questions of a
// server whose messages vary per call are hashed every time, as they
// would be without it, at the cost of one lookup.
var knownQuestions atomic.Pointer[map[string][questionSize]byte]

const (
	maxKnownQuestions     = 64
	maxKnownQuestionBytes = 4096
)

func rememberQuestion(params []byte, q [questionSize]byte) {
	old := knownQuestions.Load()
	if len(params) > maxKnownQuestionBytes || old != nil && len(*old) >= maxKnownQuestions {
		return
	}
	m := make(map[string][questionSize]byte, maxKnownQuestions)
	if old != nil {
		maps.Copy(m, *old)
	}
	m[string(params)] = q
	knownQuestions.CompareAndSwap(old, &m) // lost to another writer: remembered on a later ask
}

// Run is the state of one run of a handler on a 2026-07-28 request. It is
// safe for concurrent use.
type Run struct {
	mu sync.Mutex
	// answers are from the state and this retry's inputResponses, for keys
	// an earlier round asked (keys unique). inputResponses for keys no
	// round asked (all of them on a first request) are ignored: an answer
	// counts only for a question the client was sent.
	answers  []answer
	requests []Request // asked in this run, in order
	used     []use     // how often each base key was asked in this run
	round    int       // input_required results issued before this run
	// nonce names the call (State.Nonce); hasNonce is false on a first run.
	nonce    [NonceSize]byte
	hasNonce bool
	// telemetry is State.Telemetry: the opened state's, then what
	// SetTelemetry gave for the next one.
	telemetry []byte

	// Room for the few answers, requests and keys of a typical run, so
	// that a run is one allocation.
	answersBuf  [2]answer
	requestsBuf [2]Request
	usedBuf     [2]use
}

// answer is one answer of a run: its key (a string, or a slice of the
// opened state), the digest of the question it answers and the response.
type answer struct {
	key      []byte
	question []byte
	raw      json.RawMessage
}

// use counts the asks of one base key.
type use struct {
	base string
	n    int
}

func (r *Run) init() {
	r.answers, r.requests, r.used = r.answersBuf[:0], r.requestsBuf[:0], r.usedBuf[:0]
}

// answerLocked returns the answer for key if it answers question; an
// answer to another question under key is dropped, so it is not sealed
// again.
func (r *Run) answerLocked(key string, question []byte) (json.RawMessage, bool) {
	for i, a := range r.answers {
		if string(a.key) == key {
			if string(a.question) == string(question) {
				return a.raw, true
			}
			r.answers = slices.Delete(r.answers, i, i+1)
			return nil, false
		}
	}
	return nil, false
}

// setAnswerLocked sets the answer for key, replacing one there is.
func (r *Run) setAnswerLocked(key, question []byte, raw json.RawMessage) {
	for i := range r.answers {
		if string(r.answers[i].key) == string(key) {
			r.answers[i].question, r.answers[i].raw = question, raw
			return
		}
	}
	r.answers = append(r.answers, answer{key: key, question: question, raw: raw})
}

// NewRun starts the run of a first request. It has no answers: whatever
// inputResponses a first request carries were not asked for and do not
// count.
func NewRun() *Run {
	r := &Run{}
	r.init()
	return r
}

// Start makes r, a zero Run its caller holds (inside a larger value, to
// spare an allocation), the run of a first request, as NewRun's is.
func (r *Run) Start() { r.init() }

// Resume opens the state a retry echoed and starts its run: the answers of
// earlier rounds, plus this retry's responses for the keys the last round
// asked (responses for other keys are ignored). Each answer stays bound to
// the question its key was asked with, and counts only for an ask of that
// key with the same params.
func (c *Codec) Resume(sealed string, call Call, responses map[string]json.RawMessage) (*Run, error) {
	r := &Run{}
	err := c.ResumeLookup(r, []byte(sealed), call, func(key []byte) (json.RawMessage, bool) {
		v, ok := responses[string(key)]
		return v, ok
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ResumeLookup is Resume with the token as bytes and the retry's responses
// looked up by key, for a caller that has both in place in a request, and
// that holds the run: it fills r, a zero Run.
func (c *Codec) ResumeLookup(r *Run, sealed []byte, call Call, response func(key []byte) (json.RawMessage, bool)) error {
	st, err := c.open(sealed, call)
	if err != nil {
		return err
	}
	r.resume(&st, response)
	return nil
}

// resume fills r, a zero Run, from an opened state and a retry's
// responses.
func (r *Run) resume(st *openedState, response func(key []byte) (json.RawMessage, bool)) {
	r.round, r.hasNonce, r.telemetry = int(st.round), true, st.telemetry
	copy(r.nonce[:], st.nonce)
	r.init()
	st.eachAnswer(func(k, q, v []byte) { r.setAnswerLocked(k, q, v) })
	st.eachAsked(func(k, q []byte) {
		if v, ok := response(k); ok {
			r.setAnswerLocked(k, q, v)
		}
	})
}

// ResumePlain is ResumeLookup for a state kept in the clear by a store the
// server trusts (a task's, see AppendPlainRun): the same answers, the same
// binding to the call and to each question, and the expiry the state was
// written with; nothing is decrypted.
func ResumePlain(r *Run, plain []byte, call Call, response func(key []byte) (json.RawMessage, bool)) error {
	st, err := checkState(plain, nil, call)
	if err != nil {
		return err
	}
	r.resume(&st, response)
	return nil
}

// AppendPlainRun is AppendSealRun in the clear, for a store the server
// trusts (a task's): the plaintext of the state that ends run r, which
// ResumePlain opens until exp.
func AppendPlainRun(dst []byte, call Call, r *Run, exp time.Time) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := argsDigest(call.Args)
	ps, err := r.stateLocked(call, d[:], exp)
	if err != nil {
		return dst, err
	}
	var nonce [NonceSize]byte
	if len(ps.nonce) == 0 { // the task's first state names it
		_, _ = rand.Read(nonce[:])
		ps.nonce = nonce[:]
	}
	return appendPlain(dst, &ps, r.appendListsLocked), nil
}

// SealRun seals the state of the input_required result that ends run r:
// the answers so far and the keys r asked.
func (c *Codec) SealRun(call Call, r *Run) (string, error) {
	b, err := c.AppendSealRun(nil, call, r)
	return string(b), err
}

// AppendSealRun is SealRun appending the token to dst, for a caller that
// writes it straight into a response.
func (c *Codec) AppendSealRun(dst []byte, call Call, r *Run) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := argsDigest(call.Args)
	ps, err := r.stateLocked(call, d[:], time.Now().Add(c.ttl))
	if err != nil {
		return dst, err
	}
	return c.appendSealed(dst, &ps, r.appendListsLocked), nil
}

// stateLocked is the fixed part of the state that ends run r, valid until
// exp, for the call whose arguments digest to digest; r.mu is held.
func (r *Run) stateLocked(call Call, digest []byte, exp time.Time) (plainState, error) {
	ps := plainState{binding: callBinding(call.Method, call.Name, call.Subject, digest), exp: exp.Unix()}
	for _, a := range r.answers {
		if len(a.raw) > 0 && !json.Valid(a.raw) {
			return ps, fmt.Errorf("elicit: sealing requestState: the answer for %q is not JSON", a.key)
		}
	}
	ps.round = r.round
	if len(r.requests) > 0 { // the state ends an input_required round; a run that asked nothing (one a task continues) adds none
		ps.round++
	}
	ps.telemetry = r.telemetry
	if r.hasNonce {
		ps.nonce = r.nonce[:]
	}
	return ps, nil
}

// appendListsLocked appends the lists of the state that ends run r: the
// keys it asked and the answers so far; r.mu is held.
func (r *Run) appendListsLocked(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(r.requests)))
	for i := range r.requests {
		b = appendField(b, r.requests[i].Key)
		b = appendField(b, r.requests[i].question[:])
	}
	b = binary.AppendUvarint(b, uint64(len(r.answers)))
	for _, a := range r.answers {
		b = appendAnswer(b, a.key, a.question, a.raw)
	}
	return b
}

// Ask returns the answer for the next ask of base in this run ("" is
// DefaultKey): the first ask of a base is keyed base, later ones base_2,
// base_3, ... Only an answer to this very question counts: one an earlier
// round asked under this key with the same params. When there is none, it
// records the request with params and reports false.
func (r *Run) Ask(base string, params json.RawMessage) (answer json.RawMessage, ok bool) {
	return r.AskMethod(base, "", params)
}

// AskMethod is Ask for a request of method: "" is elicitation/create (Ask),
// others are named ("sampling/createMessage", "roots/list"). The method is
// bound into the question a state seals for the key (methodDigest), so an
// answer counts only for an ask of the same method: a response is decoded
// by the method it was asked with, never taken for another's.
func (r *Run) AskMethod(base, method string, params json.RawMessage) (answer json.RawMessage, ok bool) {
	if base == "" {
		base = DefaultKey
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i := range r.used {
		if r.used[i].base == base {
			r.used[i].n++
			n = r.used[i].n
			break
		}
	}
	if n == 0 {
		r.used = append(r.used, use{base: base, n: 1})
		n = 1
	}
	key := base
	if n > 1 {
		key = base + "_" + strconv.Itoa(n)
	}
	q := methodDigest(method, params)
	if ans, ok := r.answerLocked(key, q[:]); ok {
		return ans, true
	}
	r.requests = append(r.requests, Request{Key: key, Method: method, Params: params, question: q})
	return nil, false
}

// Requests returns the requests of this run in the order asked; empty when
// every ask was answered.
func (r *Run) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// AppendRequests is Requests appending to dst.
func (r *Run) AppendRequests(dst []Request) []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(dst, r.requests...)
}

// Asked reports whether this run made requests: whether it ends in
// input_required. It is len(r.Requests()) > 0 without the copy.
func (r *Run) Asked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests) > 0
}

// Nonce returns the call's nonce (State.Nonce) on a retry; ok is false on
// a first run, which no state names yet.
func (r *Run) Nonce() (nonce [NonceSize]byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nonce, r.hasNonce
}

// Round is the number of input_required results issued before this run.
func (r *Run) Round() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.round
}

// Telemetry is what the state this run resumed carried for telemetry
// (State.Telemetry); nil on a first run.
func (r *Run) Telemetry() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.telemetry
}

// SetTelemetry sets what the state that ends this run carries for
// telemetry; more than MaxTelemetrySize bytes are not carried.
func (r *Run) SetTelemetry(b []byte) {
	if len(b) > MaxTelemetrySize {
		b = nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.telemetry = b
}
