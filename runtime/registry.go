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
// {"type":"object"}. It panics (see "Set-up mistakes panic" in the package
// doc) on a Server not made by NewServer, a tool with no Name and a nil
// handler.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	s.mustRegister("Server.AddTool", t.Name, h == nil)
	s.checkTaskSupport(t)
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	s.toolsMu.Lock()
	s.tools[t.Name] = &registeredTool{tool: t, handler: h}
	s.toolsMu.Unlock()
	s.rebuildToolList()
}

// mustRegister panics with the fix when a tool named name cannot be
// registered on s by fn (runtime.AddTool or Server.AddTool); nilHandler
// tells whether its handler is nil.
func (s *Server) mustRegister(fn, name string, nilHandler bool) {
	switch {
	case !s.made():
		panic("elicit: " + fn + ": the Server was not made by NewServer: create it with runtime.NewServer(runtime.Options{})")
	case name == "":
		panic("elicit: " + fn + ": the tool has no name, so no client could call it: set Tool.Name")
	case nilHandler:
		panic(fmt.Sprintf("elicit: %s: tool %q has a nil handler: pass the function that serves its calls", fn, name))
	}
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
	// A 2025-11-25 session with a task store also sees each tool's
	// execution.taskSupport (servesTasks).
	withExec := make([]any, len(list))
	for i, t := range list {
		withExec[i] = t
		if ts := s.tools[t.Name].taskSupport(); ts != TaskForbidden {
			withExec[i] = struct {
				Tool
				Execution struct {
					TaskSupport TaskSupport `json:"taskSupport"`
				} `json:"execution"`
			}{Tool: t, Execution: struct {
				TaskSupport TaskSupport `json:"taskSupport"`
			}{ts}}
		}
	}
	if raw, err = json.Marshal(struct {
		Tools []any `json:"tools"`
	}{withExec}); err != nil {
		panic(fmt.Sprintf("elicit: encoding tools/list: %v", err))
	}
	s.toolListTasks = raw
}

// toolsListTasksResult is the tools/list result of a session served tasks.
func (s *Server) toolsListTasksResult() json.RawMessage {
	s.toolsMu.RLock()
	defer s.toolsMu.RUnlock()
	return s.toolListTasks
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
