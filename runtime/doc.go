// Package runtime serves MCP tools over Streamable HTTP and lets a tool
// handler ask its user for input in the middle of a call (elicitation).
//
// # Serving
//
//	srv := runtime.NewServer(runtime.Options{Name: "ze", Version: "1.0"})
//	runtime.AddTool(srv, runtime.Tool{Name: "ze_execute", Description: "Run a ze command"}, execute)
//	http.Handle("/mcp", srv)
//
// A POST is answered with application/json unless its handler sends
// something first (an elicitation, a progress or log notification): then the
// reply upgrades in place to text/event-stream, the server's request goes out
// as an event, and the call's result is the stream's last event. The client
// answers the elicitation with a separate POST; the answer is routed, by the
// request id and only within the session that owns it, to the suspended
// handler. Calls of one session run concurrently, each on its own stream.
// The stream clears the http.Server's write and read deadlines, because a
// person may take longer to answer than any sane server timeout, and writes
// an SSE comment (": keep-alive") whenever it has been silent for
// Options.StreamKeepAlive (15 s), so that a proxy's read timeout (nginx's is
// 60 s) does not cut it while the person thinks.
//
// Protocol versions: 2025-03-26, 2025-06-18 and 2025-11-25 through the
// initialize handshake and Mcp-Session-Id sessions.
//
// # Resuming a stream
//
// Disconnection is not cancellation (2025-11-25, "Resumability and
// Redelivery"). Once a session's tools/call has upgraded its reply to a
// stream, its connection dropping does not end the call: the stream keeps
// its events (each has an id, "<stream>-<n>") and waits
// Options.StreamResumeWindow (1 minute) for the client to come back with a
// GET carrying its Mcp-Session-Id and the Last-Event-ID it got. That GET
// gets the events after that id again, then the rest of the stream up to
// the call's response. A running stream has one reader: a second GET takes
// over, and the first one's reply ends; a finished one replays its events
// to each GET that asks. A call nobody resumes within the window
// is cancelled, as a drop cancels it before its reply is a stream (its
// context's cause says why); a finished stream can be resumed within the
// window too, since its response may have been lost in flight (its events
// are freed at most an eighth of the window after it ends).
//
// A GET without Last-Event-ID gets 405 (there is no standalone stream:
// every server message here belongs to a call). One for a stream that is
// not kept (unknown, ended more than the window ago, another session's)
// gets 404, and one for events no longer kept gets 410, each with a
// JSON-RPC error body that says why, so a client stops waiting instead of
// hanging. Bounds: Options.MaxStreamReplayBytes of events per stream (the
// oldest go first), Options.MaxResumableStreams streams per session (a new
// one evicts the session's oldest finished one, or is not kept when all of
// them run), and the events count in Options.MaxHeldBytes, where kept
// events give way: a request or reply that would not fit frees finished
// streams first, then the older events of running ones (a resumption from
// before them gets 410). With a negative StreamResumeWindow nothing is kept and a drop
// cancels the call at once.
//
// # Several replicas
//
// 2026-07-28 calls need only the same Options.RequestStateKeys on every
// replica (and a cluster that is a [cluster.Claimer] for [ClaimCall] to
// refuse a replay on every replica). Sessions (initialize, Mcp-Session-Id)
// need Options.Cluster, a [cluster.Cluster] (runtime/natscluster is one on
// NATS; package runtime/cluster is the interface, for implementers):
//
//   - initialize publishes the session (id, version, capabilities, subject,
//     expiry) to a directory every replica reads;
//   - a replica that gets a request for a session it does not hold builds a
//     local view of it from the directory, so tools/list, ping and
//     tools/call work anywhere; each call runs, and elicits, on the replica
//     that received its POST, whose stream carries it;
//   - the elicitation request ids name their replica
//     ("elicit-<replica>.<random>"), and an answer whose id is not pending
//     where it lands is forwarded to that replica: 202 once the owner took
//     it, 400 when nobody waits for it, 502 when that replica is gone, 503
//     when the cluster cannot be reached;
//   - DELETE on any replica ends the session everywhere and wakes its
//     waiters wherever they are;
//   - a client's notifications/cancelled that lands on another replica
//     than the call it names is passed on to every replica, when the
//     cluster is also a [cluster.Canceler] (runtime/natscluster is).
//   - the stream ids name their replica too ("<replica>.<stream>-<n>"),
//     and a GET resuming a stream (see "Resuming a stream") that lands on
//     another replica relays the owner's stream, when the cluster is also
//     a [cluster.Resumer] (runtime/natscluster is); without one it gets
//     404. Give every replica the same Options.StreamKeepAlive: a relay
//     that hears nothing from the owner for twice that (plus 5 s) takes it
//     for gone and ends its GET.
//
// When the cluster cannot be reached (its errors match
// [cluster.ErrUnavailable]; runtime/natscluster first waits a few seconds
// for a connection that is reconnecting, so a short NATS restart costs
// latency rather than this), a replica keeps serving the sessions it holds:
// those it initialized and those it has served before (it keeps the view it
// built, within Options.MaxSessions, until the session idles out), calls,
// elicitations and answers included. For a session it does not hold it
// answers a notification 202 without handling it (a notification has no
// reply to fail, and no session here can take it: a cancel it carried is
// lost, as a cancel may be), and a request or an answer 503 with
// Retry-After and a JSON-RPC error; an answer whose call waits on
// another replica gets 503 too. The same answer posted again once
// the cluster is back reaches its call. When it comes back, so does all of
// this, by itself (runtime/natscluster publishes again the sessions a
// replica published, and says in its package doc what a restart of NATS
// loses).
//
// # Eliciting
//
// With a form generated by elicitgen (see cmd/elicitgen):
//
//	func execute(ctx context.Context, req *runtime.CallToolRequest, in Args) (*runtime.CallToolResult, error) {
//		if in.Command == "" {
//			if err := runtime.CanElicit[CommandForm](ctx); err != nil {
//				return runtime.ErrorResult("missing required argument: command"), nil
//			}
//			form, err := runtime.Elicit[CommandForm](ctx, "Which ze command should run?")
//			switch {
//			case errors.Is(err, runtime.ErrElicitDeclined), errors.Is(err, runtime.ErrElicitCanceled):
//				return runtime.ErrorResult("no command: %v", err), nil
//			case err != nil:
//				return nil, err
//			}
//			in.Command = form.Command
//		}
//		...
//	}
//
// CanElicit[T] tells whether the client can be asked T at all (its
// capability and protocol version; ClientSupportsElicit, only whether it
// takes forms). Every one of these finds the call, its session and its
// stream through ctx: pass the handler's, or one derived from it (ErrNoCall
// otherwise, on every protocol). No function takes a session as well.
//
// A field whose shape the client's protocol version cannot carry (a
// multi-select on 2025-06-18) is left out of the form when it is optional:
// it keeps its default or zero value, an answer that has it is a
// *ContentError, and Dropped[T] names such fields (nil when the client is
// asked everything). A required one makes T unsupported there: CanElicit[T]
// is an ErrElicitUnsupported naming it.
//
// A tool whose arguments type is a generated form can leave the asking to
// AddTool: with AskMissing, the required arguments a call left out are
// asked (that part of the form only) before the handler runs, and a client
// that cannot be asked gets "missing required argument: NAME".
//
// ElicitSchema takes a hand-built schema (map[string]any) instead and
// returns the content as a map (numbers as json.Number); the schema is
// checked against the elicitation subset of the session's protocol version
// before anything is sent, and the answer is validated against it.
//
// # Choices and defaults known at run time
//
// A field tagged elicit:"choices" (a string: one choice; a []string: a
// multi-select) gets its options at each call, with titles, named by the
// ChoicesField elicitgen declares for it (CommitForm_Files); WithDefaults
// prefills the form from a value of it:
//
//	//elicit:form
//	type CommitForm struct {
//		Files  []string `json:"files" elicit:"choices" validate:"min=1"`
//		Branch string   `json:"branch" elicit:"choices"`
//	}
//
//	form, err := runtime.Elicit[CommitForm](ctx, "Commit which files?",
//		runtime.WithChoices(CommitForm_Files, runtime.Choice{Value: "a.go", Title: "a.go (modified)"}),
//		runtime.WithChoices(CommitForm_Branch, runtime.Choice{Value: "main"}, runtime.Choice{Value: "dev"}),
//		runtime.WithDefaults(CommitForm{Branch: "main"}))
//
// A misspelt field name, WithDefaults of a value that is not a generated
// form, and either option given to ElicitSchema or ElicitURL do not
// compile (see ElicitOption). The call's schema is the generated one with
// those properties rebuilt and
// checked by the subset checker for the client's version before anything
// is sent (ErrElicitSchemaInvalid for an empty or repeated choice, a
// choices field of another form, a choices field without
// WithChoices, WithDefaults of another form, a default the property
// refuses): titles as oneOf/anyOf,
// or enumNames on 2025-06-18; defaults where the version carries them
// (booleans from 2025-06-18, the rest from 2025-11-25). A field of the
// WithDefaults value counts as given when it is not its type's zero value
// (a pointer: when not nil); a property whose default the version shows is
// optional, and the answer gets the default when the client leaves it out.
// A default the version cannot show (a string on 2025-06-18) is not used:
// the property stays as the form has it, and a required one left out is
// "is required", so the user is never given a value they did not see. An
// answer outside the call's choices is a *ContentError naming the
// property. On 2026-07-28 the handler runs again with the answer and must
// pass the same choices: an answer counts only for the question asked
// (see below), so when the choices changed between runs (a file appeared),
// the client is asked again with the new ones.
//
// # Outcomes
//
//	accept                        content, nil
//	decline                       ErrElicitDeclined
//	cancel                        ErrElicitCanceled
//	unknown action, bad result    ErrElicitMalformed
//	client answered an error      ErrElicitFailed (*ClientError)
//	content breaks the form       ErrElicitInvalidContent (*ContentError, every property named)
//	capability or version lacks   ErrElicitUnsupported
//	more than 32 pending          ErrElicitTooMany
//	bad hand-built schema         ErrElicitSchemaInvalid (*SchemaError, every violation listed)
//	nobody answered in time       ErrElicitTimeout (also context.DeadlineExceeded)
//	call's context ended          ctx.Err() (with its cause)
//	DELETE, idle expiry           ErrSessionClosed
//	Server.Shutdown               ErrServerShutdown (also ErrSessionClosed)
//	2026-07-28, no answer yet     ErrInputRequired (return; the handler runs again with it)
//
// When the server gives up on an elicitation (timeout, the call's context
// ended) it sends notifications/cancelled for it on the call's stream.
//
// # Empty means not given
//
// Form UIs send an optional field the user typed into and then cleared as
// "" (a text box) or null (a number box) rather than leaving it out. An
// optional property that arrives as "" or null is therefore not given: its
// default or zero value applies, and none of its checks (format, length,
// validate tags such as `validate:"omitempty,email"`) run on it. A required
// property is checked as sent: "" for a required string with a minLength or
// validate:"required" is refused as before, and null for a required
// property (or "" where its type has no empty value: numbers, booleans,
// enums, dates) "is required". The rule holds for generated forms,
// ElicitSchema (the property is left out of the map) and typed tool
// arguments whose type is a generated form.
//
// # Re-asking
//
// A user who mistypes gets ErrElicitInvalidContent, and the handler
// decides. WithReask(n) asks again instead, up to n times: the message says
// what was wrong and the properties that were right come back as defaults
// (where the version carries defaults: 2025-11-25 on, booleans since
// 2025-06-18):
//
//	p, err := runtime.Elicit[DeployForm](ctx, "Where should the service go?", runtime.WithReask(2))
//	// second ask: Where should the service go? — "host" must be a host name; please correct it
//
// On 2026-07-28 a re-ask is one more input_required round. It is opt-in:
// without it a bad answer is an error at once, as before, and a client that
// answers by itself is never held in a loop. ElicitSchema takes it too. In
// runtime/elicittest a re-ask is scripted as two answers: the invalid one,
// then the valid one.
//
// # URL mode
//
// ElicitURL sends the user to a page (a sign-in, a payment) instead
// of a form. A handler that cannot start before that returns
// URLElicitationRequired: -32042 on 2025-11-25, an input_required round trip
// on 2026-07-28 (the handler runs again on the retry), an isError result for
// a client that cannot be sent URLs.
//
// # Sampling and roots
//
// The other two requests a server makes of its client in a call take the
// same path: [Sample] asks the client's model (sampling/createMessage;
// tools and tool choice from 2025-11-25, so a handler can run the model's
// tool calls and sample again), [ListRoots] asks for the client's roots
// (roots/list). In a session each is a request on the call's stream; on
// 2026-07-28 an inputRequests entry, keyed "sampling" and "roots" by
// default ([WithKey] sets another), whose method is sealed with its key in
// the requestState, so an answer is decoded as what was asked under that
// key and counts for nothing else. A client that did not declare the
// capability is never sent the request: the handler gets a
// [MissingCapabilityError], -32021 on 2026-07-28 when returned. A refusal
// is a [ClientError], a timeout [ErrElicitTimeout]. [AskTogether] makes
// several asks (elicitations, samplings, roots) in one input_required
// round. Both are deprecated in 2026-07-28 (SEP-2577) and keep working
// until at least 2027-07-28, the earliest the protocol may remove them.
//
// # Strict JSON-RPC
//
// Every message is read the same way on every transport (HTTP with a
// session or without, 2025-03-26 batches, stdio), and so are the answers
// clients send back: member names match only exactly ("Method" is not
// "method"), and a member the server reads appears once; either is refused
// (-32600, or -32602 inside params) rather than read differently from a
// proxy in front of the server. An id that is not a string or a number, or a string
// that is not valid UTF-8, gets an error reply whose id is null, so a
// reply is always valid UTF-8 JSON; a number with a fraction is a valid id
// and is echoed as sent.
//
// # 2026-07-28: answers only to what was asked
//
// On 2026-07-28 an Elicit that has no answer yet ends the run with an
// input_required result naming the question under a key, and the client
// retries with inputResponses and the requestState it was handed. The
// requestState records, sealed under the server's key (AES-256-GCM, bound to
// the method, the tool, a digest of the arguments, the authenticated
// caller and a lifetime), each key the round asked and a digest of the
// question asked under it (the elicitation/create params: message and
// schema, or URL). An answer counts only for the same question: an Elicit
// of that key with the same params, in a later round of the same call.
// Everything else is ignored and the question is asked: inputResponses on
// a first request (no requestState), for a key the last round did not ask,
// or for a key that now stands for another question (the message or the
// form changed between rounds). The adapters (runtime/gosdk,
// runtime/mcpgo) follow the same rule.
//
// What this guarantees: the client was sent this exact question, by this
// server, earlier in this call. What it cannot: that a person saw it. A
// client (or an agent driving one) may still answer on the user's behalf;
// a handler that needs a person's consent for real needs more than
// elicitation (URL mode to a page of its own, for instance).
//
// Replays: the server keeps nothing between rounds, so a retry sent again
// with the same requestState (within Options.RequestStateTTL) and the same
// inputResponses runs the handler again, to its end, side effects and all.
// A handler with side effects calls [ClaimCall] right before them: the first
// run of the call to get there goes on, every later one (the last round
// sent again, or the call walked again from an earlier round's
// requestState) gets [ErrCallReplayed], which fails the request with
// -32602. Claims are kept in this process (Options.MaxClaimedCalls), or
// for every replica by a Cluster that is a [cluster.Claimer]
// (runtime/natscluster is). A new tools/call, without requestState, is a
// new call.
//
// # Set-up mistakes panic
//
// A mistake in setting a server up panics at once, with the fix in its
// text, as net/http's ServeMux.Handle and the go-sdk do: it fails the first
// run, never a user's request. The mistakes: a RequestStateKeys entry that
// is not 32 bytes (NewServer, and the adapters' New); a nil server given
// to an adapter's New; a tool with no name, a nil handler, or AskMissing
// for arguments that are not a generated form (AddTool, Server.AddTool and
// the adapters' AddTool); a Server or an adapter not made by its
// constructor (its zero value, or nil) given a tool. Nothing else panics:
// a zero value met while serving, and anything a client sends, is an
// error.
//
// # Telemetry
//
// With Options.TracerProvider and Options.MeterProvider (OpenTelemetry's
// API; nil, the default, records nothing and costs nothing), every request
// is traced and timed as the MCP semantic conventions say
// (open-telemetry/semantic-conventions-genai, model/mcp), on every
// protocol version and transport, except initialize (a session's start
// is timed by mcp.server.session.duration instead):
//
//   - a span of kind SERVER named "{mcp.method.name} {target}" ("tools/call
//     ze_execute", "tools/list"), a child of the trace context the request
//     carries: params._meta's traceparent, tracestate and baggage (SEP-414),
//     else the HTTP request's headers, read with the global propagator
//     (otel.SetTextMapPropagator), or W3C trace context and baggage when
//     none is set;
//   - its attributes: mcp.method.name, gen_ai.tool.name and
//     gen_ai.operation.name ("execute_tool") on tools/call,
//     jsonrpc.request.id, mcp.protocol.version, mcp.session.id (only for
//     an HTTP session: never on 2026-07-28, which has none, nor over stdio,
//     whose session has no id on the wire), network.transport ("tcp" or
//     "pipe"), network.protocol.name and version, client.address and
//     client.port; error.type is "tool_error" for an isError result and the
//     JSON-RPC code of an error response, which rpc.response.status_code
//     carries too;
//   - mcp.server.operation.duration, a histogram in seconds (buckets 0.01
//     to 300 s) with the same attributes but the ids.
//
// On 2026-07-28 one tools/call that elicits is several requests. Each
// request's span says its round (elicit.round: 0 for the first request)
// and its elicit.result_type ("input_required" or "complete"), and the
// requestState carries the first request's span context, so the span of
// every retry links to it: a trace shows the whole conversation.
//
// Beyond the conventions, in the elicit.* namespace: every Elicit,
// ElicitSchema and ElicitURL is a span "elicit", a child of its call's
// span, with elicit.mode, elicit.form (the form's Go type name, "schema"
// for ElicitSchema), mcp.protocol.version, elicit.dropped (the optional
// properties left out for that version), elicit.outcome (accept, decline,
// cancel, invalid, timeout, input_required: asked, on 2026-07-28, the
// answer comes with a retry; error) and elicit.reasks. In a session, where
// the handler waits in this process, elicit.answer.duration (seconds, by
// form, mode and outcome) times the person's answer and elicit.pending
// counts the elicitations waiting now; on 2026-07-28 that wait is the
// client's, between two requests, and neither is recorded. The adapters
// (runtime/gosdk, runtime/mcpgo) record the tools/call of their server the
// same way with their own Options.TracerProvider and MeterProvider (see
// their package docs for what their library does not tell them).
//
// # Tasks
//
// A call that waits hours for a person should not need a process to wait
// in. With a [TaskStore] in Options.Tasks (runtime/taskstore keeps tasks
// in a local file), a tool opts in with [Tool.TaskSupport]: a 2026-07-28
// tools/call from a client that declares [ExtensionTasks] in its
// capabilities is then answered with a task handle (resultType "task"),
// sent only once the task is in the store; the handler, unchanged, runs in
// the background. When it elicits, the task goes input_required and
// tasks/get shows the requests as inputRequests; tasks/update brings
// answers (partial ones too: the task stays input_required, tasks/get
// showing only the requests still unanswered, until every one has its
// response; responses for keys not outstanding are ignored; a key names one question for the task's life as long as the
// handler asks the same questions in the same order on every run, as on
// input_required retries) and the handler runs
// again from the top with the answers so far, as on an input_required
// retry; tasks/get then shows the result (completed: an isError result
// too) or the JSON-RPC error (failed). tasks/cancel ends the running
// handler's context. server/discover declares the extension; tasks/get,
// update and cancel need it declared and Mcp-Name set to the task id. A
// TaskRequired tool called without the extension gets -32021 naming it,
// and in a session before 2025-11-25 an error saying where it runs;
// a TaskOptional one runs as usual. A call of a tool that does not opt in
// costs one comparison more, and no allocation.
//
// A tool with [Tool.DeferTask] asks before it becomes a task, as SEP-2663
// prefers: its call starts as an ordinary 2026-07-28 call whose Elicits
// are input_required rounds, with no task yet, until the handler calls
// [ContinueAsTask]; that round is answered with the task's handle (the
// handler returns the [ErrContinueAsTask] it got), and the handler runs
// again in the task, where every answer of the rounds before is there
// without asking again. Where the call cannot become a task (a session, a
// client without the extension) ContinueAsTask returns nil, and the call
// runs to its end as usual.
//
// Bounds ([TaskOptions]): MaxPerOwner tasks per authenticated subject
// until they expire (everyone together without Options.Authenticate), a
// TTL from creation after which the task is gone (-32602 "unknown task")
// and its handler stopped, MaxBytes for what a task stores (the call, the
// questions and answers, the result: answers beyond it are refused, a
// result beyond it fails the task) and the pollIntervalMs clients are
// told. No caller sees another subject's task: its id, 128 random bits, is
// checked against the caller's subject on every request.
//
// Status notifications: a 2026-07-28 subscriptions/listen whose
// params.notifications names taskIds (at most 100; more is -32602) is
// answered with a stream: over HTTP the POST's reply as text/event-stream
// (an Accept that does not allow it gets 406), on stdio lines among the
// others. It carries notifications/subscriptions/acknowledged with the
// taskIds accepted, the caller's tasks that exist (another subject's id,
// like an unknown one, is left out, never revealed), then a
// notifications/tasks for each, the task as tasks/get shows it at that
// moment (without resultType), and another whenever its status or
// lastUpdatedAt changes (a partial tasks/update changes lastUpdatedAt, and
// inputRequests shrink). Every message of the stream carries the listen's
// request id as _meta io.modelcontextprotocol/subscriptionId, and a quiet
// HTTP stream an SSE comment every Options.StreamKeepAlive. The store is
// the source of truth: the listen reads its tasks every PollInterval, so it
// hears what another replica or a restarted process stored, and a change
// this process stores wakes it at once. A task sent ended (or expired) is
// no longer watched; once none is left the server ends the subscription
// with the listen's result (resultType "complete", the subscription id in
// _meta), as it does at Shutdown, which does not wait for open listens
// otherwise. A listen of nothing served here is acknowledged so and ended
// at once: kinds other than taskIds (toolsListChanged, resourceSubscriptions
// and the like) are never acknowledged, this server sending no such
// notification. A client ends a listen by closing its stream (HTTP) or
// with notifications/cancelled (stdio): no response follows. taskIds from
// a client that does not declare the extension get -32021 (HTTP 400); a
// server without a task store answers subscriptions/listen -32601 (HTTP
// 404), as it sends no notification at all. One subject holds at most 16
// open listens (everyone together without Options.Authenticate): the 17th
// gets -32600 (HTTP 429). A listen holds its stream and its slot until it
// ends, and on stdio one of the MaxStdioInFlight requests.
//
// What survives the process (SIGKILL included; tested by killing a child
// server and starting another on the same file):
//
//   - A task waiting for a person (input_required): its questions and the
//     answers so far are in the store, so the next tasks/update, on the
//     restarted server, runs the handler with them.
//   - Acknowledged answers: a tasks/update acknowledges once they are
//     stored, and they stay stored until the run they start stores what
//     it asked next or how it ended.
//   - Ended tasks, with their result or error, until their TTL.
//   - With replicas, the loss of a replica: natscluster's
//     Cluster.TaskStore keeps the tasks in JetStream, so every replica
//     answers tasks/get, update and cancel, and the one a tasks/update
//     reaches runs the handler (tested with three replica processes, the
//     one that started the task killed while it waits for the person).
//
// What does not:
//
//   - A handler that was running (working): its run is not repeated, as
//     it may have done part of its work. The run holds a lease in the
//     store (ten poll intervals, renewed every three); once it lapses with
//     no run in the process that reads it, tasks/get shows the task failed
//     (-32603, saying so).
//   - Notifications of a task's handler (progress, log) go nowhere: the
//     extension carries none on tasks (notifications/tasks, above, says
//     its status).
//   - An open subscriptions/listen: its stream ends with its process, with
//     no result. The client listens again, to any replica on the store,
//     and hears each task's state as it is now first.
//   - A stored task's answers are kept in the requestState layout of this
//     release, unsealed: a release that changes that layout fails the
//     tasks an earlier one stored at their next run, saying so.
//   - Replicas on the embedded store: its file is held by one process; use
//     natscluster's store for replicas.
//
// The 2025-11-25 tasks (SEP-1686) are served in sessions on that protocol
// (Streamable HTTP and stdio) with the same store, the same
// Tool.TaskSupport and the same handler code. initialize declares the
// tasks capability (list, cancel, requests.tools.call) and tools/list
// each task tool's execution.taskSupport. A tools/call with params.task
// (its ttl, in milliseconds, shortens the TaskOptions.TTL, never extends
// it) is answered with {"task":…} once the task is stored, and
// the handler runs in the background in this process. When it elicits
// (or samples, or lists roots), the task goes input_required and the
// request, with _meta io.modelcontextprotocol/related-task, waits for a
// tasks/result of the task: its stream carries it (and the handler's
// notifications), and a new tasks/result stream carries the unanswered
// requests again. The answer is a POST of the JSON-RPC response, as in
// any call; answered, the task is working again. tasks/result blocks until
// the task ends and returns what the tools/call would have (its result,
// with the related-task _meta, or its JSON-RPC error); an isError result
// fails the task, as that protocol says. tasks/get, tasks/list (the
// session's tasks, fifty a page) and tasks/cancel (-32602 on an ended
// task) follow the spec. A tool that forbids tasks called with
// params.task, and a TaskRequired one called without it, get -32601; a
// TaskOptional one without it runs as a normal call. A task belongs to
// its session (and subject): another session, and a 2026-07-28 caller,
// get -32602 "unknown task" for it. Earlier session protocols have no
// tasks: their TaskRequired calls get -32602 saying where the tool runs.
//
// What of a 2025-11-25 task survives its process: the record, so
// tasks/get, tasks/list and tasks/result read its status and, once ended,
// its result or error from the store until its TTL. What does not: its run. The
// question is a request the server sends and the handler waits for in its
// process, so a task working or waiting for input when its process dies
// is failed on the next tasks/get once its lease lapses (a 2025-11-25 task
// holds its lease while it waits for input, too), and its questions are
// lost. The end of its session (deleted, expired idle, evicted) cancels
// its running tasks and fails them, as no one can ask for them any more;
// Shutdown makes their pending questions return ErrServerShutdown, and a
// run still going at Shutdown's deadline fails. notifications/tasks/status
// is not sent (it is optional): clients poll tasks/get.
//
// # Other server libraries
//
// The same handler code runs on servers built on the official go-sdk
// (runtime/gosdk) and on mcp-go (runtime/mcpgo): their adapter puts each
// tool call into the handler's ctx, and Elicit[T], CanElicit[T],
// Dropped[T], ElicitSchema, ElicitURL, ClientSupportsElicit and
// ClientSupportsElicitURL find it there, with this runtime's schemas,
// checks and outcomes. Each adapter's package doc says the few outcomes its
// library makes differ.
package runtime
