package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// Version is what "show version" prints.
const Version = "ze 1.0.0 (elicit example)"

// peers is ze's fixed BGP peer table.
var peers = []string{
	"peer1 127.0.0.1 AS 1",
	"peer2 192.0.2.2 AS 64512",
}

// defaultDrainTime is how long ze_drain takes unless -drain-time says.
const defaultDrainTime = 5 * time.Second

// newServer is ze's server; drain is how long ze_drain takes (0:
// defaultDrainTime).
func newServer(opts runtime.Options, drain time.Duration) *runtime.Server {
	if drain <= 0 {
		drain = defaultDrainTime
	}
	opts.Name, opts.Version = "ze", "1.0.0"
	srv := runtime.NewServer(opts)
	runtime.AddTool(srv, runtime.Tool{
		Name:        "ze_execute",
		Description: "Run a ze command. Without a command, the user is asked for one.",
	}, execute, runtime.AskMissing("Which ze command should run?"))
	runtime.AddTool(srv, runtime.Tool{
		Name:        "ze_add_peer",
		Description: "Add a BGP peer; the user fills in the peer's details.",
	}, addPeer)
	tool := runtime.Tool{
		Name:        "ze_drain",
		Description: "Drain every BGP peer for maintenance (slow), then ask the user whether to shut their sessions down.",
	}
	if opts.Tasks.Store != nil { // a task needs somewhere to wait for its person
		tool.TaskSupport = runtime.TaskOptional
	}
	runtime.AddTool(srv, tool, drainPeers(drain))
	return srv
}

// drainPeers is ze_drain, taking drain to drain the peers: a slow tool that asks its person half-way. For
// a 2026-07-28 client that declares the tasks extension, on a ze with a
// task store, the call is a task: the client has the task at once, the
// drain runs in the background, and the question waits in the store
// (tasks/get shows it, tasks/update answers it) for as long as the person
// takes, through restarts of ze. The handler is the same in every case:
// after the answer it runs again from the top (Round counts the runs), so
// the drain, done by the first run, is not repeated.
func drainPeers(drain time.Duration) func(context.Context, *runtime.CallToolRequest, struct{}) (*runtime.CallToolResult, error) {
	return func(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
		if req.Round == 0 {
			t := time.NewTimer(drain)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
		}
		answer, err := runtime.Elicit[ShutdownForm](ctx, fmt.Sprintf("%d peers drained. Shut their sessions down?", len(peers)))
		if err != nil {
			return outcomeError(err)
		}
		if !answer.Shutdown {
			return runtime.TextResult(fmt.Sprintf("drained %d peers; sessions kept up", len(peers))), nil
		}
		return runtime.TextResult(fmt.Sprintf("drained %d peers; sessions shut down", len(peers))), nil
	}
}

// execute is the seed's ze_execute. Its arguments are CommandForm, and
// AskMissing asks the user for the command when the call left it out (or
// gave ""), before execute runs; a client that cannot be asked gets the
// argument error naming "command".
func execute(_ context.Context, _ *runtime.CallToolRequest, in CommandForm) (*runtime.CallToolResult, error) {
	return dispatch(strings.TrimSpace(in.Command)), nil
}

// outcomeError turns an elicitation outcome into the tool's answer.
func outcomeError(err error) (*runtime.CallToolResult, error) {
	switch {
	case errors.Is(err, runtime.ErrInputRequired):
		return nil, err // 2026-07-28: the runtime asks and runs us again
	case errors.Is(err, runtime.ErrElicitDeclined):
		return runtime.ErrorResult("the user declined to answer"), nil
	case errors.Is(err, runtime.ErrElicitCanceled):
		return runtime.ErrorResult("the user canceled the request"), nil
	default:
		return runtime.ErrorResult("%v", err), nil
	}
}

func dispatch(command string) *runtime.CallToolResult {
	switch command {
	case "show bgp peer list", "peer list":
		return runtime.TextResult(strings.Join(peers, "\n"))
	case "show version":
		return runtime.TextResult(Version)
	default:
		return runtime.ErrorResult("unknown command: %s", command)
	}
}

// addPeer asks for every field of a new peer with the rich generated form,
// then for a confirmation: a two-step elicitation (on 2026-07-28 clients two
// input_required round trips, the first answer kept in requestState).
func addPeer(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
	// PeerForm's optional multi-select (Extra) has no equivalent before
	// 2025-11-25: a 2025-06-18 client is asked the form without it, and
	// Dropped names it.
	if err := runtime.CanElicit[PeerForm](ctx); err != nil {
		return runtime.ErrorResult("ze_add_peer needs a client that supports elicitation: %v", err), nil
	}
	// A mistyped answer (an address that is not an IP, say) is asked once
	// more, saying what was wrong and keeping what was right, before the
	// call fails.
	p, err := runtime.Elicit[PeerForm](ctx, "Describe the new BGP peer", runtime.WithReask(1))
	if err != nil {
		return outcomeError(err)
	}
	summary := fmt.Sprintf("Add peer %s AS %d?", p.Address, p.ASN)
	ok, err := runtime.Elicit[ConfirmForm](ctx, summary)
	if err != nil {
		return outcomeError(err)
	}
	if !ok.Confirm {
		return runtime.ErrorResult("peer %s not added", p.Address), nil
	}
	// The peer is added by one run of the call: on 2026-07-28 a replay of
	// its last round (the same requestState sent again) is refused.
	if err := runtime.ClaimCall(ctx); err != nil {
		return nil, err
	}
	families := []string{string(p.Family)}
	for _, f := range p.Extra {
		families = append(families, string(f))
	}
	mode := "active"
	if p.Passive {
		mode = "passive"
	}
	text := fmt.Sprintf("added peer %s AS %d families %s %s", p.Address, p.ASN, strings.Join(families, ","), mode)
	if p.Contact != "" {
		text += " contact " + p.Contact
	}
	if dropped := runtime.Dropped[PeerForm](ctx); len(dropped) > 0 {
		text += " (not asked: " + strings.Join(dropped, ", ") + ")"
	}
	return runtime.TextResult(text), nil
}
