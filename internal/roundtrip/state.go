// Package roundtrip is the 2026-07-28 input_required machinery shared by the
// runtime and the adapters to other MCP server libraries.
//
// In that protocol a server may not send requests; a tool handler that
// elicits is answered with an input_required result naming what it asks,
// and the client retries the call with the answers (inputResponses) and the
// requestState the server handed it. The handler runs again from the top on
// every retry, so the answers of earlier rounds must travel with the client.
//
// Two pieces do that:
//
//   - Codec seals a State into the opaque requestState string and opens it
//     again: AES-256-GCM under a label of the caller's choosing, bound to the
//     method, the tool, a canonical digest of the arguments (ArgsDigest), the
//     caller's identity and an expiry. Every failure to open matches
//     ErrInvalidState.
//   - Run is the bookkeeping of one run of a handler: each ask gets a key
//     unique in the run ("k", "k_2", ...), is answered from the state and the
//     retry's inputResponses, or is recorded, in order, as a request of the
//     next input_required result. A state records each key it asked with a
//     digest of the question (QuestionDigest), and an answer counts only for
//     an ask of that key with the same question: inputResponses nobody asked
//     for (all of them on a first request) are ignored.
//
// A typical call: Codec.Resume (or NewRun on a first request), run the
// handler, and when Run.Requests is not empty answer input_required with
// those requests and Codec.SealRun.
package roundtrip

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Errors opening a requestState; all of them match ErrInvalidState.
var (
	ErrInvalidState = errors.New("invalid requestState")
	ErrExpired      = fmt.Errorf("%w: expired", ErrInvalidState)
	ErrTampered     = fmt.Errorf("%w: not issued by this server or altered", ErrInvalidState)
	ErrMismatch     = fmt.Errorf("%w: issued for another request", ErrInvalidState)
)

// Call is the request a state is bound to.
type Call struct {
	Method  string // e.g. "tools/call"
	Name    string // the tool
	Args    []byte // the arguments as sent (JSON); compared by ArgsDigest
	Subject string // the authenticated caller, "" when there is none
}

// State is what a requestState carries. Method, Name, ArgsDigest and
// Subject are not stored but bound (callBinding): Seal binds the state to
// them, and Open, which finds them equal, returns those of the call.
type State struct {
	Method     string
	Name       string
	ArgsDigest []byte // ArgsDigest of the arguments
	Subject    string
	Expires    time.Time // set by Seal, to the second
	Round      int       // input_required results issued so far
	Asked      []string  // keys asked in the last round
	Answers    map[string]json.RawMessage
	// Questions binds each key of Asked and Answers to the question it
	// stands for: QuestionDigest of the params it was asked with. An answer
	// counts only for an ask of the same key with the same params.
	Questions map[string][]byte
	// Nonce names the call: NonceSize random bytes, drawn when its first
	// state is sealed (when Nonce is empty; Open returns them) and carried
	// by every later state of the call, so that a replay of any of its
	// states is known for the same call.
	Nonce []byte
	// Telemetry is carried as it is from round to round, for the
	// caller's tracing (runtime/internal/telemetry's Rounds); at most
	// MaxTelemetrySize bytes.
	Telemetry []byte
}

// MaxTelemetrySize bounds State.Telemetry and Run.SetTelemetry.
const MaxTelemetrySize = 64

// NonceSize is the length of a state's nonce.
const NonceSize = 12

// stateVersion is the first byte of a sealed state's plaintext. Version 1
// was JSON; version 2 was the binary layout without the question digests;
// version 3 had no nonce; version 4 had no telemetry; version 5 stored the
// method, tool, argument digest and subject each in full; version 6 is the
// layout of appendSealed, which binds them through one digest (callBinding)
// and names a call's first state by its AEAD nonce. States of another
// version do not open (ErrTampered): they live minutes, and a client whose
// state is refused starts the call again.
const stateVersion = 6

// keySize is the AES-256 key length.
const keySize = 32

// Codec seals and opens request states. The first key seals; every key
// opens, so keys can be rotated across replicas.
type Codec struct {
	aeads []cipher.AEAD
	ttl   time.Duration
	aad   []byte
}

// NewCodec returns a codec whose states live ttl. keys are AES-256 keys of
// 32 bytes; none means one random key (states then open only in this
// process). label is the additional authenticated data: codecs with
// different labels never open each other's states, even under one key.
func NewCodec(keys [][]byte, ttl time.Duration, label string) (*Codec, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("elicit: requestState lifetime %v is not positive", ttl)
	}
	if len(keys) == 0 {
		k := make([]byte, keySize)
		_, _ = rand.Read(k)
		keys = [][]byte{k}
	}
	c := &Codec{ttl: ttl, aad: []byte(label)}
	for i, k := range keys {
		if len(k) != keySize {
			return nil, fmt.Errorf("elicit: RequestStateKeys[%d] has %d bytes, want %d", i, len(k), keySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		c.aeads = append(c.aeads, aead)
	}
	return c, nil
}

// TTL is how long a sealed state opens.
func (c *Codec) TTL() time.Duration { return c.ttl }

// Seal encrypts st, valid from now for the codec's lifetime, and sets
// st.Expires.
func (c *Codec) Seal(st *State) (string, error) {
	for k, v := range st.Answers {
		if len(v) > 0 && !json.Valid(v) {
			return "", fmt.Errorf("elicit: sealing requestState: the answer for %q is not JSON", k)
		}
	}
	exp := time.Now().Add(c.ttl).Unix()
	if len(st.Telemetry) > MaxTelemetrySize {
		return "", fmt.Errorf("elicit: sealing requestState: %d bytes of telemetry, more than %d", len(st.Telemetry), MaxTelemetrySize)
	}
	ps := plainState{binding: callBinding(st.Method, st.Name, st.Subject, st.ArgsDigest), exp: exp, round: st.Round, nonce: st.Nonce, telemetry: st.Telemetry}
	out := c.appendSealed(nil, &ps, func(b []byte) []byte {
		b = binary.AppendUvarint(b, uint64(len(st.Asked)))
		for _, k := range st.Asked {
			b = appendField(b, k)
			b = appendField(b, st.Questions[k])
		}
		b = binary.AppendUvarint(b, uint64(len(st.Answers)))
		for k, v := range st.Answers {
			b = appendAnswer(b, k, st.Questions[k], v)
		}
		return b
	})
	st.Expires = time.Unix(exp, 0)
	return string(out), nil
}

// plainState is the fixed part of a state's plaintext.
type plainState struct {
	binding   [bindingSize]byte // callBinding of the call
	exp       int64
	round     int
	nonce     []byte // the call's; empty on its first state: appendSealed draws it
	telemetry []byte
}

// bindingSize is the length of a state's call binding: 128 bits of
// SHA-256, as for question digests. Finding two calls with one binding
// takes about 2^64 hashes and both calls chosen by the finder, which gains
// a client nothing it could not do by calling the other one itself: the
// answers in a state count only for the very questions they answered, and
// a state sealed for another subject would need a second preimage (2^128).
const bindingSize = 16

// callBinding is what a state is bound to: the method, the tool, the
// caller's subject and the digest of the arguments (ArgsDigest), each
// length-prefixed, under one hash. The state carries it in place of the
// four, so it is the same size for any tool name, subject and arguments.
func callBinding(method, name, subject string, argsDigest []byte) (b [bindingSize]byte) {
	var buf [128]byte
	in := append(buf[:0], "elicit/call\x00"...)
	in = appendField(in, method)
	in = appendField(in, name)
	in = appendField(in, subject)
	in = appendField(in, argsDigest)
	sum := sha256.Sum256(in)
	copy(b[:], sum[:])
	return b
}

// appendSealed appends to dst the token of the state ps plus what lists
// appends (the asked keys and the answers): nonce, then the plaintext
// sealed in place, base64url without padding.
//
// The plaintext is: the version byte; the call's nonce, a uvarint length
// and its bytes (empty on a call's first sealed state, whose AEAD nonce
// names the call); the call binding (bindingSize bytes); expiry (unix
// seconds) and round as varints; the telemetry (a uvarint length and its
// bytes); the asked keys (a uvarint count, then each key and its question
// digest); the answers (a count, then each key, its question digest and
// its JSON).
func (c *Codec) appendSealed(dst []byte, ps *plainState, lists func([]byte) []byte) []byte {
	aead := c.aeads[0]
	ns := aead.NonceSize()
	buf := make([]byte, ns, ns+128+NonceSize+bindingSize+len(ps.telemetry)+aead.Overhead())
	_, _ = rand.Read(buf[:ns])
	// On the call's first state ps.nonce is empty, and so is the field:
	// the state's own random AEAD nonce names the call (see readState).
	buf = appendPlain(buf, ps, lists)
	if cap(buf)-len(buf) < aead.Overhead() {
		buf = slices.Grow(buf, aead.Overhead())
	}
	// In place: the ciphertext overwrites the plaintext it follows the
	// nonce with (exact overlap, which AEAD allows).
	sealed := aead.Seal(buf[:ns], buf[:ns], buf[ns:], c.aad)
	return b64.AppendEncode(dst, sealed)
}

// appendPlain appends the plaintext of the state ps (see appendSealed).
func appendPlain(buf []byte, ps *plainState, lists func([]byte) []byte) []byte {
	buf = append(buf, stateVersion)
	buf = appendField(buf, ps.nonce)
	buf = append(buf, ps.binding[:]...)
	buf = binary.AppendVarint(buf, ps.exp)
	buf = binary.AppendVarint(buf, int64(ps.round))
	buf = appendField(buf, ps.telemetry)
	return lists(buf)
}

func appendField[T ~string | ~[]byte](b []byte, v T) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendAnswer[K ~string | ~[]byte](b []byte, key K, question []byte, v json.RawMessage) []byte {
	b = appendField(b, key)
	b = appendField(b, question)
	if len(v) == 0 {
		v = json.RawMessage("null") // as json.Marshal writes an empty RawMessage
	}
	return appendField(b, v)
}

// b64 is the encoding of a token; strict, so a state has one token.
var b64 = base64.RawURLEncoding.Strict()

// openedState is a state's plaintext, checked for shape, its fields
// slices of it.
type openedState struct {
	nonce      []byte
	binding    []byte
	argsDigest [sha256.Size]byte // of the call it was checked against
	exp, round int64
	telemetry  []byte
	nAsked     uint64
	asked      []byte // nAsked pairs of fields
	nAnswers   uint64
	answers    []byte // nAnswers triples of fields
}

// open decrypts a token and reads its plaintext: ErrTampered when this
// codec did not seal it (or it is not of this version), ErrExpired past
// its lifetime, ErrMismatch when it was sealed for another call.
func (c *Codec) open(sealed []byte, call Call) (openedState, error) {
	var none openedState
	raw := make([]byte, b64.DecodedLen(len(sealed)))
	n, err := b64.Decode(raw, sealed)
	if err != nil {
		return none, ErrTampered
	}
	raw = raw[:n]
	var plain []byte
	opened := false
	for _, aead := range c.aeads {
		ns := aead.NonceSize()
		if len(raw) < ns+aead.Overhead() {
			return none, ErrTampered
		}
		// Into a copy: a failed Open may overwrite its destination, and the
		// next key needs the ciphertext intact.
		var ct []byte
		if len(c.aeads) == 1 {
			ct = raw[ns:]
		} else {
			ct = slices.Clone(raw[ns:])
		}
		if plain, err = aead.Open(ct[:0], raw[:ns], ct, c.aad); err == nil {
			opened = true
			break
		}
	}
	if !opened {
		return none, ErrTampered
	}
	return checkState(plain, raw[:NonceSize], call)
}

// checkState reads a plaintext and checks it against call: ErrTampered
// when it is not a state of this version, ErrExpired past its lifetime,
// ErrMismatch when it is another call's. sealedNonce is the AEAD nonce
// the state was sealed with, which names the call when the plaintext's
// nonce is empty; nil for a state kept in the clear, which must name it.
func checkState(plain, sealedNonce []byte, call Call) (openedState, error) {
	var none openedState
	st, ok := readState(plain)
	if !ok {
		return none, ErrTampered
	}
	if len(st.nonce) == 0 {
		if len(sealedNonce) != NonceSize {
			return none, ErrTampered
		}
		st.nonce = sealedNonce
	}
	if time.Now().Unix() > st.exp {
		return none, ErrExpired
	}
	st.argsDigest = argsDigest(call.Args)
	if b := callBinding(call.Method, call.Name, call.Subject, st.argsDigest[:]); !bytes.Equal(st.binding, b[:]) {
		return none, ErrMismatch
	}
	return st, nil
}

// stateReader reads the fields of a plaintext; a read past its end or of a
// malformed number marks it bad.
type stateReader struct {
	b   []byte
	bad bool
}

func (r *stateReader) field() []byte {
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) {
		r.bad, r.b = true, nil
		return nil
	}
	v := r.b[k : k+int(n) : k+int(n)]
	r.b = r.b[k+int(n):]
	return v
}

// bytes reads n bytes.
func (r *stateReader) bytes(n int) []byte {
	if len(r.b) < n {
		r.bad, r.b = true, nil
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *stateReader) uvarint() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[k:]
	return n
}

func (r *stateReader) varint() int64 {
	n, k := binary.Varint(r.b)
	if k <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[k:]
	return n
}

// fields skips n fields and returns the bytes they take.
func (r *stateReader) fields(n uint64) []byte {
	start := r.b
	if n > uint64(len(r.b)) { // every field takes at least a byte
		r.bad, r.b = true, nil
		return nil
	}
	for ; n > 0 && !r.bad; n-- {
		r.field()
	}
	if r.bad {
		return nil
	}
	return start[:len(start)-len(r.b)]
}

func readState(plain []byte) (openedState, bool) {
	var st openedState
	if len(plain) == 0 || plain[0] != stateVersion {
		return st, false
	}
	r := stateReader{b: plain[1:]}
	st.nonce, st.binding = r.field(), r.bytes(bindingSize)
	st.exp, st.round = r.varint(), r.varint()
	st.telemetry = r.field()
	st.nAsked = r.uvarint()
	if st.nAsked > uint64(len(r.b)) {
		return st, false
	}
	st.asked = r.fields(2 * st.nAsked)
	st.nAnswers = r.uvarint()
	if st.nAnswers > uint64(len(r.b)) {
		return st, false
	}
	st.answers = r.fields(3 * st.nAnswers)
	if r.bad || len(r.b) != 0 || st.round != int64(int(st.round)) || len(st.nonce) != 0 && len(st.nonce) != NonceSize || len(st.telemetry) > MaxTelemetrySize {
		return st, false
	}
	return st, true
}

// eachAsked calls f with each asked key and its question digest, in order.
func (st *openedState) eachAsked(f func(key, question []byte)) {
	r := stateReader{b: st.asked}
	for n := st.nAsked; n > 0; n-- {
		k := r.field()
		f(k, r.field())
	}
}

// eachAnswer calls f with each sealed answer.
func (st *openedState) eachAnswer(f func(key, question, answer []byte)) {
	r := stateReader{b: st.answers}
	for n := st.nAnswers; n > 0; n-- {
		k, q := r.field(), r.field()
		f(k, q, r.field())
	}
}

// Open decrypts a state and checks it against the request it came back
// with: ErrTampered when this codec did not seal it, ErrExpired past its
// lifetime, ErrMismatch when it was sealed for another call.
func (c *Codec) Open(sealed string, call Call) (*State, error) {
	st, err := c.open([]byte(sealed), call)
	if err != nil {
		return nil, err
	}
	out := &State{
		Method: call.Method, Name: call.Name, ArgsDigest: bytes.Clone(st.argsDigest[:]), Subject: call.Subject,
		Expires: time.Unix(st.exp, 0), Round: int(st.round), Nonce: bytes.Clone(st.nonce), Telemetry: bytes.Clone(st.telemetry),
	}
	out.Questions = make(map[string][]byte, st.nAsked+st.nAnswers)
	st.eachAsked(func(k, q []byte) {
		out.Asked = append(out.Asked, string(k))
		out.Questions[string(k)] = q
	})
	if st.nAnswers > 0 {
		out.Answers = make(map[string]json.RawMessage, st.nAnswers)
		st.eachAnswer(func(k, q, v []byte) {
			out.Answers[string(k)] = v
			out.Questions[string(k)] = q
		})
	}
	return out, nil
}
