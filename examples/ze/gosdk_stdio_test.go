package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The official Go SDK client drives ze over stdio: mcp.CommandTransport
// starts "ze -stdio" as a child process, as an MCP host would. In its
// default era, 2026-07-28, the SDK probes with server/discover and does
// the input_required retries itself; in the legacy versions it sends
// initialize and answers elicitation/create arriving as a line.

// buildZe builds this command once for a test.
func buildZe(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ze")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building ze: %v\n%s", err, out)
	}
	return bin
}

func connectSDKStdio(t *testing.T, bin, version string, a *answers) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if a != nil {
		opts.ElicitationHandler = a.handler
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdk-stdio-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	transport := &mcp.CommandTransport{Command: exec.Command(bin, "-stdio"), TerminateDuration: 5 * time.Second}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect over stdio (%s): %v", eraName(version), err)
	}
	t.Cleanup(func() {
		// Closing stdin ends ze, which must exit cleanly on EOF.
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return cs
}

func TestGoSDKClientStdio(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	bin := buildZe(t)
	for _, version := range eras {
		t.Run(eraName(version), func(t *testing.T) {
			cases := []struct {
				name    string
				answer  *mcp.ElicitResult
				want    string
				isError bool
			}{
				{"accept", accept(map[string]any{"command": "show bgp peer list"}), "peer1 127.0.0.1 AS 1", false},
				{"decline", &mcp.ElicitResult{Action: "decline"}, "the user declined to answer", true},
				{"cancel", &mcp.ElicitResult{Action: "cancel"}, "the user canceled the request", true},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					a := &answers{results: []*mcp.ElicitResult{tc.answer}}
					cs := connectSDKStdio(t, bin, version, a)
					if got, want := cs.InitializeResult().ProtocolVersion, wantVersion(version); got != want {
						t.Errorf("negotiated %q, want %q", got, want)
					}
					text, isErr := callText(t, cs, "ze_execute", map[string]any{})
					if !strings.Contains(text, tc.want) || isErr != tc.isError {
						t.Fatalf("got %q isError=%v, want %q isError=%v", text, isErr, tc.want, tc.isError)
					}
					if len(a.messages) != 1 || a.messages[0] != "Which ze command should run?" {
						t.Errorf("elicitations seen: %q", a.messages)
					}
				})
			}
			t.Run("no capability", func(t *testing.T) {
				cs := connectSDKStdio(t, bin, version, nil)
				text, isErr := callText(t, cs, "ze_execute", map[string]any{})
				if text != "missing required argument: command" || !isErr {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
			})
			t.Run("two calls on one connection", func(t *testing.T) {
				peer := map[string]any{"address": "192.0.2.7", "asn": 65001, "family": "ipv6-unicast", "passive": true}
				a := &answers{results: []*mcp.ElicitResult{accept(peer), accept(map[string]any{"confirm": true}), accept(map[string]any{"command": "show version"})}}
				cs := connectSDKStdio(t, bin, version, a)
				want := "added peer 192.0.2.7 AS 65001 families ipv6-unicast passive"
				if version == "2025-06-18" {
					want += " (not asked: extra)" // its multi-select needs 2025-11-25
				}
				if text, isErr := callText(t, cs, "ze_add_peer", nil); isErr || text != want {
					t.Fatalf("ze_add_peer: %q isError=%v", text, isErr)
				}
				if text, isErr := callText(t, cs, "ze_execute", nil); isErr || text != Version {
					t.Fatalf("ze_execute: %q isError=%v", text, isErr)
				}
			})
		})
	}
}

// wantVersion is the version a session should end up with.
func wantVersion(requested string) string {
	if requested == "" {
		return "2026-07-28"
	}
	return requested
}
