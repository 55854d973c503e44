//lint:file-ignore SA1019 sampling and roots are deprecated in 2026-07-28 (SEP-2577); the adapter serves them until the protocol removes them

package gosdk

// Sampling and roots through the go-sdk: runtime.Sample and ListRoots in
// an adapted call send sampling/createMessage and roots/list in the
// session, or ask them in the input_required result on 2026-07-28.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-elicit/elicit/runtime"
	"github.com/go-elicit/elicit/runtime/internal/adapter"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputRequest is a request the run asked for as the go-sdk's.
func inputRequest(r adapter.Request) (mcp.InputRequest, error) {
	switch r.Method {
	case "":
		return elicitParams(r.Params)
	case methodSample:
		return sampleParams(r.Params)
	case methodListRoots:
		return &mcp.ListRootsParams{}, nil
	}
	return nil, fmt.Errorf("elicit: gosdk: no input request of method %q", r.Method)
}

// Methods of the requests beside elicitation.
const (
	methodSample    = "sampling/createMessage"
	methodListRoots = "roots/list"
)

// sampleParams are the runtime's sampling/createMessage params as the
// go-sdk's.
func sampleParams(raw json.RawMessage) (*mcp.CreateMessageWithToolsParams, error) {
	var p mcp.CreateMessageWithToolsParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("elicit: reading back the sampling params: %w", err)
	}
	return &p, nil
}

// capabilitiesOf is what the runtime reads of caps for sampling and roots,
// as JSON.
func capabilitiesOf(caps *mcp.ClientCapabilities) json.RawMessage {
	if caps == nil {
		return nil
	}
	m := map[string]any{}
	if caps.Sampling != nil {
		m["sampling"] = caps.Sampling
	}
	if caps.RootsV2 != nil {
		m["roots"] = map[string]any{}
	}
	raw, _ := json.Marshal(m)
	return raw
}

// sendSession sends sampling/createMessage or roots/list with params in
// the session of req and returns the client's result as JSON.
func sendSession(ctx context.Context, req *mcp.CallToolRequest, method string, raw json.RawMessage) (json.RawMessage, error) {
	if req.Session == nil {
		return nil, fmt.Errorf("%w: the request has no session to send %s in", runtime.ErrElicitUnsupported, method)
	}
	var res any
	var err error
	switch method {
	case methodSample:
		p, perr := sampleParams(raw)
		if perr != nil {
			return nil, perr
		}
		res, err = req.Session.CreateMessageWithTools(ctx, p)
	case methodListRoots:
		res, err = req.Session.ListRoots(ctx, &mcp.ListRootsParams{})
	default:
		return nil, fmt.Errorf("%w: gosdk cannot send %s", runtime.ErrElicitUnsupported, method)
	}
	if err != nil {
		return nil, clientError(err)
	}
	if raw, err = json.Marshal(res); err != nil {
		return nil, fmt.Errorf("%w: %v", runtime.ErrElicitMalformed, err)
	}
	return raw, nil
}
