// Package mcpclient is a small, strict MCP client for the Streamable HTTP
// and stdio transports, written to drive servers from tests and from
// cmd/mcptest.
//
// Transports. [Options.URL] speaks Streamable HTTP to an endpoint.
// [Options.Command] instead starts the server as a child process and speaks
// stdio: newline-delimited JSON-RPC, one message a line, on the child's
// stdin and stdout, every request's messages sharing that one channel. The
// child's stderr is never read as protocol: it goes to [Options.Stderr]
// line by line, or into the trace. [Client.Close] closes the child's stdin,
// waits up to 5 seconds for it to exit, then sends SIGTERM and, 2 seconds
// later, kills it. [Options.Pipe] speaks the same stdio to a server in
// this process (runtime.Server.ServeStdio on io.Pipe pairs, as
// runtime/elicittest does): Close ends its input and, after the same 5
// seconds, its output. What the protocol means is the same over all: the same
// handshake, _meta, elicitation answers, input_required retries and
// cancellation, in one code path; only how bytes move differs.
//
// It speaks both protocol eras (over stdio as over HTTP, less the headers
// and the session id, which stdio has none of):
//
//   - Legacy (2025-03-26, 2025-06-18 — the default — and 2025-11-25):
//     [Connect] POSTs initialize, keeps the Mcp-Session-Id, sends
//     notifications/initialized and from then on the MCP-Protocol-Version
//     header the server negotiated. A POST's reply may be application/json
//     or text/event-stream; on a stream, server-to-client requests
//     (elicitation/create, ping) are answered by separate POSTs of the
//     JSON-RPC response (202 expected, any 2xx taken) while the stream is
//     read on until the call's response arrives (over stdio the request
//     arrives as a line and the answer is written as one). Notifications are shown in
//     the trace and passed to [Options.OnNotification]; a 2025-11-25
//     notifications/elicitation/complete gets a trace note. A stream that
//     ends early after events with ids is resumed with GET and
//     Last-Event-ID. With [Options.Listen] the standalone GET stream is
//     opened too, for servers that send requests outside a call's stream
//     (405 means the server has none). When a call's context ends before its
//     response, notifications/cancelled is sent so the server's handler
//     stops. [Client.Close] DELETEs the session (HTTP).
//   - Modern (2026-07-28): no handshake and no session. Every request
//     carries _meta with io.modelcontextprotocol/protocolVersion,
//     clientCapabilities and clientInfo, and over HTTP the
//     MCP-Protocol-Version, Mcp-Method and (for tools/call, prompts/get,
//     resources/read, and the task id for tasks/get, update and cancel)
//     Mcp-Name headers. Over stdio, notifications carry the
//     same _meta, and a call whose context ends sends notifications/cancelled
//     (over HTTP the closed connection tells the server). [Connect] calls server/discover to check the version. A
//     tools/call result with resultType "input_required" is answered from
//     its inputRequests through [Options.OnElicit] and retried with a new id,
//     inputResponses and the echoed requestState until it is complete.
//     With the tasks extension declared (Capabilities.Extensions), a
//     tools/call may return a task handle (resultType "task", taskId):
//     [Client.AwaitTask] polls it, answering its inputRequests the same
//     way through tasks/update, until it ends. A
//     server request on a modern stream is a protocol error (servers must
//     not send them), not a hang: over HTTP it fails the call, over stdio it
//     is answered with error -32600.
//
// Elicitation. Declare it with Capabilities.Elicitation: &ElicitationCapability{}
// sends {} (form only, the 2025-06-18 shape); Form and URL list the modes
// explicitly ({"form":{},"url":{}}, 2025-11-25 and later). An elicitation in
// a mode the client did not declare is refused with JSON-RPC error -32602
// before OnElicit sees it; without the capability, elicitation/create gets
// -32601. OnElicit runs in its own goroutine per elicitation and must return
// when its context is done: the call ended or timed out (HTTP), the
// connection closed (stdio), or the server sent notifications/cancelled for
// the elicitation's id — a request so cancelled gets no answer.
//
// Concurrency. A Client is safe for concurrent use. Over HTTP each call is
// its own POST with its own response stream; over stdio responses find
// their call by id. Either way several CallTool calls and their
// elicitations can be in flight on one connection.
//
// Errors. A JSON-RPC error response is an [*RPCError] (use errors.As), a
// non-2xx HTTP answer without one an [*HTTPError]. Sentinels for errors.Is:
// [ErrClosed], [ErrSessionNotFound] (404 on a session request: connect
// again), [ErrUnsupportedProtocol], [ErrProtocol] (the server broke the
// protocol), [ErrStreamEnded] (also: the stdio server exited, or its stdout
// broke the protocol, before the response — the error says which, with the
// exit status), [ErrTooManyRounds]. A tool result with isError set is a
// result, not an error. Over stdio a line that is not JSON-RPC, or a
// response to no pending request, is skipped with a trace note and counted
// ([Client.ProtocolViolations]); a line longer than MaxMessageBytes ends the
// connection.
//
// Trace. With [Options.Trace] set, every HTTP exchange is written as
// numbered lines:
//
//	[3] > POST http://127.0.0.1:41234/mcp        request line, MCP headers, body
//	[3] > Mcp-Session-Id: 4XJ...
//	[3] > {"jsonrpc":"2.0","id":2,"method":"tools/call",...}
//	[3] < HTTP/1.1 200 OK                          status and MCP headers
//	[3] < Content-Type: text/event-stream
//	[3] < sse id="..." event="message"             one SSE frame: id/event/retry
//	[3] < sse data: {"jsonrpc":"2.0","id":1,"method":"elicitation/create",...}
//	[4] > POST http://127.0.0.1:41234/mcp        the answer, as its own exchange
//	[3] * stream ended before the response; ...  a note from the client
//
// Only MCP-relevant headers are shown (never Authorization or cookies).
//
// Over stdio every line is shown as sent or received; a request and its
// response share a number, a server request and its answer get one of
// their own, and notifications and the child's stderr belong to none:
//
//	[-] * started ./ze -stdio (pid 4242)
//	[2] > {"jsonrpc":"2.0","id":2,"method":"tools/call",...}
//	[3] < {"jsonrpc":"2.0","id":"elicit-1","method":"elicitation/create",...}
//	[3] > {"jsonrpc":"2.0","id":"elicit-1","result":{"action":"accept",...}}
//	[2] < {"jsonrpc":"2.0","id":2,"result":{...}}
//	[-] ! a line the server wrote to stderr (when Options.Stderr is nil)
//	[-] * ./ze -stdio exited (status 0)
//
// Not done: the 2026-07-28 Mcp-Param-* headers for tool parameters that a
// tool's input schema annotates with x-mcp-header (a server that requires
// them answers -32020); sampling and roots requests (answered -32601); a new
// session after ErrSessionNotFound (connect again).
package mcpclient
