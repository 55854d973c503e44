package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime"
)

func TestTaskZeroValues(t *testing.T) {
	var nilTask *mcpclient.Task
	if nilTask.Ended() {
		t.Error("a nil Task has ended")
	}
	if _, err := nilTask.CallToolResult(); !errors.Is(err, mcpclient.ErrProtocol) {
		t.Errorf("nil Task's CallToolResult: %v", err)
	}
	if _, err := (&mcpclient.Task{TaskID: "t", Status: mcpclient.TaskWorking}).CallToolResult(); !errors.Is(err, mcpclient.ErrProtocol) {
		t.Errorf("a working task's CallToolResult: %v", err)
	}
	for _, res := range []*mcpclient.CallToolResult{nil, {}, {ResultType: mcpclient.ResultTask, Raw: json.RawMessage(`{"resultType":"task"}`)}, {ResultType: mcpclient.ResultTask}} {
		if task := mcpclient.TaskOf(res); task != nil {
			t.Errorf("TaskOf(%+v) = %+v, want nil", res, task)
		}
	}
}

// TestAwaitTaskHostileServer: a task whose tasks/get breaks the protocol
// ends AwaitTask with an error, never a hang; every tasks/* request
// declared the extension and named the task in Mcp-Name.
func TestAwaitTaskHostileServer(t *testing.T) {
	cases := []struct {
		name, get string // get: tasks/get's result
		want      error
	}{
		{"input_required without requests", `{"taskId":"t1","status":"input_required","pollIntervalMs":1}`, mcpclient.ErrProtocol},
		{"asks forever", `{"taskId":"t1","status":"input_required","pollIntervalMs":1,"inputRequests":{"k":{"method":"elicitation/create","params":{"message":"again"}}}}`, mcpclient.ErrTooManyRounds},
		{"another task", `{"taskId":"t2","status":"working"}`, mcpclient.ErrProtocol},
		{"not an object", `[1]`, mcpclient.ErrProtocol},
		{"unknown method in a request", `{"taskId":"t1","status":"input_required","inputRequests":{"k":{"method":"ping"}}}`, mcpclient.ErrProtocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bad []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					} `json:"params"`
				}
				_ = json.NewDecoder(r.Body).Decode(&msg)
				w.Header().Set("Content-Type", "application/json")
				result := `{"resultType":"complete","supportedVersions":["2026-07-28"]}`
				if strings.HasPrefix(msg.Method, "tasks/") {
					caps := string(msg.Params.Meta[mcpclient.MetaClientCapabilities])
					mu.Lock()
					if name := r.Header.Get(runtime.HeaderName); name != "t1" || !strings.Contains(caps, `"extensions":{"`+mcpclient.ExtensionTasks+`":{}}`) {
						bad = append(bad, fmt.Sprintf("%s: Mcp-Name %q, capabilities %s", msg.Method, name, caps))
					}
					mu.Unlock()
					result = `{}`
					if msg.Method == mcpclient.MethodGetTask {
						result = tc.get
					}
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
			}))
			defer srv.Close()
			c := connect(t, srv.URL, mcpclient.Options{
				Protocol:  mcpclient.Version20260728,
				MaxRounds: 3,
				Capabilities: mcpclient.Capabilities{
					Elicitation: &mcpclient.ElicitationCapability{},
					Extensions:  map[string]json.RawMessage{mcpclient.ExtensionTasks: json.RawMessage(`{}`)},
				},
				OnElicit: answer(mcpclient.ElicitResult{Action: "cancel"}),
			})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := c.AwaitTask(ctx, "t1"); !errors.Is(err, tc.want) {
				t.Errorf("AwaitTask: %v, want %v", err, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, b := range bad {
				t.Error(b)
			}
		})
	}
}
