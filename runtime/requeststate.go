package runtime

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

// requestState is what a 2026-07-28 input_required result hands the client
// to echo on its retry. The client holds it, so it is attacker-controlled
// input: it is sealed with AES-256-GCM and bound to the method, the tool, a
// digest of the arguments, the caller's identity and an expiry. It carries
// the answers gathered so far, because the handler runs again from the top
// on every retry.
type requestState struct {
	V       int                        `json:"v"`
	Method  string                     `json:"m"`
	Name    string                     `json:"n"`
	Args    []byte                     `json:"a"` // SHA-256 of the arguments
	Subject string                     `json:"s,omitempty"`
	Exp     int64                      `json:"e"` // unix seconds
	Round   int                        `json:"r"` // input_required results issued so far
	Asked   []string                   `json:"q"` // keys asked in the last round
	Answers map[string]json.RawMessage `json:"x,omitempty"`
}

const requestStateVersion = 1

// requestStateAAD separates these ciphertexts from any other use of the key.
var requestStateAAD = []byte("elicit/requestState/v1")

// Errors opening a requestState; all of them match errBadRequestState.
var (
	errBadRequestState = errors.New("invalid requestState")
	errStateExpired    = fmt.Errorf("%w: expired", errBadRequestState)
	errStateTampered   = fmt.Errorf("%w: not issued by this server or altered", errBadRequestState)
	errStateMismatch   = fmt.Errorf("%w: issued for another request", errBadRequestState)
)

// stateCodec seals and opens request states. The first key seals; every key
// opens, so keys can be rotated across replicas.
type stateCodec struct {
	aeads []cipher.AEAD
	ttl   time.Duration
}

func newStateCodec(keys [][]byte, ttl time.Duration) (*stateCodec, error) {
	if len(keys) == 0 {
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		keys = [][]byte{k}
	}
	c := &stateCodec{ttl: ttl}
	for i, k := range keys {
		if len(k) != 32 {
			return nil, fmt.Errorf("elicit: RequestStateKeys[%d] has %d bytes, want 32", i, len(k))
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

// argsDigest hashes the arguments in a canonical form (decoded and
// re-encoded: sorted keys, no insignificant space, numbers as written), so a
// client that re-serialises the same arguments on its retry still matches.
func argsDigest(args []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			args = canon
		}
	}
	d := sha256.Sum256(args)
	return d[:]
}

func (c *stateCodec) seal(st *requestState) (string, error) {
	st.V = requestStateVersion
	st.Exp = time.Now().Add(c.ttl).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	aead := c.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, plain, requestStateAAD)
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// open decrypts and checks a state against the request it came back with.
func (c *stateCodec) open(s, method, name string, args []byte, subject string) (*requestState, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errStateTampered
	}
	var plain []byte
	opened := false
	for _, aead := range c.aeads {
		if len(raw) < aead.NonceSize()+aead.Overhead() {
			return nil, errStateTampered
		}
		if plain, err = aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], requestStateAAD); err == nil {
			opened = true
			break
		}
	}
	if !opened {
		return nil, errStateTampered
	}
	var st requestState
	if err := json.Unmarshal(plain, &st); err != nil || st.V != requestStateVersion {
		return nil, errStateTampered
	}
	if time.Now().Unix() > st.Exp {
		return nil, errStateExpired
	}
	if st.Method != method || st.Name != name || string(st.Args) != string(argsDigest(args)) || st.Subject != subject {
		return nil, errStateMismatch
	}
	return &st, nil
}
