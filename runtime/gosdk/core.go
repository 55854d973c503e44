package gosdk

// This file is the library-independent core of an elicit adapter: the
// outcome mapping, the capability check and the 2026-07-28 round trip with
// its sealed requestState. runtime/gosdk/core.go and runtime/mcpgo/core.go
// are the same file but for the package clause (TestCoreInSync keeps them
// so): Go's internal rule leaves no folder both adapters may import, short of
// one under runtime/internal.

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
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// DefaultRequestStateTTL is how long a 2026-07-28 client may take to retry
// after an input_required result when Options.RequestStateTTL is zero.
const DefaultRequestStateTTL = runtime.DefaultRequestStateTTL

// versionModern is the protocol version of the input_required round trip.
const versionModern = runtime.Version20260728

func hasFormElicitation(v string) bool { return slices.Contains(subset.FormVersions, v) }

// hasElicitMode reports whether version v has the "mode" field.
func hasElicitMode(v string) bool { return v >= runtime.Version20251125 }

func isModern(v string) bool { return v >= versionModern }

// ElicitOption adjusts one Elicit call.
type ElicitOption func(*elicitOptions)

type elicitOptions struct{ key string }

// WithKey sets the input-request key this elicitation uses in a 2026-07-28
// input_required round trip (default: the form's key, e.g. "peer_form").
// Give each Elicit of one handler its own key when one form is asked twice.
func WithKey(key string) ElicitOption { return func(o *elicitOptions) { o.key = key } }

// errNotAdapted is ErrNoCall with the fix.
var errNotAdapted = fmt.Errorf("%w: register the tool through this adapter", runtime.ErrNoCall)

// checkForm reports why a client cannot be asked with a form, if it cannot:
// declared is whether it declared capabilities.elicitation at all, form and
// url whether it named those modes (2025-11-25 and later: {} means form).
func checkForm(version string, declared, form, url bool) error {
	switch {
	case !hasFormElicitation(version):
		return fmt.Errorf("%w: protocol %q has no elicitation", runtime.ErrElicitUnsupported, version)
	case !declared || (!form && url):
		return errMissingForm
	}
	return nil
}

// missingCapabilityError is ErrElicitUnsupported because the client did not
// declare form elicitation. On a 2026-07-28 request a handler that returns
// it fails the call with -32021 naming the capability, as the runtime does.
type missingCapabilityError struct{}

var errMissingForm error = missingCapabilityError{}

func (missingCapabilityError) Error() string {
	return runtime.ErrElicitUnsupported.Error() + ": the client did not declare form elicitation"
}
func (missingCapabilityError) Is(target error) bool { return target == runtime.ErrElicitUnsupported }

// missingCapabilityData is the data of the -32021 error.
var missingCapabilityData = json.RawMessage(`{"requiredCapabilities":{"elicitation":{"form":{}}}}`)

const (
	codeMissingCapability    = runtime.CodeMissingCapability
	missingCapabilityMessage = "missing required client capability: elicitation (form)"
)

// formSchema picks the generated requestedSchema for version.
func formSchema(d *formimpl.Descriptor, version string) (json.RawMessage, error) {
	variant, ok := d.Lookup(version)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: form %s has no schema for protocol %s", runtime.ErrElicitUnsupported, d.Name, version)
	case variant.Schema == nil:
		return nil, fmt.Errorf("%w: form %s: %s", runtime.ErrElicitUnsupported, d.Name, variant.Unsupported)
	}
	return variant.Schema, nil
}

// outcome maps an ElicitResult to the content of an accept or to the
// runtime's outcome error, exactly as runtime.Elicit does.
func outcome(raw []byte) (json.RawMessage, error) {
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: result is not an elicitation result: %v", runtime.ErrElicitMalformed, err)
	}
	switch r.Action {
	case "accept":
		if len(r.Content) > 0 && r.Content[0] != '{' && string(r.Content) != "null" {
			return nil, fmt.Errorf("%w: content must be an object", runtime.ErrElicitMalformed)
		}
		return r.Content, nil
	case "decline":
		return nil, runtime.ErrElicitDeclined
	case "cancel":
		return nil, runtime.ErrElicitCanceled
	case "":
		return nil, fmt.Errorf("%w: result has no action", runtime.ErrElicitMalformed)
	default:
		return nil, fmt.Errorf("%w: unknown action %q", runtime.ErrElicitMalformed, r.Action)
	}
}

// decodeAnswer turns a raw ElicitResult into the form value.
func decodeAnswer[T any, P interface {
	*T
	formimpl.Form
}](raw []byte) (T, error) {
	var v T
	content, err := outcome(raw)
	if err != nil {
		return v, err
	}
	if len(content) == 0 || string(content) == "null" {
		content = []byte("{}")
	}
	if err := P(&v).ElicitDecode(content); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// inputRequest is one elicitation a 2026-07-28 run asked for.
type inputRequest struct {
	key     string
	message string
	schema  json.RawMessage
}

// roundTrip is the state of one run of a tool handler on a 2026-07-28
// request. The handler runs again from the top on every retry; each Elicit
// gets the answer for its key, or records its request and fails with
// runtime.ErrInputRequired.
type roundTrip struct {
	mu      sync.Mutex
	answers map[string]json.RawMessage // raw ElicitResults, from requestState and inputResponses
	// offered holds the inputResponses of a first request (no requestState):
	// a key the handler asks is taken from here, the rest are ignored.
	offered map[string]json.RawMessage
	asked   []inputRequest
	used    map[string]int // how often each base key was asked in this run
	round   int            // input_required results issued before this run
}

func (rt *roundTrip) ask(base, message string, schema json.RawMessage) (json.RawMessage, error) {
	if base == "" {
		base = "elicit"
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.used == nil {
		rt.used = map[string]int{}
	}
	rt.used[base]++
	key := base
	if n := rt.used[base]; n > 1 {
		key = base + "_" + strconv.Itoa(n)
	}
	if ans, ok := rt.answers[key]; ok {
		return ans, nil
	}
	if ans, ok := rt.offered[key]; ok {
		rt.answers[key] = ans
		return ans, nil
	}
	rt.asked = append(rt.asked, inputRequest{key: key, message: message, schema: schema})
	return nil, runtime.ErrInputRequired
}

// pending returns the requests of this run, or nil when it asked nothing new.
func (rt *roundTrip) pending() []inputRequest {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Clone(rt.asked)
}

// requestState is what an input_required result hands the client to echo on
// its retry. The client holds it, so it is attacker-controlled: it is sealed
// with AES-256-GCM and bound to the tool, a digest of its arguments and an
// expiry. It carries the answers gathered so far.
type requestState struct {
	V       int                        `json:"v"`
	Name    string                     `json:"n"`
	Args    []byte                     `json:"a"` // SHA-256 of the canonical arguments
	Exp     int64                      `json:"e"` // unix seconds
	Round   int                        `json:"r"`
	Asked   []string                   `json:"q"` // keys asked in the last round
	Answers map[string]json.RawMessage `json:"x,omitempty"`
}

const requestStateVersion = 1

// requestStateAAD keeps these ciphertexts apart from the runtime's and from
// any other use of the same key.
var requestStateAAD = []byte("elicit/adapter/requestState/v1")

// Errors opening a requestState; all of them match errBadRequestState.
var (
	errBadRequestState = errors.New("invalid requestState")
	errStateExpired    = fmt.Errorf("%w: expired", errBadRequestState)
	errStateTampered   = fmt.Errorf("%w: not issued by this server or altered", errBadRequestState)
	errStateMismatch   = fmt.Errorf("%w: issued for another tool call", errBadRequestState)
)

// stateCodec seals and opens request states. The first key seals; every key
// opens, so keys can be rotated across replicas.
type stateCodec struct {
	aeads []cipher.AEAD
	ttl   time.Duration
}

func newStateCodec(keys [][]byte, ttl time.Duration) (*stateCodec, error) {
	if ttl <= 0 {
		ttl = DefaultRequestStateTTL
	}
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

// argsDigest hashes the arguments in a canonical form, so a client that
// re-serialises the same arguments on its retry still matches.
func argsDigest(args []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("null")
	} else if dec.Decode(&v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			args = canon
		}
	}
	d := sha256.Sum256(args)
	return d[:]
}

// openRound rebuilds a run's answers from the echoed state and this retry's
// responses (raw ElicitResults by key). state "" is a first request.
func (c *stateCodec) openRound(name string, args []byte, state string, responses map[string]json.RawMessage) (*roundTrip, error) {
	rt := &roundTrip{answers: map[string]json.RawMessage{}}
	if state == "" {
		rt.offered = responses
		return rt, nil
	}
	st, err := c.open(state, name, args)
	if err != nil {
		return nil, err
	}
	for k, v := range st.Answers {
		rt.answers[k] = v
	}
	for _, k := range st.Asked {
		if v, ok := responses[k]; ok {
			rt.answers[k] = v
		}
	}
	rt.round = st.Round
	return rt, nil
}

// sealRound seals the state for the input_required result of run rt.
func (c *stateCodec) sealRound(name string, args []byte, rt *roundTrip) (string, error) {
	rt.mu.Lock()
	st := &requestState{
		V:       requestStateVersion,
		Name:    name,
		Args:    argsDigest(args),
		Exp:     time.Now().Add(c.ttl).Unix(),
		Round:   rt.round + 1,
		Answers: rt.answers,
	}
	for _, r := range rt.asked {
		st.Asked = append(st.Asked, r.key)
	}
	plain, err := json.Marshal(st)
	rt.mu.Unlock()
	if err != nil {
		return "", err
	}
	aead := c.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, requestStateAAD)), nil
}

// open decrypts a state and checks it against the call it came back with.
func (c *stateCodec) open(s, name string, args []byte) (*requestState, error) {
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
	if st.Name != name || !bytes.Equal(st.Args, argsDigest(args)) {
		return nil, errStateMismatch
	}
	return &st, nil
}
