package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool describes a tool as tools/list shows it.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments object. Empty means
	// {"type":"object"}.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema, when set, describes StructuredContent.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  map[string]any  `json:"annotations,omitempty"`
	// TaskSupport is how the tool opts into tasks (see "Tasks" in the
	// package doc): TaskOptional or TaskRequired make its 2026-07-28 calls
	// from a client that declares the tasks extension, and its calls with
	// params.task in a 2025-11-25 session, run as tasks, kept in
	// Options.Tasks.Store; AddTool panics on such a tool when the server
	// has no store. "" is TaskForbidden. tools/list shows it as
	// execution.taskSupport in a 2025-11-25 session only, the one protocol
	// with a field for it.
	TaskSupport TaskSupport `json:"-"`
	// DeferTask makes a task tool's 2026-07-28 call from a client that
	// declares the tasks extension start as an ordinary call: its Elicits
	// are input_required rounds, before any task exists, until the handler
	// calls ContinueAsTask, which makes the call a task from that round on
	// (SEP-2663: an input_required exchange finishes before the task is
	// created); a handler that never calls it completes the call as an
	// ordinary one. Without DeferTask such a call is a task at once. AddTool panics on
	// DeferTask with a TaskSupport that is not TaskOptional or TaskRequired.
	DeferTask bool `json:"-"`
}

// CallToolRequest is one tools/call as a handler sees it.
type CallToolRequest struct {
	// Session is the client's session. On 2026-07-28 requests, which have
	// no session, it is a per-request view with the request's capabilities.
	Session *Session
	// Name is the tool's name.
	Name string
	// Arguments is the raw arguments object ("{}" when the client sent none).
	Arguments json.RawMessage
	// Meta is the request's _meta object, if any.
	Meta map[string]json.RawMessage
	// Round counts the input_required round trips before this run of a
	// 2026-07-28 call: 0 on the first run, 1 on the first retry, ... It is
	// always 0 in a session (initialize), where Elicit waits in place.
	Round int

	call *call
}

// IsRetry reports whether this run is a retry of a 2026-07-28 call that
// needed input: the handler ran before, up to an Elicit, and now runs again
// from the top with the answer. Work before an Elicit must be safe to repeat.
func (r *CallToolRequest) IsRetry() bool { return r != nil && r.Round > 0 }

// Progress sends notifications/progress for this call when the client asked
// for progress (its _meta carried a progressToken); otherwise it does nothing.
// The notification rides this call's stream. A request the server did not
// make (nil, or built by hand in a handler's unit test) has no stream:
// Progress and Log do nothing on it.
func (r *CallToolRequest) Progress(progress, total float64, message string) error {
	if r == nil || r.call == nil {
		return nil
	}
	token, ok := r.Meta["progressToken"]
	if !ok {
		return nil
	}
	params := map[string]any{"progressToken": token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	return r.call.notify("notifications/progress", params)
}

// Log sends notifications/message (a log entry) on this call's stream. A
// 2026-07-28 request gets it only if its _meta asked for a log level.
func (r *CallToolRequest) Log(level, logger string, data any) error {
	if r == nil || r.call == nil || (r.call.inputRequired && r.call.logLevel == "") {
		return nil
	}
	params := map[string]any{"level": level, "data": data}
	if logger != "" {
		params["logger"] = logger
	}
	return r.call.notify("notifications/message", params)
}

// Content is one item of a tool result.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Resource any    `json:"resource,omitempty"`
}

// CallToolResult is what a tool returns.
type CallToolResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// TextResult is a successful result with one text item.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{{Type: "text", Text: text}}}
}

// ErrorResult is an isError result with one text item: the way to tell the
// caller (and the model) that the tool failed.
func ErrorResult(format string, args ...any) *CallToolResult {
	return &CallToolResult{Content: []Content{{Type: "text", Text: fmt.Sprintf(format, args...)}}, IsError: true}
}

// ToolHandler runs one tools/call. Returning an error makes an isError result
// carrying the error's text, unless the error is (or wraps) an *RPCError,
// which fails the request with that JSON-RPC error.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// AddTool registers a tool with a typed argument struct, decoded from each
// call's arguments as strictly as the inputSchema tools/list shows:
// arguments that do not match give an isError result naming every failing
// property, and h does not run. The schema is t.InputSchema when set;
// otherwise, when *In is a generated form (an //elicit:form struct, or one
// named with elicitgen -type), the form's schema and its generated decoder,
// with its enums, bounds and validate tags; otherwise In's JSON Schema,
// reflected once here with invopop/jsonschema. A schema that is not the
// form's is checked with a JSON Schema validator (google/jsonschema-go:
// every keyword, and the formats email, uri, date and date-time) before
// the arguments are decoded into In and In's validate tags checked; an
// inputSchema that cannot be resolved panics here. opts adjust the tool
// (AskMissing). It panics (see "Set-up mistakes panic" in the package doc)
// on a Server not made by NewServer, a tool with no Name, a nil h, and
// AskMissing for an In that is not a generated form.
func AddTool[In any](s *Server, t Tool, h func(ctx context.Context, req *CallToolRequest, in In) (*CallToolResult, error), opts ...ToolOption) {
	s.mustRegister("AddTool", t.Name, h == nil)
	args, err := newToolArgs[In](&t, opts)
	if err != nil {
		panic("elicit: AddTool: " + err.Error())
	}
	s.AddTool(t, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		in, res, err := args.Decode(ctx, req.Arguments)
		if res != nil || err != nil {
			return res, err
		}
		return h(ctx, req, in)
	})
}
