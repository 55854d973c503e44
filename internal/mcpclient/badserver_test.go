package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
)

// rawServer answers initialize properly (unless init is set), accepts
// notifications and responses with 202, and hands tools/call to call.
type rawServer struct {
	init func(w http.ResponseWriter, id json.RawMessage)
	call func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
	// reply, if set, answers POSTed JSON-RPC responses.
	reply func(w http.ResponseWriter)
}

func (s *rawServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	switch {
	case msg.Method == "initialize" && s.init != nil:
		s.init(w, msg.ID)
	case msg.Method == "initialize":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "sess-1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"raw","version":"0"}}}`, msg.ID)
	case msg.Method == "tools/call":
		s.call(w, r, msg.ID)
	case msg.Method == "" && s.reply != nil:
		s.reply(w)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func sse(w http.ResponseWriter, frames ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, f := range frames {
		fmt.Fprintf(w, "data: %s\n\n", f)
		w.(http.Flusher).Flush()
	}
}

func TestMisbehavingServers(t *testing.T) {
	elicit := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	cases := []struct {
		name   string
		server *rawServer
		is     error
		text   string
	}{
		{
			name:   "initialize answered 202",
			server: &rawServer{init: func(w http.ResponseWriter, _ json.RawMessage) { w.WriteHeader(http.StatusAccepted) }},
			is:     mcpclient.ErrProtocol, text: "no response",
		},
		{
			name: "unknown version chosen",
			server: &rawServer{init: func(w http.ResponseWriter, id json.RawMessage) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"x","version":"0"}}}`, id)
			}},
			is: mcpclient.ErrUnsupportedProtocol, text: `server chose "2024-11-05"`,
		},
		{
			name: "session id with a space",
			server: &rawServer{init: func(w http.ResponseWriter, id json.RawMessage) {
				w.Header().Set("Mcp-Session-Id", "a b")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
			}},
			is: mcpclient.ErrProtocol, text: "visible ASCII",
		},
		{
			name: "wrong content type",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprint(w, "hello")
			}},
			is: mcpclient.ErrProtocol, text: `unexpected content type "text/plain"`,
		},
		{
			name: "stream ends without the response",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
				sse(w, `{"jsonrpc":"2.0","method":"notifications/progress"}`)
			}},
			is: mcpclient.ErrStreamEnded,
		},
		{
			name:   "bad json on the stream",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) { sse(w, `{"jsonrpc":`) }},
			is:     mcpclient.ErrProtocol,
		},
		{
			name: "response without result or error",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s}`, id)
			}},
			is: mcpclient.ErrProtocol, text: "neither result nor error",
		},
		{
			name: "http 500 with a json-rpc error",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"kaput"}}`, id)
			}},
			text: "http 500 Internal Server Error: json-rpc error -32603: kaput",
		},
		{
			name: "http 503 plain",
			server: &rawServer{call: func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
			}},
			text: "POST: http 503 Service Unavailable: overloaded",
		},
		{
			// The answer cannot be delivered: the call must fail, not hang.
			name: "elicitation answer rejected",
			server: &rawServer{
				call:  func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) { sse(w, elicit); <-r.Context().Done() },
				reply: func(w http.ResponseWriter) { http.Error(w, "nope", http.StatusBadRequest) },
			},
			text: "answering elicitation/create: POST: http 400 Bad Request: nope",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.server)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var err error
			c, err := mcpclient.Connect(ctx, mcpclient.Options{
				URL:          srv.URL,
				Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
				OnElicit:     answer(mcpclient.ElicitResult{Action: "cancel"}),
			})
			if err == nil {
				_, err = c.CallTool(ctx, "t", nil)
				c.Close()
			}
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("hung: %v", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q lacks %q", err, tc.text)
			}
		})
	}
}

func TestProtocol20250326(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{})
	c := connect(t, srv.URL, mcpclient.Options{Protocol: mcpclient.Version20250326})
	if c.ProtocolVersion() != mcpclient.Version20250326 {
		t.Errorf("negotiated %s", c.ProtocolVersion())
	}
	if got := lines(call(t, c, "echo", `{"text":"old"}`)); got != "echo: old" {
		t.Fatalf("got %q", got)
	}
}
