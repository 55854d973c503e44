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
	return reply{status: status, frame: encodeError(id, e)}
}
