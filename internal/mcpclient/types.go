package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-elicit/elicit/runtime"
)

// Protocol versions this client speaks: the runtime's constants, named here
// too so that a client need not import the server package to name one.
const (
	Version20250326 = runtime.Version20250326
	Version20250618 = runtime.Version20250618
	Version20251125 = runtime.Version20251125
	Version20260728 = runtime.Version20260728

	// DefaultProtocol is used when [Options.Protocol] is empty.
	DefaultProtocol = Version20250618
)

// legacyVersions are the versions with an initialize handshake and sessions,
// newest first.
var legacyVersions = []string{Version20251125, Version20250618, Version20250326}

// Versions returns every protocol version the client supports, newest first.
func Versions() []string {
	return append([]string{Version20260728}, legacyVersions...)
}

// IsModern reports whether version uses the sessionless 2026-07-28 semantics
// (no initialize, per-request _meta, input_required retries).
func IsModern(version string) bool { return version == Version20260728 }

func supported(version string) bool { return slices.Contains(Versions(), version) }

// Metadata keys of the 2026-07-28 per-request _meta object.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// Implementation names a client or server (clientInfo / serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Capabilities are the client capabilities sent in initialize (legacy) or in
// every request's _meta (2026-07-28).
type Capabilities struct {
	// Elicitation, when non-nil, declares the elicitation capability.
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// Sampling, when non-nil, declares sampling (sampling/createMessage);
	// Roots, when non-nil, roots (roots/list). Declaring either requires
	// OnRequest.
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	Roots    *RootsCapability    `json:"roots,omitempty"`
	// Experimental capabilities are sent verbatim.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Extensions are declared by identifier, each settings object sent
	// verbatim (2026-07-28): ExtensionTasks ({}) lets a tools/call
	// become a task (see [Client.AwaitTask]).
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ElicitationCapability says which elicitation modes the client accepts.
// Neither mode set marshals to {} which every version reads as "form only"
// (the only shape 2025-06-18 knows); otherwise the set modes are listed, as
// 2025-11-25 and later define.
type ElicitationCapability struct {
	Form bool
	URL  bool
}

// MarshalJSON implements json.Marshaler.
func (c ElicitationCapability) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if c.Form {
		b.WriteString(`"form":{}`)
	}
	if c.URL {
		if c.Form {
			b.WriteByte(',')
		}
		b.WriteString(`"url":{}`)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Supports reports whether an elicitation of mode ("" means form) was
// declared by this capability.
func (c ElicitationCapability) Supports(mode string) bool {
	switch mode {
	case "", ModeForm:
		return c.Form || !c.URL
	case ModeURL:
		return c.URL
	}
	return false
}

// SamplingCapability declares sampling; Tools, tools in sampling
// (2025-11-25 and later): {} or {"tools":{}}.
type SamplingCapability struct {
	Tools bool
}

// MarshalJSON implements json.Marshaler.
func (c SamplingCapability) MarshalJSON() ([]byte, error) {
	if c.Tools {
		return []byte(`{"tools":{}}`), nil
	}
	return []byte(`{}`), nil
}

// RootsCapability declares roots.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// Methods of the server requests besides elicitation that OnRequest
// answers.
const (
	MethodSample    = "sampling/createMessage"
	MethodListRoots = "roots/list"
)

// Elicitation modes and actions.
const (
	ModeForm = "form"
	ModeURL  = "url"

	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// ElicitParams are the params of an elicitation/create request, whether it
// arrived as a server-sent request (legacy) or inside inputRequests
// (2026-07-28).
type ElicitParams struct {
	// Mode is "form", "url" or empty (form; 2025-06-18 has no mode field).
	Mode    string `json:"mode,omitempty"`
	Message string `json:"message"`
	// RequestedSchema is the form's flat object schema, verbatim.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open in URL mode.
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a URL-mode elicitation (2025-11-25 only).
	ElicitationID string          `json:"elicitationId,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// EffectiveMode returns the mode, with the empty mode read as form.
func (p ElicitParams) EffectiveMode() string {
	if p.Mode == "" {
		return ModeForm
	}
	return p.Mode
}

// ElicitResult is the client's answer to an elicitation.
//
// The client sends Action as given, so tests can also send an unknown action
// to exercise a server's handling of malformed answers.
type ElicitResult struct {
	Action string `json:"action"`
	// Content is the accepted form data, sent verbatim: a JSON object, or
	// any other JSON value (null, [], "x", 1) to test a server's handling
	// of malformed answers. Empty means no content member.
	Content json.RawMessage `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ElicitHandler answers one elicitation. It must return when ctx is done.
// An error is sent to the server as a JSON-RPC error response (legacy) or
// fails the call (2026-07-28, where input responses carry no errors).
type ElicitHandler func(ctx context.Context, params ElicitParams) (ElicitResult, error)

// InitializeResult is the server's answer to initialize (legacy era).
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// DiscoverResult is the server's answer to server/discover (2026-07-28).
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
}

// Content is one item of a tool result's content list.
type Content struct {
	Type string `json:"type"`
	// Text is set for type "text".
	Text string `json:"text,omitempty"`
	// Raw is the whole item as received, for types other than text.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON implements json.Unmarshaler, keeping the raw item.
func (c *Content) UnmarshalJSON(data []byte) error {
	var v struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	c.Type, c.Text, c.Raw = v.Type, v.Text, slices.Clone(data)
	return nil
}

// CallToolResult is the final (complete) result of tools/call.
type CallToolResult struct {
	Content []Content `json:"content"`
	// StructuredContent is the structured result, verbatim, if present.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	ResultType        string          `json:"resultType,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
	// Rounds counts the input_required rounds the call went through before
	// completing (2026-07-28); 0 for a call answered at once.
	Rounds int `json:"-"`
	// Raw is the whole result object as received.
	Raw json.RawMessage `json:"-"`
}

// Lines renders the result as text, one line per content item: the text of
// text items, the raw JSON of other items, then structuredContent (as JSON)
// if present. Newlines inside a text item are kept.
func (r *CallToolResult) Lines() []string {
	var out []string
	for _, c := range r.Content {
		if c.Type == "text" {
			out = append(out, c.Text)
			continue
		}
		out = append(out, compactJSON(c.Raw))
	}
	if len(r.StructuredContent) > 0 && !bytes.Equal(bytes.TrimSpace(r.StructuredContent), []byte("null")) {
		out = append(out, compactJSON(r.StructuredContent))
	}
	return out
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Result types of 2026-07-28.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// inputRequest is one entry of an input_required result's inputRequests.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// inputRequests are the inputRequests of an input_required result in the
// order the server wrote them (the order its handler asked); a key written
// twice keeps its last request, in its first place.
type inputRequests []keyedRequest

type keyedRequest struct {
	key string
	inputRequest
}

// UnmarshalJSON reads the object's members in order (null is none).
func (rs *inputRequests) UnmarshalJSON(b []byte) error {
	*rs = nil
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("inputRequests is not an object")
	}
	at := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var r inputRequest
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("inputRequests[%q]: %w", key, err)
		}
		if i, dup := at[key]; dup {
			(*rs)[i].inputRequest = r
			continue
		}
		at[key] = len(*rs)
		*rs = append(*rs, keyedRequest{key, r})
	}
	_, err := dec.Token()
	return err
}

// inputRequiredResult holds the fields of an input_required result.
type inputRequiredResult struct {
	ResultType    string        `json:"resultType"`
	InputRequests inputRequests `json:"inputRequests"`
	RequestState  *string       `json:"requestState"`
}

// wireMessage is any JSON-RPC 2.0 message.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

func (m *wireMessage) isRequest() bool      { return m.Method != "" && hasID(m.ID) }
func (m *wireMessage) isNotification() bool { return m.Method != "" && !hasID(m.ID) }

func hasID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) > 0 && !bytes.Equal(id, []byte("null"))
}

// decodeMessages parses a body or SSE data that holds one JSON-RPC message or
// a batch (an array, allowed by 2025-03-26).
func decodeMessages(data []byte) ([]*wireMessage, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var batch []*wireMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
		}
		for _, m := range batch {
			if m == nil {
				return nil, fmt.Errorf("%w: null message in batch", ErrProtocol)
			}
		}
		return batch, nil
	}
	var m wireMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return []*wireMessage{&m}, nil
}
