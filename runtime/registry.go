package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// The tools a Server serves: registration and the tools/list result.

type registeredTool struct {
	tool    Tool
	handler ToolHandler
}

// AddTool registers (or replaces) a tool. An empty InputSchema becomes
// {"type":"object"}. A tool with no Name is not registered (no client
// could call it) and a nil handler registers a tool whose every call fails
// with -32603 saying so; both are logged as errors (Options.Logger).
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if !s.made() {
		return
	}
	if t.Name == "" {
		s.log.Error("elicit: AddTool: the tool has no name, so it is not registered: set Tool.Name")
		return
	}
	if h == nil {
		s.log.Error("elicit: AddTool: nil handler: every call of the tool fails", "tool", t.Name)
		name := t.Name
		h = func(context.Context, *CallToolRequest) (*CallToolResult, error) {
			return nil, rpcErrorf(CodeInternalError, "tool %q was registered with a nil handler: pass AddTool a ToolHandler", name)
		}
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	s.toolsMu.Lock()
	s.tools[t.Name] = &registeredTool{tool: t, handler: h}
	s.toolsMu.Unlock()
	s.rebuildToolList()
}

func (s *Server) rebuildToolList() {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	names := make([]string, 0, len(s.tools))
	for n := range s.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	list := make([]Tool, 0, len(names))
	for _, n := range names {
		list = append(list, s.tools[n].tool)
	}
	raw, err := json.Marshal(struct {
		Tools []Tool `json:"tools"`
	}{list})
	if err != nil {
		panic(fmt.Sprintf("elicit: encoding tools/list: %v", err))
	}
	s.toolList = raw
}

func (s *Server) lookupTool(name string) (*registeredTool, bool) {
	s.toolsMu.RLock()
	defer s.toolsMu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

func (s *Server) toolsListResult() json.RawMessage {
	s.toolsMu.RLock()
	defer s.toolsMu.RUnlock()
	return s.toolList
}
