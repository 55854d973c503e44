package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The other two requests a server makes of its client in a call, beside
// elicitation: sampling/createMessage (Sample) and roots/list (ListRoots).
// They ride the path elicitation takes (Session.request): a request on the
// call's stream in a session, an inputRequests entry on 2026-07-28, whose
// method is sealed with its key in requestState.

// Methods of the server requests other than elicitation/create.
const (
	methodSample    = "sampling/createMessage"
	methodListRoots = "roots/list"
)

// wireMethod is the JSON-RPC method of a request of method ("" is
// elicitation/create, the runtime's first and commonest).
func wireMethod(method string) string {
	if method == "" {
		return "elicitation/create"
	}
	return method
}

// Default input-request keys of Sample and ListRoots on 2026-07-28.
const (
	sampleKey = "sampling"
	rootsKey  = "roots"
)

// RequestOption is an option of [Sample] and [ListRoots]: [WithKey].
type RequestOption interface {
	applyToRequest(elicitOptions) elicitOptions
}

func (k keyOption) applyToRequest(o elicitOptions) elicitOptions { o.key = string(k); return o }

// SampleRequest is what Sample asks the client's model: the
// sampling/createMessage params.
type SampleRequest struct {
	// Messages is the conversation so far; at least one.
	Messages []SamplingMessage `json:"messages"`
	// ModelPreferences, optional, guide the client's choice of model.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers" ("" leaves
	// it out; the latter two are soft-deprecated in 2025-11-25).
	IncludeContext string   `json:"includeContext,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	// MaxTokens is the most tokens the model may sample; required (> 0).
	MaxTokens     int            `json:"maxTokens"`
	StopSequences []string       `json:"stopSequences,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	// Tools the model may call (2025-11-25 and later, and only for a
	// client that declared sampling.tools): its answer then has tool_use
	// blocks, which the handler runs and answers with tool_result blocks
	// in the next Sample.
	Tools      []Tool      `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
}

// ToolChoice says how the model may use SampleRequest.Tools.
type ToolChoice struct {
	// Mode is "auto" (the default), "required" or "none".
	Mode string `json:"mode,omitempty"`
}

// ModelPreferences are the server's preferences for the model a client
// samples with; the client may ignore them.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names (a substring of) a model the server would like.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content are its blocks. One block is sent as an object, as every
	// protocol version has it; several (2025-11-25 and later) as an array.
	Content []SamplingContent `json:"content"`
}

// MarshalJSON writes one block as an object, several as an array.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	var content any = m.Content
	if len(m.Content) == 1 {
		content = m.Content[0]
	} else if m.Content == nil {
		content = []SamplingContent{}
	}
	return json.Marshal(struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	}{m.Role, content})
}

// UnmarshalJSON reads content as one block or an array of them.
func (m *SamplingMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	content, err := decodeBlocks(w.Content)
	if err != nil {
		return err
	}
	m.Role, m.Content = w.Role, content
	return nil
}

// decodeBlocks reads the content of a sampling message or result: one block
// or an array of them.
func decodeBlocks(raw json.RawMessage) ([]SamplingContent, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return nil, errors.New("no content")
	case raw[0] == '[':
		var blocks []SamplingContent
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return nil, err
		}
		return blocks, nil
	}
	var one SamplingContent
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, err
	}
	return []SamplingContent{one}, nil
}

// SamplingContent is one content block of a sampling message, by Type:
//
//	"text"         Text
//	"image"        Data (base64) and MimeType
//	"audio"        Data (base64) and MimeType
//	"tool_use"     ID, Name and Input: the model calls a tool (2025-11-25)
//	"tool_result"  ToolUseID, Content, StructuredContent and IsError: the
//	               result of that call (2025-11-25)
type SamplingContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID         string    `json:"toolUseId,omitempty"`
	Content           []Content `json:"content,omitempty"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// MarshalJSON writes what the block's type requires even when empty: a
// tool_use's input ({}) and a tool_result's content ([]).
func (c SamplingContent) MarshalJSON() ([]byte, error) {
	type plain SamplingContent
	switch c.Type {
	case "tool_use":
		input := c.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return json.Marshal(struct {
			plain
			Input json.RawMessage `json:"input"`
		}{plain(c), input})
	case "tool_result":
		content := c.Content
		if content == nil {
			content = []Content{}
		}
		return json.Marshal(struct {
			plain
			Content []Content `json:"content"`
		}{plain(c), content})
	}
	return json.Marshal(plain(c))
}

// SampleResult is the client's answer to Sample: the sampled message, the
// model that made it and why it stopped.
type SampleResult struct {
	// Role is "assistant", normally.
	Role    string
	Content []SamplingContent
	Model   string
	// StopReason is "endTurn", "stopSequence", "maxTokens", "toolUse" (the
	// content has tool_use blocks to answer) or another the client names;
	// "" when unknown.
	StopReason string
}

// Root is a root the client exposes (roots/list): a file:// URI, and a
// name for display.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// clientFeatures is what a client declared of sampling and roots.
type clientFeatures struct {
	sampling, samplingTools, roots bool
}

// featuresOf reads capabilities.sampling (and its tools) and
// capabilities.roots.
func featuresOf(capabilities json.RawMessage) clientFeatures {
	var c struct {
		Sampling *struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"sampling"`
		Roots json.RawMessage `json:"roots"`
	}
	if len(capabilities) == 0 || json.Unmarshal(capabilities, &c) != nil {
		return clientFeatures{}
	}
	declared := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	return clientFeatures{
		sampling:      c.Sampling != nil,
		samplingTools: c.Sampling != nil && declared(c.Sampling.Tools),
		roots:         declared(c.Roots),
	}
}

// Sample asks the model of the client of the tool call ctx belongs to for a
// message (sampling/createMessage) and returns it. ctx must be the
// handler's context, or one derived from it (ErrNoCall otherwise).
//
// It works as Elicit does, on every protocol: a request on the call's
// stream in a session (2025-03-26 to 2025-11-25), an inputRequests entry
// keyed "sampling" ("sampling_2", ... for later ones; WithKey sets
// another) of an input_required round on 2026-07-28, where the handler
// gets ErrInputRequired until the answer is there. The outcomes:
//
//   - a client that did not declare sampling (or sampling.tools, for a
//     request with Tools): a *MissingCapabilityError, before anything is
//     sent; returned from a 2026-07-28 handler, the call fails with -32021
//     naming it;
//   - the client refused (its user declined, say): a *ClientError
//     (ErrElicitFailed);
//   - an answer that is no sampling result: ErrElicitMalformed;
//   - no answer within Options.ElicitTimeout: ErrElicitTimeout; the call
//     ended: ctx's error.
//
// A request the protocol cannot carry (tools, or several blocks in a
// message, before 2025-11-25) is ErrElicitUnsupported, one that breaks the
// spec's rules (no messages, MaxTokens not positive, a message mixing
// tool_result with other blocks) an error saying why.
//
// Sampling is deprecated in 2026-07-28 (SEP-2577); it works until at least
// 2027-07-28, the earliest the protocol may remove it.
func Sample(ctx context.Context, req SampleRequest, opts ...RequestOption) (*SampleResult, error) {
	a, err := askerFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkSample(a.protocol(), featuresOf(a.capabilities()), &req); err != nil {
		return nil, err
	}
	params, err := json.Marshal(&req)
	if err != nil {
		return nil, fmt.Errorf("elicit: encoding the sampling request: %w", err)
	}
	raw, err := a.request(ctx, optionsOf(sampleKey, opts, RequestOption.applyToRequest).key, methodSample, params)
	if err != nil {
		return nil, err
	}
	return decodeSampleResult(raw)
}

// checkSample reports why req cannot be sent to a client on protocol that
// declared f, if it cannot; it fills in an empty tool inputSchema.
func checkSample(protocol string, f clientFeatures, req *SampleRequest) error {
	if len(req.Messages) == 0 {
		return errors.New("elicit: Sample needs at least one message")
	}
	if req.MaxTokens <= 0 {
		return fmt.Errorf("elicit: Sample needs MaxTokens > 0, not %d", req.MaxTokens)
	}
	if !f.sampling {
		return &MissingCapabilityError{Capability: "sampling"}
	}
	newer := protocol >= Version20251125
	withTools := len(req.Tools) > 0 || req.ToolChoice != nil
	if withTools && !newer {
		return unsupportedf("protocol %s has no tools in sampling", protocol)
	}
	if withTools && !f.samplingTools {
		return &MissingCapabilityError{Capability: "sampling", Mode: "tools"}
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("elicit: Sample: message %d has role %q, not user or assistant", i, m.Role)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("elicit: Sample: message %d has no content", i)
		}
		if len(m.Content) > 1 && !newer {
			return unsupportedf("protocol %s has one content block per sampling message, message %d has %d", protocol, i, len(m.Content))
		}
		results := 0
		for _, b := range m.Content {
			switch b.Type {
			case "text", "image", "audio":
			case "tool_use", "tool_result":
				if !newer {
					return unsupportedf("protocol %s has no %s content in sampling", protocol, b.Type)
				}
				if b.Type == "tool_result" {
					results++
				}
			default:
				return fmt.Errorf("elicit: Sample: message %d has a block of type %q", i, b.Type)
			}
		}
		if results > 0 && results < len(m.Content) {
			return fmt.Errorf("elicit: Sample: message %d mixes tool_result blocks with others (a message with tool results carries only those)", i)
		}
	}
	for i := range req.Tools {
		if len(req.Tools[i].InputSchema) == 0 {
			tools := append([]Tool(nil), req.Tools...)
			for j := range tools {
				if len(tools[j].InputSchema) == 0 {
					tools[j].InputSchema = json.RawMessage(`{"type":"object"}`)
				}
			}
			req.Tools = tools
			break
		}
	}
	return nil
}

// decodeSampleResult reads the result of sampling/createMessage.
func decodeSampleResult(raw json.RawMessage) (*SampleResult, error) {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("%w: result is not a sampling result: %v", ErrElicitMalformed, err)
	}
	content, err := decodeBlocks(w.Content)
	if err != nil {
		return nil, fmt.Errorf("%w: sampling result content: %v", ErrElicitMalformed, err)
	}
	if w.Role == "" || w.Model == "" {
		return nil, fmt.Errorf("%w: a sampling result needs role and model", ErrElicitMalformed)
	}
	return &SampleResult{Role: w.Role, Content: content, Model: w.Model, StopReason: w.StopReason}, nil
}

// ListRoots asks the client of the tool call ctx belongs to for its roots
// (roots/list). It works as Sample does, on every protocol (key "roots" on
// 2026-07-28), with the same outcomes; a client that did not declare roots
// is a *MissingCapabilityError. ctx must be the handler's context, or one
// derived from it (ErrNoCall otherwise).
//
// Roots are deprecated in 2026-07-28 (SEP-2577); they work until at least
// 2027-07-28, the earliest the protocol may remove them.
func ListRoots(ctx context.Context, opts ...RequestOption) ([]Root, error) {
	a, err := askerFrom(ctx)
	if err != nil {
		return nil, err
	}
	if !featuresOf(a.capabilities()).roots {
		return nil, &MissingCapabilityError{Capability: "roots"}
	}
	raw, err := a.request(ctx, optionsOf(rootsKey, opts, RequestOption.applyToRequest).key, methodListRoots, []byte("{}"))
	if err != nil {
		return nil, err
	}
	var res struct {
		Roots *[]Root `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.Roots == nil {
		return nil, fmt.Errorf("%w: result is not a roots/list result (an object with roots)", ErrElicitMalformed)
	}
	for i, r := range *res.Roots {
		if r.URI == "" {
			return nil, fmt.Errorf("%w: root %d has no uri", ErrElicitMalformed, i)
		}
	}
	return *res.Roots, nil
}

// AskTogether runs asks in order, each a function that asks the client of
// the call ctx belongs to (Elicit, ElicitSchema, ElicitURL, Sample or
// ListRoots, with the ctx it is given) and keeps the answer, and returns
// the first error that is not ErrInputRequired. On 2026-07-28 the asks
// still unanswered do not end it: every one runs, so that their requests
// go to the client in one input_required round instead of one round each,
// and then it returns ErrInputRequired. In a session each ask waits for
// its answer before the next is sent. So the asks must not depend on each
// other's answers: on 2026-07-28 each is made before any is answered (an
// ask built from an earlier answer would change between rounds, and be
// asked again). Ask what depends on an answer after AskTogether.
//
//	var name NameForm
//	var greeting *runtime.SampleResult
//	var roots []runtime.Root
//	err := runtime.AskTogether(ctx,
//		func(ctx context.Context) (err error) { name, err = runtime.Elicit[NameForm](ctx, "Your name?"); return err },
//		func(ctx context.Context) (err error) { greeting, err = runtime.Sample(ctx, req); return err },
//		func(ctx context.Context) (err error) { roots, err = runtime.ListRoots(ctx); return err },
//	)
func AskTogether(ctx context.Context, asks ...func(context.Context) error) error {
	pending := false
	for _, ask := range asks {
		if ask == nil {
			continue
		}
		switch err := ask(ctx); {
		case err == nil:
		case errors.Is(err, ErrInputRequired):
			pending = true
		default:
			return err
		}
	}
	if pending {
		return ErrInputRequired
	}
	return nil
}
