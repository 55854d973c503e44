package runtime

import (
	"encoding/json"
	"net/http"
)

// Between the transports and the mechanisms: a transport (Streamable HTTP,
// stdio) decodes a message (readMessage), gives it a sink for whatever the
// request sends before its response, hands it to the mechanism it belongs
// to (sessionful.go, inputrequired.go), and writes the reply it gets back
// through that sink.

// reply is the answer to one message: a frame (nil: none) and the HTTP
// status it carries when the reply has not become a stream.
type reply struct {
	status int
	frame  []byte
	// cancelled marks the reply of a request the client cancelled: the
	// spec asks not to answer it, so a transport sends frame (a -32800
	// error) only where a reply must carry something (an HTTP reply that
	// has not become a stream).
	cancelled bool
	// code is an error reply's JSON-RPC code, toolError a tools/call
	// result with isError: what telemetry reports of the outcome.
	code      int
	toolError bool
}

// cancelledReply is the reply of a request the client cancelled.
func cancelledReply(id json.RawMessage) reply {
	r := replyError(http.StatusOK, id, rpcErrorf(CodeRequestCancelled, "request cancelled"))
	r.cancelled = true
	return r
}

func replyResult(id json.RawMessage, result []byte) reply {
	return reply{status: http.StatusOK, frame: encodeRawResponse(id, result)}
}

func replyError(status int, id json.RawMessage, e *RPCError) reply {
	return reply{status: status, frame: encodeError(id, e), code: e.Code}
}

// appendToolResult appends res as json.Marshal encodes it, byte for byte
// (an invalid UTF-8 byte as \ufffd, as Go 1.26's encoding/json writes it;
// Go 1.27's writes the same character unescaped), when its shape is the
// common one: no StructuredContent and no item with
// a Resource (values of any type, which only encoding/json knows how to
// write). ok is false, and dst unchanged, for any other result. Writing
// the fixed shape directly spares a reflection pass and the copy of its
// output into the frame on every call (TestAppendToolResult checks it
// against json.Marshal).
func appendToolResult(dst []byte, res *CallToolResult) ([]byte, bool) {
	if res.StructuredContent != nil {
		return dst, false
	}
	for i := range res.Content {
		if res.Content[i].Resource != nil {
			return dst, false
		}
	}
	dst = append(dst, `{"content":`...)
	if res.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, c := range res.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":`...)
			dst = appendJSONString(dst, c.Type)
			dst = appendOptionalString(dst, `,"text":`, c.Text)
			dst = appendOptionalString(dst, `,"data":`, c.Data)
			dst = appendOptionalString(dst, `,"mimeType":`, c.MimeType)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}

// appendOptionalString appends the member name (with its leading comma)
// and s, unless s is empty (omitempty).
func appendOptionalString(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, name...), s)
}

// toolResultSize is room for res written by appendToolResult.
func toolResultSize(res *CallToolResult) int {
	n := 32
	for i := range res.Content {
		c := &res.Content[i]
		n += 48 + len(c.Type) + len(c.Text) + len(c.Data) + len(c.MimeType)
	}
	return n
}

// encodeToolResponse is the response frame of a tools/call with result
// res.
func encodeToolResponse(id json.RawMessage, res *CallToolResult) ([]byte, error) {
	b := make([]byte, 0, toolResultSize(res)+len(id)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b, ok := appendToolResult(b, res)
	if !ok {
		return encodeResponse(id, res)
	}
	return append(b, '}'), nil
}
