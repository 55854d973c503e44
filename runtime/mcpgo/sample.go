//lint:file-ignore SA1019 sampling and roots are deprecated in 2026-07-28 (SEP-2577); the adapter serves them until the protocol removes them

package mcpgo

// Sampling and roots through mcp-go: runtime.Sample and ListRoots in an
// adapted call send sampling/createMessage and roots/list in the session,
// or ask them in the input_required result on 2026-07-28.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// inputRequest is a request the run asked for as mcp-go's.
func inputRequest(r adapter.Request) (mcp.InputRequest, error) {
	switch mcp.MCPMethod(r.Method) {
	case "":
		p, err := elicitationParams(r.Params)
		return mcp.NewElicitationInputRequest(p), err
	case mcp.MethodSamplingCreateMessage:
		p, err := sampleParams(r.Params)
		return mcp.NewSamplingInputRequest(p), err
	case mcp.MethodListRoots:
		return mcp.NewRootsInputRequest(), nil
	}
	return mcp.InputRequest{}, fmt.Errorf("elicit: mcpgo: no input request of method %q", r.Method)
}

// sampleParams are the runtime's sampling/createMessage params as mcp-go's.
func sampleParams(raw json.RawMessage) (mcp.CreateMessageParams, error) {
	var p mcp.CreateMessageParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("elicit: reading back the sampling params: %w", err)
	}
	return p, nil
}

// capabilitiesOf is what the runtime reads of caps for sampling and roots,
// as JSON.
func capabilitiesOf(caps *mcp.ClientCapabilities) json.RawMessage {
	if caps == nil {
		return nil
	}
	raw, _ := json.Marshal(struct {
		Sampling any `json:"sampling,omitempty"`
		Roots    any `json:"roots,omitempty"`
	}{optional(caps.Sampling), optional(caps.Roots)})
	return raw
}

// optional is p, or an untyped nil (left out) for a nil pointer.
func optional[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// sendSession sends sampling/createMessage or roots/list with params in
// the session of ctx and returns the client's result as JSON.
func sendSession(ctx context.Context, srv *server.MCPServer, method string, raw json.RawMessage) (json.RawMessage, error) {
	var res any
	var err error
	switch mcp.MCPMethod(method) {
	case mcp.MethodSamplingCreateMessage:
		p, perr := sampleParams(raw)
		if perr != nil {
			return nil, perr
		}
		res, err = srv.RequestSampling(ctx, mcp.CreateMessageRequest{Request: mcp.Request{Method: method}, CreateMessageParams: p})
	case mcp.MethodListRoots:
		res, err = srv.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: method}})
	default:
		return nil, fmt.Errorf("%w: mcpgo cannot send %s", runtime.ErrElicitUnsupported, method)
	}
	switch {
	case errors.Is(err, server.ErrNoActiveSession), errors.Is(err, server.ErrRootsNotSupported):
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitUnsupported, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitFailed, err)
	}
	if raw, err = json.Marshal(res); err != nil {
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitMalformed, err)
	}
	return raw, nil
}
