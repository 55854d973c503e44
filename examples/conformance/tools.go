package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// Fixture payloads: the reference server's, so a failing check reads the same
// as it would against the suite's own fixture.
const (
	pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// step is the pause between the notifications of the logging and progress
// tools, so they arrive as separate events.
const step = 50 * time.Millisecond

var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// schema202012 is the input schema json-schema-2020-12 looks for: $schema,
// $defs with an $anchor, allOf/anyOf, if/then/else, additionalProperties.
var schema202012 = json.RawMessage(`{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
		}
	},
	"properties": {
		"name": {"type": "string"},
		"address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]},
		"phone": {"type": "string"},
		"email": {"type": "string"}
	},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]},
	"else": {"required": ["email"]},
	"additionalProperties": false
}`)

// addTools registers every fixture tool the suite's server scenarios call.
func addTools(s *runtime.Server) {
	content := func(name, desc string, items ...runtime.Content) {
		s.AddTool(runtime.Tool{Name: name, Description: desc, InputSchema: noArgs},
			func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
				return &runtime.CallToolResult{Content: items}, nil
			})
	}
	text := func(t string) runtime.Content { return runtime.Content{Type: "text", Text: t} }
	image := runtime.Content{Type: "image", Data: pngBase64, MimeType: "image/png"}

	// tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content
	content("test_simple_text", "Returns a simple text response", text("This is a simple text response for testing."))
	content("test_image_content", "Returns an image (a 1x1 PNG)", image)
	content("test_audio_content", "Returns a short WAV audio clip",
		runtime.Content{Type: "audio", Data: wavBase64, MimeType: "audio/wav"})
	content("test_embedded_resource", "Returns an embedded text resource",
		runtime.Content{Type: "resource", Resource: map[string]any{
			"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content.",
		}})
	content("test_multiple_content_types", "Returns text, an image and an embedded resource",
		text("Multiple content types test:"), image,
		runtime.Content{Type: "resource", Resource: map[string]any{
			"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`,
		}})

	// tools-call-error: a tool failure is a result with isError, not a
	// JSON-RPC error.
	s.AddTool(runtime.Tool{Name: "test_error_handling", Description: "Always fails with an isError result", InputSchema: noArgs},
		func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			return runtime.ErrorResult("This tool intentionally returns an error for testing"), nil
		})

	// tools-call-with-logging (legacy) and sep-2575-server-no-log-without-loglevel
	// (2026-07-28): the runtime drops log notifications a modern request did
	// not ask for.
	s.AddTool(runtime.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs", InputSchema: noArgs}, toolWithLogging)
	s.AddTool(runtime.Tool{Name: "test_logging_tool", Description: "Logs one message (only if the request asked for a log level)", InputSchema: noArgs},
		func(_ context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			if err := req.Log("info", "conformance", "test_logging_tool ran"); err != nil {
				return nil, err
			}
			return runtime.TextResult("Logging tool completed"), nil
		})

	// tools-call-with-progress
	s.AddTool(runtime.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100", InputSchema: noArgs}, toolWithProgress)

	// sep-2575-server-rejects-undeclared-capability: a tool that needs
	// sampling, called by a client that did not declare it.
	s.AddTool(runtime.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability", InputSchema: noArgs}, missingCapability)

	// json-schema-2020-12: the runtime lists an InputSchema verbatim, 2020-12
	// keywords and all.
	s.AddTool(runtime.Tool{Name: "json_schema_2020_12_tool", Description: "Has an input schema with JSON Schema 2020-12 keywords", InputSchema: schema202012},
		func(context.Context, *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			return runtime.TextResult("ok"), nil
		})

	// The elicitation scenarios (legacy: in place on the call's stream;
	// 2026-07-28: input_required and retry; the same handlers serve both).
	runtime.AddTool(s, runtime.Tool{Name: "test_elicitation", Description: "Asks the user for a username and an email address"}, elicitation)
	s.AddTool(runtime.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Asks with a form whose fields all have defaults (SEP-1034)", InputSchema: noArgs}, elicitationDefaults)
	s.AddTool(runtime.Tool{Name: "test_elicitation_sep1330_enums", Description: "Asks with every enum shape (SEP-1330)", InputSchema: noArgs}, elicitationEnums)
	s.AddTool(runtime.Tool{Name: "test_streaming_elicitation", Description: "Asks for a confirmation (never as a request on a 2026-07-28 stream)", InputSchema: noArgs},
		func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			form, err := runtime.Elicit[ConfirmForm](ctx, req.Session, "Confirm to continue", runtime.WithKey("confirm"))
			if res, done := outcome(err); done {
				return res, nil
			} else if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("Confirmed: %t", form.OK)), nil
		})

	// The 2026-07-28 input_required (SEP-2322) scenarios.
	s.AddTool(runtime.Tool{Name: "test_input_required_result_elicitation", Description: "Asks for the user's name through input_required", InputSchema: noArgs},
		func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			form, err := runtime.Elicit[NameForm](ctx, req.Session, "What is your name?", runtime.WithKey("user_name"))
			if res, done := outcome(err); done {
				return res, nil
			} else if err != nil {
				return nil, err
			}
			return runtime.TextResult("Hello, " + form.Name + "!"), nil
		})
	confirm := func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
		form, err := runtime.Elicit[ConfirmForm](ctx, req.Session, "Please confirm", runtime.WithKey("confirm"))
		if res, done := outcome(err); done {
			return res, nil
		} else if err != nil {
			return nil, err
		}
		return runtime.TextResult(fmt.Sprintf("state-ok: confirmed=%t", form.OK)), nil
	}
	s.AddTool(runtime.Tool{Name: "test_input_required_result_request_state", Description: "Asks for a confirmation; the answer comes back with the sealed requestState", InputSchema: noArgs}, confirm)
	s.AddTool(runtime.Tool{Name: "test_input_required_result_tampered_state", Description: "Asks for a confirmation; a tampered requestState fails the retry", InputSchema: noArgs}, confirm)
	s.AddTool(runtime.Tool{Name: "test_input_required_result_capabilities", Description: "Asks for a confirmation only if the client declared elicitation", InputSchema: noArgs}, confirm)
	s.AddTool(runtime.Tool{Name: "test_input_required_result_multi_round", Description: "Asks two questions, one round trip each", InputSchema: noArgs},
		func(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
			name, err := runtime.Elicit[NameForm](ctx, req.Session, "Step 1: What is your name?", runtime.WithKey("step1"))
			if res, done := outcome(err); done {
				return res, nil
			} else if err != nil {
				return nil, err
			}
			color, err := runtime.Elicit[ColorForm](ctx, req.Session, "Step 2: What is your favorite color?", runtime.WithKey("step2"))
			if res, done := outcome(err); done {
				return res, nil
			} else if err != nil {
				return nil, err
			}
			return runtime.TextResult(fmt.Sprintf("Hello %s, your favorite color is %s", name.Name, color.Color)), nil
		})
}

// outcome turns a declined or canceled elicitation into the tool's answer
// (done is true); any other error is left to the caller.
func outcome(err error) (res *runtime.CallToolResult, done bool) {
	switch {
	case errors.Is(err, runtime.ErrElicitDeclined):
		return runtime.TextResult("User response: action=decline"), true
	case errors.Is(err, runtime.ErrElicitCanceled):
		return runtime.TextResult("User response: action=cancel"), true
	}
	return nil, false
}

// pause waits d or until the call ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func toolWithLogging(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := req.Log("info", "test_tool_with_logging", msg); err != nil {
			return nil, err
		}
	}
	return runtime.TextResult("Logging test completed"), nil
}

func toolWithProgress(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		if err := req.Progress(p, 100, fmt.Sprintf("Completed step %d of 100", int(p))); err != nil {
			return nil, err
		}
	}
	return runtime.TextResult("Progress test completed"), nil
}

func missingCapability(_ context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(req.Session.ClientCapabilities(), &caps)
	if _, ok := caps["sampling"]; !ok {
		return nil, &runtime.RPCError{
			Code:    runtime.CodeMissingCapability,
			Message: "missing required client capability: sampling",
			Data:    json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`),
		}
	}
	// This fixture never samples; the tool exists to be refused.
	return runtime.TextResult("The client declared sampling"), nil
}

// ElicitationArgs are the arguments of test_elicitation.
type ElicitationArgs struct {
	Message string `json:"message" jsonschema:"description=The message to show the user"`
}

func elicitation(ctx context.Context, req *runtime.CallToolRequest, in ElicitationArgs) (*runtime.CallToolResult, error) {
	if !req.Session.ClientSupportsElicit() {
		return runtime.ErrorResult("the client does not support form elicitation"), nil
	}
	msg := in.Message
	if msg == "" {
		msg = "Please provide your information"
	}
	form, err := runtime.Elicit[UserInfoForm](ctx, req.Session, msg)
	if res, done := outcome(err); done {
		return res, nil
	} else if err != nil {
		return nil, err
	}
	return acceptResult("User response: action=accept, content=", form)
}

func elicitationDefaults(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	if !req.Session.ClientSupportsElicit() {
		return runtime.ErrorResult("the client does not support form elicitation"), nil
	}
	form, err := runtime.Elicit[DefaultsForm](ctx, req.Session, "Please review and update the form fields with defaults")
	if res, done := outcome(err); done {
		return res, nil
	} else if err != nil {
		return nil, err
	}
	// Every field, also the zero ones omitempty would drop.
	return acceptResult("Elicitation completed: action=accept, content=", map[string]any{
		"name": form.Name, "age": form.Age, "score": form.Score, "status": form.Status, "verified": form.Verified,
	})
}

func elicitationEnums(ctx context.Context, req *runtime.CallToolRequest) (*runtime.CallToolResult, error) {
	if !req.Session.ClientSupportsElicit() {
		return runtime.ErrorResult("the client does not support form elicitation"), nil
	}
	form, legacy, err := elicitEnums(ctx, req.Session)
	if res, done := outcome(err); done {
		return res, nil
	} else if err != nil {
		return nil, err
	}
	return acceptResult("Elicitation completed: action=accept, content=", map[string]any{
		"untitledSingle": form.UntitledSingle, "titledSingle": form.TitledSingle, "legacyEnum": legacy,
		"untitledMulti": form.UntitledMulti, "titledMulti": form.TitledMulti,
	})
}

// legacyEnum is the deprecated titled enum (enum + enumNames) that
// elicitation-sep1330-enums expects on a 2025-11-25 session.
//
// FALLBACK (hand-built schema): elicitgen cannot emit this shape for
// 2025-11-25 — a titled Go enum becomes oneOf there, and enumNames appears
// only in the 2025-06-18 downgrade. The suite checks one elicitation/create
// carrying all five enum properties, so the generated EnumsForm schema is
// extended with this one property and sent through Session.Elicit; the
// generated decoder still decodes and validates the other four.
var legacyEnum = map[string]any{
	"type":        "string",
	"description": "Select one option (legacy)",
	"enum":        []string{"opt1", "opt2", "opt3"},
	"enumNames":   []string{"Option One", "Option Two", "Option Three"},
}

func elicitEnums(ctx context.Context, sess *runtime.Session) (EnumsForm, string, error) {
	var form EnumsForm
	variant, ok := form.ElicitForm().Lookup(sess.ProtocolVersion())
	if !ok || variant.Schema == nil {
		return form, "", fmt.Errorf("%w: protocol %s cannot express the enum form", runtime.ErrElicitUnsupported, sess.ProtocolVersion())
	}
	var schema map[string]any
	if err := json.Unmarshal(variant.Schema, &schema); err != nil {
		return form, "", fmt.Errorf("generated schema of EnumsForm: %w", err)
	}
	props, _ := schema["properties"].(map[string]any)
	if props == nil {
		return form, "", errors.New("generated schema of EnumsForm has no properties")
	}
	props["legacyEnum"] = legacyEnum

	content, err := sess.Elicit(ctx, "Please select options from the enum fields", schema)
	if err != nil {
		return form, "", err
	}
	// Session.Elicit validated all five; the generated decoder takes the rest.
	legacy, _ := content["legacyEnum"].(string)
	delete(content, "legacyEnum")
	rest, err := json.Marshal(content)
	if err != nil {
		return form, "", err
	}
	if err := form.ElicitDecode(rest); err != nil {
		return EnumsForm{}, "", err
	}
	return form, legacy, nil
}

// acceptResult is a text result: prefix followed by v as JSON.
func acceptResult(prefix string, v any) (*runtime.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the answer: %w", err)
	}
	return runtime.TextResult(prefix + string(raw)), nil
}
