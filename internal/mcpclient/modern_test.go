package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/internal/testsupport/sdkfixture"
)

func TestModernAgainstSDK(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{Stateless: true})
	var got mcpclient.ElicitParams
	trace := &syncBuffer{}
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20260728,
		Trace:        trace,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit: func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			got = p
			return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"ok":true}`)}, nil
		},
	})
	if c.SessionID() != "" {
		t.Errorf("modern client has session %q", c.SessionID())
	}
	res := call(t, c, "confirm", "")
	if lines(res) != `confirmed: accept {"ok":true}` || res.Rounds != 1 || res.ResultType != mcpclient.ResultComplete {
		t.Fatalf("got %q rounds=%d resultType=%q", lines(res), res.Rounds, res.ResultType)
	}
	if got.Message != "Proceed?" {
		t.Errorf("params %+v", got)
	}
	if got := lines(call(t, c, "echo", `{"text":"x"}`)); got != "echo: x" {
		t.Errorf("echo: %q", got)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("ping: %v", err)
	}
	for _, want := range []string{"> Mcp-Method: tools/call", "> Mcp-Name: confirm", "> Mcp-Protocol-Version: 2026-07-28", `"requestState":"confirm-state"`, `"inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	if strings.Contains(trace.String(), "initialize") {
		t.Error("modern client sent initialize")
	}
}

func TestModernNoCapabilityAgainstSDK(t *testing.T) {
	srv := sdkfixture.Serve(t, sdkfixture.Options{Stateless: true})
	c := connect(t, srv.URL, mcpclient.Options{Protocol: mcpclient.Version20260728})
	// The server still asks (go-sdk leaves the check to the handler); the
	// client refuses to answer a capability it never declared.
	_, err := c.CallTool(context.Background(), "confirm", nil)
	var rpcErr *mcpclient.RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcpclient.CodeMethodNotFound {
		t.Fatalf("got %v", err)
	}
}

// modernServer plays a strict 2026-07-28 server by hand: it checks headers
// and _meta on every request, sheds load once, then asks for two inputs and
// answers the last retry on an SSE stream.
type modernServer struct {
	t      *testing.T
	mu     sync.Mutex
	ids    []string
	rounds int
	// serverRequest makes the final reply a server-sent request instead,
	// which 2026-07-28 forbids.
	serverRequest bool
}

func (s *modernServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name           string                     `json:"name"`
			Meta           map[string]json.RawMessage `json:"_meta"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fail := func(format string, args ...any) {
		s.t.Errorf(format, args...)
		http.Error(w, fmt.Sprintf(format, args...), http.StatusBadRequest)
	}
	switch {
	case r.Method != http.MethodPost:
		fail("method %s", r.Method)
		return
	case r.Header.Get("MCP-Protocol-Version") != "2026-07-28":
		fail("protocol header %q", r.Header.Get("MCP-Protocol-Version"))
		return
	case r.Header.Get("Mcp-Method") != msg.Method:
		fail("Mcp-Method %q for %q", r.Header.Get("Mcp-Method"), msg.Method)
		return
	case r.Header.Get("Mcp-Session-Id") != "":
		fail("session header on a modern request")
		return
	case string(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"`:
		fail("_meta protocolVersion %s", msg.Params.Meta["io.modelcontextprotocol/protocolVersion"])
		return
	case string(msg.Params.Meta["io.modelcontextprotocol/clientCapabilities"]) != `{"elicitation":{"form":{},"url":{}}}`:
		fail("_meta clientCapabilities %s", msg.Params.Meta["io.modelcontextprotocol/clientCapabilities"])
		return
	case !strings.Contains(string(msg.Params.Meta["io.modelcontextprotocol/clientInfo"]), `"name":"modern-test"`):
		fail("_meta clientInfo %s", msg.Params.Meta["io.modelcontextprotocol/clientInfo"])
		return
	}
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch msg.Method {
	case "server/discover":
		reply(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`)
		return
	case "tools/call":
	default:
		fail("unexpected method %q", msg.Method)
		return
	}
	if r.Header.Get("Mcp-Name") != msg.Params.Name {
		fail("Mcp-Name %q for tool %q", r.Header.Get("Mcp-Name"), msg.Params.Name)
		return
	}
	s.mu.Lock()
	s.ids = append(s.ids, string(msg.ID))
	s.rounds++
	round := s.rounds
	s.mu.Unlock()
	state := ""
	if msg.Params.RequestState != nil {
		state = *msg.Params.RequestState
	}
	switch round {
	case 1:
		if state != "" || msg.Params.InputResponses != nil {
			fail("first call carries retry fields")
			return
		}
		reply(`{"resultType":"input_required","requestState":"shed"}`)
	case 2:
		if state != "shed" || msg.Params.InputResponses != nil {
			fail("load-shedding retry: state %q, responses %v", state, msg.Params.InputResponses)
			return
		}
		reply(`{"resultType":"input_required","requestState":"s1","inputRequests":{
			"b":{"method":"elicitation/create","params":{"mode":"url","message":"open","url":"https://example.test/b"}},
			"a":{"method":"elicitation/create","params":{"mode":"form","message":"name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}}}}`)
	case 3:
		if state != "s1" {
			fail("state %q not echoed", state)
			return
		}
		a, b := string(msg.Params.InputResponses["a"]), string(msg.Params.InputResponses["b"])
		if a != `{"action":"accept","content":{"n":"form"}}` || b != `{"action":"accept"}` || len(msg.Params.InputResponses) != 2 {
			fail("inputResponses %v", msg.Params.InputResponses)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		if s.serverRequest {
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"ping\"}\n\n")
			return
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\n", msg.ID)
		fmt.Fprint(w, "data: \"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"booked\"}]}}\n\n")
	default:
		fail("round %d", round)
	}
}

func TestModernInputRequiredByHand(t *testing.T) {
	ms := &modernServer{t: t}
	srv := httptest.NewServer(ms)
	defer srv.Close()
	var order []string
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20260728,
		ClientInfo:   mcpclient.Implementation{Name: "modern-test", Version: "1"},
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true, URL: true}},
		OnElicit: func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			order = append(order, p.Mode)
			if p.Mode == "url" {
				return mcpclient.ElicitResult{Action: "accept"}, nil
			}
			return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"n":"form"}`)}, nil
		},
	})
	res := call(t, c, "book", `{"what":"room"}`)
	if lines(res) != "booked" || res.Rounds != 2 {
		t.Fatalf("got %q rounds=%d", lines(res), res.Rounds)
	}
	if !slices.Equal(order, []string{"url", "form"}) {
		t.Errorf("input requests answered in order %v, want the order the server wrote them: b, a", order)
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if len(ms.ids) != 3 || ms.ids[0] == ms.ids[1] || ms.ids[1] == ms.ids[2] || ms.ids[0] == ms.ids[2] {
		t.Errorf("retry ids not fresh: %v", ms.ids)
	}
}

func TestModernServerRequestIsProtocolError(t *testing.T) {
	srv := httptest.NewServer(&modernServer{t: t, serverRequest: true})
	defer srv.Close()
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20260728,
		ClientInfo:   mcpclient.Implementation{Name: "modern-test", Version: "1"},
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{Form: true, URL: true}},
		OnElicit: func(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			if p.Mode == "url" {
				return mcpclient.ElicitResult{Action: "accept"}, nil
			}
			return mcpclient.ElicitResult{Action: "accept", Content: json.RawMessage(`{"n":"form"}`)}, nil
		},
	})
	_, err := c.CallTool(context.Background(), "book", nil)
	if !errors.Is(err, mcpclient.ErrProtocol) || !strings.Contains(err.Error(), `"ping"`) {
		t.Fatalf("got %v", err)
	}
}

func TestModernTooManyRounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		w.Header().Set("Content-Type", "application/json")
		if msg.Method == "server/discover" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}`, msg.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"again"}}}}}`, msg.ID)
	}))
	defer srv.Close()
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20260728,
		MaxRounds:    3,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "cancel"}),
	})
	if _, err := c.CallTool(context.Background(), "loop", nil); !errors.Is(err, mcpclient.ErrTooManyRounds) {
		t.Fatalf("got %v", err)
	}
}

func TestModernServerSentElicitRefusedBySDK(t *testing.T) {
	// go-sdk refuses Session.Elicit while serving a 2026-07-28 request; the
	// handler must return inputRequests instead.
	srv := sdkfixture.Serve(t, sdkfixture.Options{Stateless: true})
	c := connect(t, srv.URL, mcpclient.Options{
		Protocol:     mcpclient.Version20260728,
		Capabilities: mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}},
		OnElicit:     answer(mcpclient.ElicitResult{Action: "cancel"}),
	})
	res := call(t, c, "greet", "")
	if !res.IsError || !strings.Contains(lines(res), "return an InputRequests map instead") {
		t.Fatalf("got %q", lines(res))
	}
}
