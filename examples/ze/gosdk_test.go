package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK client (github.com/modelcontextprotocol/go-sdk) drives
// ze in both eras: its default, 2026-07-28, where it performs the
// input_required retries itself, and the legacy versions, where it answers
// elicitation/create on the call's SSE stream.

var eras = []string{"", "2025-11-25", "2025-06-18"} // "" = the SDK's default (2026-07-28)

func eraName(v string) string {
	if v == "" {
		return "default-2026-07-28"
	}
	return v
}

// startZe serves ze on loopback.
func startZe(t *testing.T) string {
	t.Helper()
	srv := newServer(runtime.Options{}, 0)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL
}

// answers replays elicitation results in order and records the requests.
type answers struct {
	mu       sync.Mutex
	results  []*mcp.ElicitResult
	messages []string
	schemas  []any
}

func (a *answers) handler(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages = append(a.messages, req.Params.Message)
	a.schemas = append(a.schemas, req.Params.RequestedSchema)
	if len(a.results) == 0 {
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	r := a.results[0]
	a.results = a.results[1:]
	return r, nil
}

func connectSDK(t *testing.T, url, version string, a *answers) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if a != nil {
		opts.ElicitationHandler = a.handler
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", eraName(version), err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

func TestGoSDKClientExecute(t *testing.T) {
	url := startZe(t)
	for _, version := range eras {
		t.Run(eraName(version), func(t *testing.T) {
			cases := []struct {
				name    string
				answer  *mcp.ElicitResult
				want    string
				isError bool
			}{
				{"accept", accept(map[string]any{"command": "show bgp peer list"}), "peer1 127.0.0.1 AS 1", false},
				{"accept unknown", accept(map[string]any{"command": "reboot"}), "unknown command: reboot", true},
				{"decline", &mcp.ElicitResult{Action: "decline"}, "declined", true},
				{"cancel", &mcp.ElicitResult{Action: "cancel"}, "canceled", true},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					a := &answers{results: []*mcp.ElicitResult{tc.answer}}
					cs := connectSDK(t, url, version, a)
					text, isErr := callText(t, cs, "ze_execute", map[string]any{})
					if !strings.Contains(text, tc.want) || isErr != tc.isError {
						t.Fatalf("got %q isError=%v, want %q isError=%v", text, isErr, tc.want, tc.isError)
					}
					if len(a.messages) != 1 || a.messages[0] != "Which ze command should run?" {
						t.Errorf("elicitations seen: %q", a.messages)
					}
				})
			}
			t.Run("command given", func(t *testing.T) {
				a := &answers{}
				cs := connectSDK(t, url, version, a)
				if text, _ := callText(t, cs, "ze_execute", map[string]any{"command": "show version"}); text != Version || len(a.messages) != 0 {
					t.Fatalf("got %q after %d elicitations", text, len(a.messages))
				}
			})
			t.Run("no capability", func(t *testing.T) {
				cs := connectSDK(t, url, version, nil)
				text, isErr := callText(t, cs, "ze_execute", map[string]any{})
				if text != "missing required argument: command" || !isErr {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
			})
		})
	}
}

func TestGoSDKClientTwoStepForm(t *testing.T) {
	url := startZe(t)
	peer := map[string]any{"address": "192.0.2.7", "asn": 65001, "family": "ipv6-unicast", "extra": []any{"l2vpn-evpn"}, "passive": true, "contact": "noc@example.net"}
	for _, version := range []string{"", "2025-11-25"} {
		t.Run(eraName(version), func(t *testing.T) {
			a := &answers{results: []*mcp.ElicitResult{accept(peer), accept(map[string]any{"confirm": true})}}
			cs := connectSDK(t, url, version, a)
			text, isErr := callText(t, cs, "ze_add_peer", nil)
			want := "added peer 192.0.2.7 AS 65001 families ipv6-unicast,l2vpn-evpn passive contact noc@example.net"
			if text != want || isErr {
				t.Fatalf("got %q isError=%v", text, isErr)
			}
			if len(a.messages) != 2 || a.messages[1] != "Add peer 192.0.2.7 AS 65001?" {
				t.Errorf("elicitations seen: %q", a.messages)
			}
			t.Run("second step declined", func(t *testing.T) {
				a := &answers{results: []*mcp.ElicitResult{accept(peer), {Action: "decline"}}}
				cs := connectSDK(t, url, version, a)
				if text, isErr := callText(t, cs, "ze_add_peer", nil); !isErr || !strings.Contains(text, "declined") {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
			})
			// The SDK client checks content against the schema itself, so
			// the bad answer breaks what only the server checks: the
			// validate:"ip" tag, which no schema keyword expresses.
			// ze re-asks once (runtime.WithReask(1)): the re-ask says what
			// was wrong, and a second bad answer fails the call.
			bad := map[string]any{"address": "not-an-ip", "asn": 1, "family": "ipv4-unicast", "passive": false}
			reask := `Describe the new BGP peer — "address" must be an IP address; please correct it`
			t.Run("bad content names the field", func(t *testing.T) {
				a := &answers{results: []*mcp.ElicitResult{accept(bad), accept(bad)}}
				cs := connectSDK(t, url, version, a)
				text, isErr := callText(t, cs, "ze_add_peer", nil)
				if !isErr || !strings.Contains(text, `"address" must be an IP address`) {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
				if len(a.messages) != 2 || a.messages[1] != reask {
					t.Errorf("elicitations seen: %q", a.messages)
				}
			})
			t.Run("a re-ask fixes bad content", func(t *testing.T) {
				a := &answers{results: []*mcp.ElicitResult{accept(bad), accept(peer), accept(map[string]any{"confirm": true})}}
				cs := connectSDK(t, url, version, a)
				text, isErr := callText(t, cs, "ze_add_peer", nil)
				if isErr || !strings.HasPrefix(text, "added peer 192.0.2.7 AS 65001") {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
				if len(a.messages) != 3 || a.messages[1] != reask {
					t.Errorf("elicitations seen: %q", a.messages)
				}
			})
		})
	}
	t.Run("2025-06-18 is asked without the multi-select", func(t *testing.T) {
		old := map[string]any{"address": "192.0.2.7", "asn": 65001, "family": "ipv6-unicast", "passive": true}
		a := &answers{results: []*mcp.ElicitResult{accept(old), accept(map[string]any{"confirm": true})}}
		cs := connectSDK(t, url, "2025-06-18", a)
		text, isErr := callText(t, cs, "ze_add_peer", nil)
		if want := "added peer 192.0.2.7 AS 65001 families ipv6-unicast passive (not asked: extra)"; isErr || text != want {
			t.Fatalf("got %q isError=%v, want %q", text, isErr, want)
		}
		if len(a.messages) != 2 {
			t.Errorf("elicitations seen: %q", a.messages)
		}
	})
}
