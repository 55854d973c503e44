package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
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
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
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

	// params is Params decoded once, on first use: the era check, the
	// 2026-07-28 rules and tools/call all look at the same fields.
	params    *requestParams
	paramsErr error
}

// requestParams are the params fields the server reads, of any request.
type requestParams struct {
	Meta           map[string]json.RawMessage `json:"_meta"`
	Name           string                     `json:"name"`
	URI            string                     `json:"uri"`
	Arguments      json.RawMessage            `json:"arguments"`
	InputResponses json.RawMessage            `json:"inputResponses"`
	RequestState   *string                    `json:"requestState"`
}

// decodedParams decodes Params once; absent params decode as empty. Not
// safe for concurrent first use: a message is handled by one goroutine.
func (m *message) decodedParams() (*requestParams, error) {
	if m.params == nil && m.paramsErr == nil {
		m.params = &requestParams{}
		if len(m.Params) > 0 {
			m.paramsErr = json.Unmarshal(m.Params, m.params)
		}
	}
	return m.params, m.paramsErr
}

func (m *message) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *message) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }
func (m *message) isResponse() bool     { return m.Method == "" && len(m.ID) > 0 }

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
// null). id is a JSON value the message decoder has already checked, so its
// first byte says what it is.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
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

// encodeError builds a JSON-RPC error response; a nil id encodes as null.
func encodeError(id json.RawMessage, e *RPCError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	raw, _ := json.Marshal(e) // RPCError always marshals
	b := make([]byte, 0, len(raw)+len(id)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, raw...)
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
func appendJSONString(b []byte, s string) []byte {
	raw, _ := json.Marshal(s) // strings always marshal
	return append(b, raw...)
}

func rpcErrorf(code int, format string, args ...any) *RPCError {
	return &RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}
