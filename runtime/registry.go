package runtime

import (
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
// {"type":"object"}.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if t.Name == "" {
		panic("elicit: AddTool: tool has no name")
	}
	if h == nil {
		panic(fmt.Sprintf("elicit: AddTool %q: nil handler", t.Name))
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
