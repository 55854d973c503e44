package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/internal/subset"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeRequestCancelled answers a request the client cancelled, when a
	// response cannot be avoided (a plain JSON reply must carry something).
	CodeRequestCancelled = -32800
	// CodeURLElicitationRequired (2025-11-25) tells the client that the call
	// needs the user to complete one or more URL-mode elicitations first.
	CodeURLElicitationRequired = -32042
	// CodeHeaderMismatch (2026-07-28): a required header is missing or does
	// not match the request body.
	CodeHeaderMismatch = -32020
	// CodeMissingCapability (2026-07-28): the request needs a client
	// capability it did not declare.
	CodeMissingCapability = -32021
	// CodeUnsupportedVersion (2026-07-28): the protocol version is not one
	// this server speaks.
	CodeUnsupportedVersion = -32022
)

// RPCError is a JSON-RPC error object. A tool handler may return one (or wrap
// one) to fail the call with a protocol error instead of an isError result.
// It is the client's type too (the module's test client returns it for an
// error response), so its text shows Data, compacted.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if len(e.Data) == 0 {
		return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message)
	}
	var data bytes.Buffer
	if json.Compact(&data, e.Data) != nil {
		data.Reset()
		data.Write(e.Data)
	}
	return fmt.Sprintf("json-rpc error %d: %s (data: %s)", e.Code, e.Message, data.Bytes())
}

// ClientError is a JSON-RPC error the client answered an elicitation with.
// errors.Is(err, ErrElicitFailed) is true for it. It is deliberately not an
// *RPCError, so a handler that returns it verbatim makes an isError result
// rather than passing the client's error code off as the server's.
type ClientError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("%s: %d %s", ErrElicitFailed.Error(), e.Code, e.Message)
}

// Is makes errors.Is(err, ErrElicitFailed) true.
func (e *ClientError) Is(target error) bool { return target == ErrElicitFailed }

// message is any JSON-RPC 2.0 message as it arrives: request, notification
// or response, told apart by which fields are present.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`

	// params is Params decoded once, on first use (paramsRead): the
	// mechanism check, the 2026-07-28 rules and tools/call all look at the
	// same fields. Held by value, so that a message and its params are
	// one allocation.
	params     requestParams
	paramsRead bool
	paramsErr  error
}

// requestParams are the params fields the server reads, of any request.
type requestParams struct {
	Meta           map[string]json.RawMessage `json:"_meta"`
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses json.RawMessage            `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`

	// stateToken is requestState as sent, when the fast path read it
	// (stateSet) instead of RequestState: the token's bytes need no copy.
	stateToken []byte
	stateSet   bool
}

// requestState returns the requestState the request carries, if any.
func (p *requestParams) requestState() ([]byte, bool) {
	switch {
	case p.stateSet:
		return p.stateToken, true
	case p.RequestState != nil:
		return []byte(*p.RequestState), true
	}
	return nil, false
}

// decodedParams decodes Params once; absent params decode as empty. Not
// safe for concurrent first use: a message is handled by one goroutine.
func (m *message) decodedParams() (*requestParams, error) {
	if !m.paramsRead {
		m.paramsRead = true
		if len(m.Params) > 0 && !decodeParamsFast(m.Params, &m.params) {
			// Into params of its own: what encoding/json is handed
			// escapes, and m need not (see decodeMessage).
			p := new(requestParams)
			m.paramsErr = roundtrip.StrictUnmarshal(m.Params, p)
			m.params = *p
		}
	}
	return &m.params, m.paramsErr
}

// The fast paths below read a request in one pass over its bytes, as
// roundtrip.StrictUnmarshal would into message and requestParams, with the
// raw values slices of the input instead of copies. They handle what
// clients send: each field once, keys as declared; anything else (a key
// that differs only in case, a repeated member, a value of an unexpected
// type, invalid JSON) goes to StrictUnmarshal, which then decides, errors
// included: it refuses the first two (the strict member rule, see
// roundtrip.MemberError), so no input reads differently on the two paths
// or differently from a case-sensitive reader in front of the server.

// messageFields are the JSON names of message's fields.
var messageFields = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// decodeMessage decodes body into m as roundtrip.StrictUnmarshal does. Its
// values may be slices of body, which the caller must therefore not reuse.
// Every transport reads messages through it (HTTP, batch items, stdio).
func decodeMessage(body []byte, m *message) error {
	if decodeMessageFast(body, m) {
		return nil
	}
	// Into a message of its own: what encoding/json is handed escapes to
	// the heap, and a transport's message, read by the fast path, need not.
	slow := new(message)
	err := roundtrip.StrictUnmarshal(body, slow)
	*m = *slow
	return err
}

// decodeFailure is the error reply to a message decodeMessage refused: a
// member the strict rule refuses makes an invalid request, anything else
// is a parse error.
func decodeFailure(err error) *RPCError {
	var me *roundtrip.MemberError
	if errors.As(err, &me) {
		return rpcErrorf(CodeInvalidRequest, "invalid request: %v", err)
	}
	return rpcErrorf(CodeParseError, "parse error: %v", err)
}

// decodeMessageFast reads a request or notification, and its params in the
// same pass, or a response with a result (a client's answer to an
// elicitation); an error response goes to StrictUnmarshal.
func decodeMessageFast(body []byte, m *message) bool {
	var seen uint8
	end, ok := roundtrip.EachMemberAt(body, roundtrip.SkipSpace(body, 0), func(key []byte, at int) (int, bool) {
		var bit uint8
		end := at
		switch string(key) {
		case "jsonrpc":
			bit = 1
			var plain, ok bool
			if end, plain, ok = roundtrip.ScanString(body, at); !ok {
				return end, false
			}
			if string(body[at:end]) == `"2.0"` {
				m.JSONRPC = "2.0"
			} else if m.JSONRPC, ok = decodeString(body[at:end], plain); !ok {
				return end, false
			}
		case "id":
			bit = 2
			var ok bool
			if end, ok = roundtrip.ScanValue(body, at); !ok {
				return end, false
			}
			m.ID = body[at:end]
		case "method":
			bit = 4
			var plain, ok bool
			if end, plain, ok = roundtrip.ScanString(body, at); !ok {
				return end, false
			}
			if m.Method, ok = methodName(body[at:end], plain); !ok {
				return end, false
			}
		case "params":
			bit = 8
			var ok bool
			if end, ok = decodeParamsAt(body, at, &m.params); ok {
				m.paramsRead = true // read in this pass
			} else {
				m.params = requestParams{} // what was read before it failed
				if end, ok = roundtrip.ScanValue(body, at); !ok {
					return end, false // decodedParams leaves valid params to encoding/json
				}
			}
			m.Params = body[at:end]
		case "result":
			bit = 16
			var ok bool
			if end, ok = roundtrip.ScanValue(body, at); !ok {
				return end, false
			}
			m.Result = body[at:end]
		default:
			if foldsToAny(key, messageFields[:]) { // error, or a key encoding/json would match
				return end, false
			}
			return roundtrip.ScanValue(body, at)
		}
		if seen&bit != 0 {
			return end, false
		}
		seen |= bit
		return end, true
	})
	return ok && roundtrip.SkipSpace(body, end) == len(body)
}

// decodeString decodes a string token ScanString delimited.
func decodeString(tok []byte, plain bool) (string, bool) {
	s, err := roundtrip.DecodeString(tok, plain)
	return s, err == nil
}

// methodName decodes a method token; the common ones without allocating.
func methodName(tok []byte, plain bool) (string, bool) {
	if plain {
		switch string(tok[1 : len(tok)-1]) {
		case "tools/call":
			return "tools/call", true
		case "tools/list":
			return "tools/list", true
		case "server/discover":
			return "server/discover", true
		case "initialize":
			return "initialize", true
		case "notifications/initialized":
			return "notifications/initialized", true
		case "notifications/cancelled":
			return "notifications/cancelled", true
		}
	}
	return decodeString(tok, plain)
}

// paramsFields are the JSON names of requestParams's fields.
var paramsFields = [...]string{"_meta", "name", "uri", "arguments", "inputResponses", "requestState"}

// decodeParamsFast reads params (an object) into p.
func decodeParamsFast(params []byte, p *requestParams) bool {
	end, ok := decodeParamsAt(params, 0, p)
	return ok && roundtrip.SkipSpace(params, end) == len(params)
}

// decodeParamsAt reads the params object at b[i] into p, in one pass.
func decodeParamsAt(b []byte, i int, p *requestParams) (int, bool) {
	var seen uint8
	return roundtrip.EachMemberAt(b, i, func(key []byte, at int) (int, bool) {
		var bit uint8
		end := at
		var ok bool
		switch string(key) {
		case "_meta":
			bit = 1
			meta := make(map[string]json.RawMessage, 4)
			if end, ok = roundtrip.EachMember(b, at, func(k, v []byte) bool {
				if _, dup := meta[string(k)]; dup {
					return false // refused by StrictUnmarshal
				}
				meta[metaKey(k)] = v
				return true
			}); !ok {
				return end, false // not an object (null included), or for encoding/json
			}
			p.Meta = meta
		case "name", "uri":
			bit = 2
			if key[0] == 'u' {
				bit = 4
			}
			var plain bool
			if end, plain, ok = roundtrip.ScanString(b, at); !ok {
				return end, false
			}
			v, ok := decodeString(b[at:end], plain)
			if !ok {
				return end, false
			}
			if bit == 2 {
				p.Name = v
			} else {
				p.URI = v
			}
		case "arguments", "inputResponses":
			bit = 8
			if key[0] == 'i' {
				bit = 16
			}
			if end, ok = roundtrip.ScanValue(b, at); !ok {
				return end, false
			}
			if bit == 8 {
				p.Arguments = b[at:end]
			} else {
				p.InputResponses = b[at:end]
			}
		case "requestState":
			bit = 32
			var plain bool
			if end, plain, ok = roundtrip.ScanString(b, at); !ok {
				return end, false
			}
			if plain {
				p.stateToken, p.stateSet = b[at+1:end-1], true // its bytes are its value
				break
			}
			v, ok := decodeString(b[at:end], false)
			if !ok {
				return end, false
			}
			p.RequestState = &v
		default:
			if foldsToAny(key, paramsFields[:]) {
				return end, false
			}
			return roundtrip.ScanValue(b, at)
		}
		if seen&bit != 0 {
			return end, false
		}
		seen |= bit
		return end, true
	})
}

// decodeElicitResultFast reads an ElicitResult as StrictUnmarshal would
// into struct{Action string; Content json.RawMessage} (tags "action",
// "content"), content a slice of raw; ok is false for what it leaves to
// encoding/json. It is for elicitOutcome (adapter.go), whose
// json.Unmarshal is the largest decoding cost left on a 2026-07-28 retry.
func decodeElicitResultFast(raw []byte) (action string, content json.RawMessage, ok bool) {
	var seen uint8
	end, ok := roundtrip.EachMember(raw, roundtrip.SkipSpace(raw, 0), func(key, value []byte) bool {
		var bit uint8
		switch string(key) {
		case "action":
			bit = 1
			switch string(value) { // the spec's actions, without allocating
			case `"accept"`:
				action = "accept"
			case `"decline"`:
				action = "decline"
			case `"cancel"`:
				action = "cancel"
			default:
				v, ok := roundtrip.StringValue(value)
				if !ok {
					return false
				}
				action = v
			}
		case "content":
			bit = 2
			content = value
		default:
			return !foldsToAny(key, []string{"action", "content"})
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok || roundtrip.SkipSpace(raw, end) != len(raw) {
		return "", nil, false
	}
	return action, content, true
}

// metaKey is a _meta key as a string; the reserved ones without allocating.
func metaKey(k []byte) string {
	switch string(k) {
	case metaProtocolVersion:
		return metaProtocolVersion
	case metaClientCapabilities:
		return metaClientCapabilities
	case metaClientInfo:
		return metaClientInfo
	case metaLogLevel:
		return metaLogLevel
	case "progressToken":
		return "progressToken"
	}
	return string(k)
}

// foldsToAny reports a key encoding/json could match to one of names
// other than by equality: equal but for ASCII case, or not ASCII (its
// folding knows a few Unicode letters too).
func foldsToAny(key []byte, names []string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) { // both ASCII here: ASCII case folding
			return true
		}
	}
	return false
}

func (m *message) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }
func (m *message) isResponse() bool     { return m.Method == "" && len(m.ID) > 0 }

// msgKind is what a JSON-RPC message is.
type msgKind uint8

const (
	invalidMessage      msgKind = iota // not JSON, or not JSON-RPC 2.0
	requestMessage                     // a method and an id: answered
	notificationMessage                // a method, no id: never answered
	responseMessage                    // an id, a result or an error: a client's answer
)

// readMessage decodes one message — a POST body, a batch item, a stdio
// line — into m and tells what it is. Every transport classifies its
// messages through it. For an invalid message it returns the error to
// answer with, for m.ID: a message that could not be decoded leaves m
// empty (the reply's id is null), and encodeError writes an invalid id as
// null too. Whether an invalid message is answered at all is the
// transport's choice (see owesErrorReply).
func readMessage(b []byte, m *message) (msgKind, *RPCError) {
	if err := decodeMessage(b, m); err != nil {
		*m = message{}
		return invalidMessage, decodeFailure(err)
	}
	if err := m.validate(); err != nil {
		return invalidMessage, rpcErrorf(CodeInvalidRequest, "invalid request: %v", err)
	}
	switch {
	case m.isResponse():
		return responseMessage, nil
	case m.isNotification():
		return notificationMessage, nil
	}
	return requestMessage, nil
}

// owesErrorReply reports whether an invalid message gets an error reply on
// a transport that may stay silent (stdio): all but one that has a valid
// id and no method, since a response is never answered.
func (m *message) owesErrorReply() bool { return m.Method != "" || !validID(m.ID) }

// validate reports a message that is not JSON-RPC 2.0.
func (m *message) validate() error {
	if m.JSONRPC != "2.0" {
		return fmt.Errorf("jsonrpc must be %q", "2.0")
	}
	if len(m.ID) > 0 && !validID(m.ID) {
		return fmt.Errorf("id must be a string or a number")
	}
	switch {
	case m.Method != "":
		if m.Result != nil || m.Error != nil {
			return fmt.Errorf("a request cannot carry result or error")
		}
		if len(m.Params) > 0 && m.Params[0] != '{' {
			return fmt.Errorf("params must be an object")
		}
	case len(m.ID) > 0:
		if (m.Result == nil) == (m.Error == nil) {
			return fmt.Errorf("a response carries exactly one of result and error")
		}
	default:
		return fmt.Errorf("message is neither a request, a notification nor a response")
	}
	return nil
}

// validID accepts the JSON-RPC ids MCP allows: strings and numbers (not
// null, not booleans, arrays or objects). id is a JSON value the message
// decoder has already checked, so its first byte says what it is. A string
// must be valid UTF-8 as sent (escapes are ASCII), so that echoing it keeps
// a reply valid UTF-8 JSON. Numbers are echoed as sent, fractions and
// exponents included: MCP's RequestId is any JSON number, and JSON-RPC's
// "SHOULD NOT contain fractional parts" binds the client, while echoing
// the id exactly is what lets it match the reply.
//
// An id longer than maxIDBytes is not valid either: every reply echoes the
// id, and a reply must not grow with the request.
func validID(id json.RawMessage) bool {
	if len(id) == 0 || len(id) > maxIDBytes {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return utf8.Valid(id)
	case c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// idKey is a map key for a JSON-RPC id: "s:<string>" or "n:<number text>",
// so the string "1" and the number 1 stay distinct.
func idKey(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		_ = json.Unmarshal(id, &s)
		return "s:" + s
	}
	return "n:" + string(bytes.TrimSpace(id))
}

// encodeResponse builds a JSON-RPC response frame for id with result.
func encodeResponse(id json.RawMessage, result any) ([]byte, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return encodeRawResponse(id, raw), nil
}

func encodeRawResponse(id json.RawMessage, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// maxIDBytes bounds a JSON-RPC id as sent; see validID.
const maxIDBytes = 256

// maxErrorMessage bounds the message of an error reply, in bytes before
// escaping: names from the request are clipped where they are echoed
// (clip), and this catches what repeats them otherwise (an encoding/json
// error, say).
const maxErrorMessage = 1024

// encodeError builds a JSON-RPC error response; a nil or invalid id (see
// validID) encodes as null, so an error reply never echoes what made the
// request invalid. A message longer than maxErrorMessage is cut, and
// '<', '>' and '&' are not escaped (the reply is JSON, not HTML), so an
// error reply has a bound whatever the request.
func encodeError(id json.RawMessage, e *RPCError) []byte {
	if !validID(id) {
		id = json.RawMessage("null")
	}
	msg := subset.ClipTo(e.Message, maxErrorMessage)
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(RPCError{Code: e.Code, Message: msg, Data: e.Data}) // RPCError always encodes
	b := make([]byte, 0, raw.Len()+len(id)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, bytes.TrimRight(raw.Bytes(), "\n")...)
	return append(b, '}')
}

// encodeNotification builds a JSON-RPC notification frame.
func encodeNotification(method string, params any) ([]byte, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(raw)+len(method)+40)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = strconv.AppendQuote(b, method) // method names are ASCII
	b = append(b, `,"params":`...)
	b = append(b, raw...)
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string (json.Marshal's escaping).
func appendJSONString(b []byte, s string) []byte { return roundtrip.AppendString(b, s) }

func rpcErrorf(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// clip cuts a name or value from the client that an error message repeats
// (a method, a tool name, a header) to a short prefix, marked as cut, so
// that no error reply grows with the request.
func clip(s string) string { return subset.Clip(s) }
