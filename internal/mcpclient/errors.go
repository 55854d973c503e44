package mcpclient

import (
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/runtime"
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrClosed is returned by calls on a closed client.
	ErrClosed = errors.New("mcpclient: client closed")
	// ErrSessionNotFound means the server answered 404 to a request that
	// carried a session id: the session expired or was deleted. A new client
	// must be connected (the spec's "start a new session").
	ErrSessionNotFound = errors.New("session not found")
	// ErrUnsupportedProtocol means the client and server share no protocol
	// version, or a version was asked for that this client does not know.
	ErrUnsupportedProtocol = errors.New("unsupported protocol version")
	// ErrProtocol means the server sent something the protocol does not allow
	// (a malformed message, a wrong content type, a request where none may be
	// sent).
	ErrProtocol = errors.New("protocol violation")
	// ErrStreamEnded means a response stream closed before it carried the
	// response to the request it was opened for.
	ErrStreamEnded = errors.New("stream ended before the response")
	// ErrTooManyRounds means a 2026-07-28 call kept answering input_required
	// beyond [Options.MaxRounds].
	ErrTooManyRounds = errors.New("too many input_required rounds")
)

// JSON-RPC and MCP error codes the client produces or inspects. They are the
// runtime's constants, named here too so that a client need not import the
// server package to test a code.
const (
	CodeParseError     = runtime.CodeParseError
	CodeInvalidRequest = runtime.CodeInvalidRequest
	CodeMethodNotFound = runtime.CodeMethodNotFound
	CodeInvalidParams  = runtime.CodeInvalidParams
	CodeInternalError  = runtime.CodeInternalError

	CodeHeaderMismatch         = runtime.CodeHeaderMismatch
	CodeURLElicitationRequired = runtime.CodeURLElicitationRequired
)

// RPCError is a JSON-RPC error object: the runtime's type, one declaration
// for both ends. The client returns it when the server answers a request
// with an error response (whatever the HTTP status); an [Options.OnElicit]
// callback returns one to answer the elicitation with that error.
type RPCError = runtime.RPCError

// HTTPError is a non-2xx HTTP answer that carried no JSON-RPC error.
type HTTPError struct {
	Method     string // HTTP method
	StatusCode int
	Status     string
	// Body is the start of the response body, for the message.
	Body string
}

func (e *HTTPError) Error() string {
	if e.Body != "" {
		return fmt.Sprintf("%s: http %s: %s", e.Method, e.Status, e.Body)
	}
	return fmt.Sprintf("%s: http %s", e.Method, e.Status)
}
