// Command mcptest is a scripted MCP client for testing MCP servers over
// Streamable HTTP or stdio, elicitation above all. It reads directives from
// stdin, connects, runs them in order and reports through stdout, stderr and
// its exit status.
//
// Usage:
//
//	mcptest --url URL [--elicit[=form,url]] [--sampling] [--roots] [--tasks] [--protocol VERSION] [--timeout D] [--trace] [--listen] [--header 'K: V'] < script
//	mcptest --stdio 'CMD ARGS' [--elicit[=form,url]] [--sampling] [--roots] [--tasks] [--protocol VERSION] [--timeout D] [--trace] < script
//
// For example, the same script against ze over HTTP and over stdio:
//
//	mcptest --url http://127.0.0.1:8080/mcp --elicit < accept.txt
//	mcptest --stdio './ze -stdio' --elicit < accept.txt
//
// Flags:
//
//	--url URL          the server endpoint, http:// or https://
//	--stdio 'CMD ARGS' instead of --url: run the server as a child process
//	                   (CMD ARGS split into words as a shell would: quote a
//	                   word with ' or ", or escape a character with \; no shell
//	                   runs, nothing is expanded) and speak the stdio
//	                   transport, newline-delimited
//	                   JSON-RPC on its stdin and stdout. The server's stderr is
//	                   passed through to mcptest's stderr, never read as
//	                   protocol. At the end mcptest closes the server's stdin
//	                   and waits up to 5s for it to exit (then SIGTERM, then
//	                   kill); a server that exits non-zero fails the run.
//	                   Exactly one of --url and --stdio is required.
//	--elicit           declare the elicitation capability as {} (form only)
//	--elicit=MODES     declare the listed modes, a comma list of form and url:
//	                   --elicit=form,url sends {"form":{},"url":{}}. Modes need
//	                   protocol 2025-06-18 (form) or 2025-11-25 (url); under
//	                   2025-06-18 --elicit=form sends {}, its only shape.
//	                   Without --elicit no elicitation capability is declared.
//	                   (--elicit takes no separate argument: write --elicit=url.)
//	--sampling         declare sampling ({"tools":{}} from 2025-11-25 on, {}
//	                   before), answered by sample-reply lines
//	--roots            declare roots, answered by roots-reply lines
//	--tasks            declare the tasks extension io.modelcontextprotocol/tasks
//	                   (protocol 2026-07-28 only; with another --protocol it
//	                   is a usage error): a call of a tool that allows tasks
//	                   then makes a task, for the task-* lines
//	--protocol VERSION 2026-07-28, 2025-11-25, 2025-06-18 or 2025-03-26.
//	                   2026-07-28 is sessionless, sends _meta (over HTTP also
//	                   the Mcp-Method / Mcp-Name headers) on every request and
//	                   answers input_required results by retrying; the others
//	                   run the initialize handshake with a session. Without
//	                   --protocol mcptest speaks the newest version the server
//	                   offers: 2026-07-28 when its server/discover lists it
//	                   (tried for at most 10s), else the newest version listed
//	                   in its -32022 error's data.supported or, without that,
//	                   the version the server picks in answer to an
//	                   initialize asking for 2025-11-25 (--trace shows the
//	                   attempt that failed). Over --stdio the server is
//	                   started again for the second attempt.
//	--timeout D        bound on the whole run (default 30s; 0 for none)
//	--trace            print every HTTP exchange (method, URL, status, MCP
//	                   headers, bodies) and every SSE frame (id, event, data),
//	                   or with --stdio every line sent and received, to
//	                   stderr, as numbered lines: "[n] >" sent, "[n] <"
//	                   received, "[n] *" a note from the client ("[-]" when a
//	                   line belongs to no request)
//	--listen           also open the standalone GET stream after the handshake,
//	                   for servers that send elicitations outside the call's
//	                   own response stream (e.g. servers answering POSTs with
//	                   application/json only); a 405 answer is fine (--url only)
//	--header 'K: V'    add an HTTP header to every request (repeatable), for
//	                   example an Origin or Authorization header (--url only)
//
// Script. One directive per line; blank lines and lines starting with '#'
// are skipped:
//
//	elicit-accept {"name":"Ada"}   queue an accept with this form content
//	elicit-accept                  queue an accept without content (URL mode)
//	elicit-decline                 queue a decline
//	elicit-cancel                  queue a cancel
//	elicit-reply ACTION {"k":1}    queue a reply with any action word and
//	                               any JSON content (an object, [], "x",
//	                               null...), verbatim, to test how a server
//	                               treats malformed answers
//	sample-reply {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}
//	                               queue the result of a sampling/createMessage
//	                               (sent verbatim; needs --sampling)
//	roots-reply {"roots":[{"uri":"file:///src"}]}
//	                               queue the result of a roots/list (verbatim;
//	                               needs --roots)
//	@TOOL {"arg":1}                call TOOL with these arguments
//	@TOOL                          call TOOL with {}
//	wait 500ms                     pause (Go duration syntax)
//	tools                          print tools/list: one line per tool, its
//	                               name, description and inputSchema,
//	                               separated by tabs
//	task-get                       tasks/get of the current task: prints
//	                               "task ID STATUS" (": MESSAGE" after it
//	                               when the task has a status message) and,
//	                               when it is input_required, a line per
//	                               request it waits for: a tab, its key,
//	                               method and message
//	task-wait                      poll the current task with tasks/get, at
//	                               the pollIntervalMs the server gives,
//	                               until it ends, answering each round of
//	                               its input requests from the queues with
//	                               tasks/update; its result is printed as a
//	                               call's, a failed task's error as a
//	                               call's JSON-RPC error, and a cancelled
//	                               task as "task ID cancelled: MESSAGE"
//	task-cancel                    tasks/cancel of the current task
//
// For example, the seed's scenario:
//
//	elicit-accept {"command":"show bgp peer list"}
//	@ze_execute {"command":""}
//
// The whole script is read and checked before anything is sent; every bad
// line is reported as "stdin:LINE: message" and the exit status is 2.
// Directives then run in order: elicit-* lines go on a queue, and each
// elicitation the server sends (whichever call it belongs to) takes the
// oldest queued reply. An elicitation that finds the queue empty is answered
// with cancel, with a note on stderr, so a short script never leaves a server
// waiting. Replies still queued at the end are reported on stderr (they do
// not change the exit status). A URL-mode elicitation prints
// "elicitation url: URL" to stdout and is answered from the queue too; an
// accept is sent without content. sample-reply and roots-reply lines have
// queues of their own, taken the same way by each sampling/createMessage
// and roots/list the server sends (as a request in a session, as an input
// request on 2026-07-28); an empty queue answers with error -1, as a
// client whose user refused, with a note on stderr.
//
// Tasks. With --tasks, an @TOOL line whose tool runs as a task gets a task
// handle instead of a result: mcptest prints "task ID STATUS" and that
// task is the current one, for the task-* lines after it, until the next
// handle. A task-* line with no current task fails (status 1) and the
// script goes on. For example, a task answered, then one cancelled:
//
//	elicit-accept {"name":"Ada"}
//	@greet
//	task-wait
//	@deploy
//	task-cancel
//	task-get
//
// Output. A tool result's content goes to stdout, one line per item: the text
// of text items, the JSON of other items, then structuredContent as JSON if
// present. A result with isError set goes to stderr instead, each line
// prefixed "mcptest: stdin:LINE: @TOOL: ", and so do errors.
//
// Exit status: 0 when every call succeeded; 1 when any call failed (isError
// or a JSON-RPC error), the server could not be reached or broke the
// protocol, or the run timed out; 2 for bad flags or a bad script. A failed
// call does not stop the script — later directives still run, so one run can
// check several outcomes — but a transport failure (the server unreachable,
// or a stdio server that exited) or the timeout does. At the end the
// session is deleted (HTTP DELETE), or the stdio server's stdin is closed
// and the server waited for. A stdio server that wrote anything but
// JSON-RPC on its stdout (a stray log line) fails the run with exit status
// 1 even though mcptest skipped the line: real clients do not.
package main

import (
	"os"

	"github.com/go-elicit/elicit/cmd/mcptest/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
