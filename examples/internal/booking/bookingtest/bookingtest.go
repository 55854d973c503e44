// Package bookingtest is the end-to-end test suite of the gosdk and mcpgo
// examples: both serve the same book_table tool, so one suite drives each
// through the official go-sdk client and through runtime/elicittest (and
// internal/mcpclient for raw requestState checks), in every protocol era,
// and checks its command line. What differs between
// the MCP libraries is a field of Suite.
package bookingtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-elicit/elicit/internal/mcpclient"
	"github.com/go-elicit/elicit/runtime/elicittest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Suite is one example under test.
type Suite struct {
	// NewHandler builds the example's MCP handler.
	NewHandler func(*slog.Logger) (http.Handler, error)
	// Main is the example's main without os.Exit: it returns the exit code.
	Main func(args []string, stderr io.Writer) int
	// ClientName names the go-sdk client the suite connects with.
	ClientName string
	// StateErrorCode is the JSON-RPC error code a requestState the server
	// did not issue is answered with, and StateErrorKind says it in words.
	StateErrorCode int
	StateErrorKind string
}

// Run runs the whole suite against s, one subtest a part: GoSDKClient,
// Elicittest, RequestStateChecked, Main and MainBadFlag. Main signals
// the test process with SIGINT, so nothing else may run in parallel.
func Run(t *testing.T, s Suite) {
	t.Run("GoSDKClient", s.goSDKClient)
	t.Run("Elicittest", s.kit)
	t.Run("RequestStateChecked", s.requestStateChecked)
	t.Run("Main", s.mainServes)
	t.Run("MainBadFlag", s.mainBadFlag)
}

// seen records the protocol version header of every tools/call POST.
type seen struct {
	mu       sync.Mutex
	versions []string
}

func (s *seen) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.versions
	s.versions = nil
	return v
}

// serve runs the example's handler on loopback.
func (s Suite) serve(t *testing.T) (string, *seen) {
	t.Helper()
	h, err := s.NewHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	calls := &seen{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			calls.mu.Lock()
			calls.versions = append(calls.versions, r.Header.Get("MCP-Protocol-Version"))
			calls.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	return hs.URL, calls
}

// answer is what the scripted user does with one form.
type answer struct {
	action  string
	content map[string]any
}

func accept(content map[string]any) answer { return answer{"accept", content} }

var (
	declined = answer{action: "decline"}
	canceled = answer{action: "cancel"}
)

// user answers the forms in order and records what it was asked.
type user struct {
	mu       sync.Mutex
	answers  []answer
	messages []string
}

func (u *user) next(message string) answer {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.messages = append(u.messages, message)
	if len(u.answers) == 0 {
		return canceled
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	return a
}

func (u *user) asked() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.messages...)
}

const (
	askBooking = "Who is the table for?"
	askConfirm = "Book a table for 4 (outdoor) under Ada?"
)

var ada = map[string]any{"name": "Ada", "guests": 4, "seating": "outdoor"}

// The cases every client and era runs. bad content needs a client that does
// not check content itself (the go-sdk client does: it never sends it).
type flow struct {
	name    string
	args    map[string]any
	answers []answer
	want    string // substring of the result text
	isError bool
	asked   []string
	badOnly bool // only for clients that send content unchecked
}

var flows = []flow{
	{name: "accept", answers: []answer{accept(ada), accept(map[string]any{"confirm": true})},
		want: "booked a table for 4 (outdoor) under Ada", asked: []string{askBooking, askConfirm}},
	{name: "not confirmed", answers: []answer{accept(ada), accept(map[string]any{"confirm": false})},
		want: "not booked: the user did not confirm", isError: true, asked: []string{askBooking, askConfirm}},
	{name: "arguments given", args: map[string]any{"name": "Bob", "guests": 2}, answers: []answer{accept(map[string]any{"confirm": true})},
		want: "booked a table for 2 (indoor) under Bob", asked: []string{"Book a table for 2 (indoor) under Bob?"}},
	{name: "decline", answers: []answer{declined}, want: "the user declined to answer", isError: true, asked: []string{askBooking}},
	{name: "cancel", answers: []answer{canceled}, want: "the user canceled the request", isError: true, asked: []string{askBooking}},
	{name: "decline confirm", answers: []answer{accept(ada), declined}, want: "the user declined to answer", isError: true, asked: []string{askBooking, askConfirm}},
	{name: "bad content", badOnly: true, answers: []answer{accept(map[string]any{"name": "Ada", "guests": 40, "seating": "roof"})},
		want: `elicit: invalid content: "guests" must be at most 12; "seating" must be one of`, isError: true, asked: []string{askBooking}},
	{name: "wrong type", badOnly: true, answers: []answer{accept(map[string]any{"name": 7, "guests": 4, "seating": "bar"})},
		want: `elicit: invalid content: "name"`, isError: true, asked: []string{askBooking}},
}

// --- the official go-sdk client ---

var sdkEras = []string{"", "2025-11-25", "2025-06-18"} // "" = the SDK's default, 2026-07-28

func eraName(v string) string {
	if v == "" {
		return "default-2026-07-28"
	}
	return v
}

func (s Suite) connectSDK(t *testing.T, url, version string, u *user) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if u != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a := u.next(req.Params.Message)
			return &mcp.ElicitResult{Action: a.action, Content: a.content}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: s.ClientName, Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", eraName(version), err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func sdkCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "book_table", Arguments: args})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// goSDKClient runs every flow but the unchecked-content ones through the
// official go-sdk client, in each era it speaks.
func (s Suite) goSDKClient(t *testing.T) {
	url, calls := s.serve(t)
	for _, version := range sdkEras {
		t.Run(eraName(version), func(t *testing.T) {
			for _, f := range flows {
				if f.badOnly {
					continue
				}
				t.Run(f.name, func(t *testing.T) {
					u := &user{answers: f.answers}
					cs := s.connectSDK(t, url, version, u)
					calls.take()
					text, isErr := sdkCall(t, cs, f.args)
					// 2026-07-28: one POST per round, each naming the version.
					if got := calls.take(); version == "" && (len(got) != len(f.asked)+1 || got[0] != "2026-07-28") {
						t.Errorf("tools/call POSTs with versions %q, want %d with 2026-07-28", got, len(f.asked)+1)
					}
					if !strings.Contains(text, f.want) || isErr != f.isError {
						t.Fatalf("got %q isError=%v, want %q isError=%v", text, isErr, f.want, f.isError)
					}
					if got := u.asked(); strings.Join(got, "|") != strings.Join(f.asked, "|") {
						t.Fatalf("asked %q, want %q", got, f.asked)
					}
				})
			}
			t.Run("no capability", func(t *testing.T) {
				cs := s.connectSDK(t, url, version, nil)
				text, isErr := sdkCall(t, cs, nil)
				if text != "missing required arguments: name, guests" || !isErr {
					t.Fatalf("got %q isError=%v", text, isErr)
				}
			})
		})
	}
}

// --- internal/mcpclient, for the raw requestState checks ---

func connectOurs(t *testing.T, url, version string, u *user) *mcpclient.Client {
	t.Helper()
	opts := mcpclient.Options{URL: url, Protocol: version}
	if u != nil {
		opts.Capabilities = mcpclient.Capabilities{Elicitation: &mcpclient.ElicitationCapability{}}
		opts.OnElicit = func(ctx context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
			a := u.next(p.Message)
			r := mcpclient.ElicitResult{Action: a.action}
			if a.content != nil {
				raw, err := json.Marshal(a.content)
				if err != nil {
					return r, err
				}
				r.Content = raw
			}
			return r, nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := mcpclient.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// kit runs every flow through runtime/elicittest, whose client
// sends content unchecked, in each era, and checks the schema variant and
// mode each era is asked with.
func (s Suite) kit(t *testing.T) {
	h, err := s.NewHandler(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := elicittest.NewServer(t, h)
	srv.Each(t, func(t *testing.T, c *elicittest.Client) {
		for _, f := range flows {
			t.Run(f.name, func(t *testing.T) {
				res := c.Call(t, "book_table", f.args, script(f.answers)...)
				if f.isError {
					res.WantError(t, f.want)
				} else {
					res.WantText(t, f.want)
				}
				res.WantAsked(t, f.asked...)
				wantRounds := 0
				if c.Protocol() == "2026-07-28" {
					wantRounds = len(f.asked)
				}
				if res.Rounds != wantRounds {
					t.Errorf("%d input_required rounds, want %d", res.Rounds, wantRounds)
				}
			})
		}
		t.Run("schema and mode", func(t *testing.T) {
			asked := c.Call(t, "book_table", nil, elicittest.Decline()).Asked()
			if len(asked) != 1 {
				t.Fatalf("%d elicitations", len(asked))
			}
			schema := string(asked[0].Schema)
			titled := strings.Contains(schema, `"oneOf":[{"const":"indoor","title":"Indoor"}`)
			legacyTitled := strings.Contains(schema, `"enumNames":["Indoor","Outdoor terrace","At the bar"]`)
			if legacy := c.Protocol() == "2025-06-18"; titled == legacy || legacyTitled != legacy {
				t.Errorf("schema for %s: %s", c.Protocol(), schema)
			}
			if asked[0].Mode != "form" {
				t.Errorf("mode %q, want form", asked[0].Mode)
			}
		})
		t.Run("no capability", func(t *testing.T) {
			cannot := srv.Connect(t, elicittest.Conn{Protocol: c.Protocol(), Elicitation: elicittest.NoElicitation})
			cannot.Call(t, "book_table", nil).WantError(t, "missing required arguments: name, guests")
		})
	})
}

// script turns a flow's answers into the kit's: content is sent as it is,
// so that the bad-content flows reach the server.
func script(answers []answer) []elicittest.Answer {
	out := make([]elicittest.Answer, len(answers))
	for i, a := range answers {
		switch a.action {
		case "accept":
			out[i] = elicittest.AcceptRaw(a.content)
		case "decline":
			out[i] = elicittest.Decline()
		default:
			out[i] = elicittest.Cancel()
		}
	}
	return out
}

// requestStateChecked checks that a requestState the server did not issue,
// or issued for other arguments, fails the call with StateErrorCode and a
// message naming the requestState instead of reaching the handler, and that
// the genuine one leads to the next round.
func (s Suite) requestStateChecked(t *testing.T) {
	url, _ := s.serve(t)
	var state string
	u := &user{answers: []answer{accept(ada)}}
	c := connectOurs(t, url, "2026-07-28", u)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := c.Call(ctx, "tools/call", map[string]any{"name": "book_table", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(raw, &ir); err != nil {
		t.Fatal(err)
	}
	if ir.ResultType != "input_required" || ir.InputRequests["booking_form"] == nil || ir.RequestState == "" {
		t.Fatalf("first round: %s", raw)
	}
	state = ir.RequestState
	answer := map[string]any{"booking_form": map[string]any{"action": "accept", "content": ada}}
	for name, params := range map[string]map[string]any{
		"tampered":       {"name": "book_table", "arguments": map[string]any{}, "inputResponses": answer, "requestState": state[:len(state)-2] + "AA"},
		"other args":     {"name": "book_table", "arguments": map[string]any{"name": "Eve"}, "inputResponses": answer, "requestState": state},
		"not base64url!": {"name": "book_table", "arguments": map[string]any{}, "inputResponses": answer, "requestState": "%%%"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := c.Call(ctx, "tools/call", params)
			var rpcErr *mcpclient.RPCError
			if !errors.As(err, &rpcErr) || rpcErr.Code != s.StateErrorCode || !strings.Contains(rpcErr.Message, "invalid requestState") {
				t.Fatalf("got %v, want %s naming the requestState", err, s.StateErrorKind)
			}
		})
	}
	t.Run("genuine", func(t *testing.T) {
		raw, err := c.Call(ctx, "tools/call", map[string]any{"name": "book_table", "arguments": map[string]any{}, "inputResponses": answer, "requestState": state})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(`"confirm_form"`)) {
			t.Fatalf("second round should ask for the confirmation: %s", raw)
		}
	})
}
