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
//     next input_required result.
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
	"encoding/json"
	"errors"
	"fmt"
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

// State is what a requestState carries.
type State struct {
	Method     string
	Name       string
	ArgsDigest []byte // ArgsDigest of the arguments
	Subject    string
	Expires    time.Time // set by Seal, to the second
	Round      int       // input_required results issued so far
	Asked      []string  // keys asked in the last round
	Answers    map[string]json.RawMessage
}

// wireState is State as sealed; the short names keep the token small.
type wireState struct {
	V       int                        `json:"v"`
	Method  string                     `json:"m,omitempty"`
	Name    string                     `json:"n"`
	Args    []byte                     `json:"a"`
	Subject string                     `json:"s,omitempty"`
	Exp     int64                      `json:"e"` // unix seconds
	Round   int                        `json:"r"`
	Asked   []string                   `json:"q"`
	Answers map[string]json.RawMessage `json:"x,omitempty"`
}

const stateVersion = 1

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

// ArgsDigest hashes the arguments in a canonical form (decoded and
// re-encoded: sorted keys, no insignificant space, numbers as written), so a
// client that re-serialises the same arguments on its retry still matches.
// No arguments at all count as null.
func ArgsDigest(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("null")
	} else {
		var v any
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if canon, err := json.Marshal(v); err == nil {
				args = canon
			}
		}
	}
	d := sha256.Sum256(args)
	return d[:]
}

// Seal encrypts st, valid from now for the codec's lifetime, and sets
// st.Expires.
func (c *Codec) Seal(st *State) (string, error) {
	exp := time.Now().Add(c.ttl).Unix()
	plain, err := json.Marshal(wireState{
		V: stateVersion, Method: st.Method, Name: st.Name, Args: st.ArgsDigest, Subject: st.Subject,
		Exp: exp, Round: st.Round, Asked: st.Asked, Answers: st.Answers,
	})
	if err != nil {
		return "", err
	}
	st.Expires = time.Unix(exp, 0)
	aead := c.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, c.aad)), nil
}

// Open decrypts a state and checks it against the request it came back
// with: ErrTampered when this codec did not seal it, ErrExpired past its
// lifetime, ErrMismatch when it was sealed for another call.
func (c *Codec) Open(sealed string, call Call) (*State, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(sealed) // one token per state
	if err != nil {
		return nil, ErrTampered
	}
	var plain []byte
	opened := false
	for _, aead := range c.aeads {
		if len(raw) < aead.NonceSize()+aead.Overhead() {
			return nil, ErrTampered
		}
		if plain, err = aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], c.aad); err == nil {
			opened = true
			break
		}
	}
	if !opened {
		return nil, ErrTampered
	}
	var w wireState
	if err := json.Unmarshal(plain, &w); err != nil || w.V != stateVersion {
		return nil, ErrTampered
	}
	if time.Now().Unix() > w.Exp {
		return nil, ErrExpired
	}
	if w.Method != call.Method || w.Name != call.Name || w.Subject != call.Subject || !bytes.Equal(w.Args, ArgsDigest(call.Args)) {
		return nil, ErrMismatch
	}
	return &State{
		Method: w.Method, Name: w.Name, ArgsDigest: w.Args, Subject: w.Subject,
		Expires: time.Unix(w.Exp, 0), Round: w.Round, Asked: w.Asked, Answers: w.Answers,
	}, nil
}
