// Load drives the elicit runtime with many concurrent eliciting tool calls
// and checks that nothing is lost, stuck or leaked.
//
//	go run ./internal/cmd/load [flags]     (make load: the full run)
//
// It starts a runtime.Server behind a real net/http server on a kernel-chosen
// 127.0.0.1 port, with one tool, "book", that elicits the generated
// BookingForm (form.go; main_elicit.go is elicitgen's output: run go
// generate after changing the form). Simulated clients speak raw HTTP to it:
// -sessions legacy sessions (alternately 2025-11-25 and 2025-06-18, so both
// elicitation shapes and schema variants are exercised) and as many
// 2026-07-28 clients, each running -concurrency calls at a time, every call
// eliciting, for one warm-up round and then -rounds measured rounds. The
// eras run one after the other (-era chooses).
//
// What each call does with its elicitation is drawn from -mix with a PCG
// stream per worker seeded by -seed, before the run, so a seed always makes
// the same calls whatever the scheduling:
//
//	accept       valid content; the result must echo the decoded form
//	decline      action "decline"
//	cancel       action "cancel"
//	bad-content  action "accept" with content that breaks the form (one of
//	             twenty ways); the result must name the broken property
//	malformed    not an elicitation result: an unknown, empty, missing or
//	             non-string action, content that is not an object
//	disconnect   legacy: close the call's stream before answering and
//	             never resume it; the handler must return with the context
//	             error once the stream's resume window (1s here) has passed. 2026-07-28:
//	             take the input_required result and never retry
//
// On a legacy session a call is a tools/call whose reply upgrades to SSE,
// an elicitation/create event on it, the answer POSTed (202), and the
// result as the stream's last event. On 2026-07-28 it is a tools/call
// answered input_required, then the retry with inputResponses and the
// echoed requestState, answered complete.
//
// # Checks
//
// The run fails (exit status 1, with the first violations listed) unless:
//
//   - every tools/call reply carried exactly one terminal response, with the
//     call's own number, outcome and detail, or, for a legacy disconnect,
//     the handler returned with context.Canceled; "lost" counts the calls
//     where this does not hold and is printed as lost=N;
//   - per era and outcome, what the clients sent, what the handlers' Elicit
//     returned and what the clients received are the same counts;
//   - each elicitation request carried the call's message and the form's
//     generated schema for the session's protocol version;
//   - handler runs: one per legacy call, two per answered 2026-07-28 call
//     (Round 0, then 1), one per dropped retry; entries equal returns;
//   - the runtime and net/http logged no warning or error;
//   - after every session's DELETE the server holds no session;
//     runtime.Server.Shutdown and http.Server.Shutdown return; and no
//     goroutine started by the run is left (go.uber.org/goleak, with a
//     bounded wait for connection loops to end);
//   - the live heap after the measured rounds (runtime/metrics
//     /gc/heap/live:bytes after two forced collections, every idle
//     connection closed) is within -heap-tolerance of the baseline taken
//     after the warm-up round (see DefaultHeapTolerance for the reasoning);
//   - the run ends within -deadline.
//
// The report gives, per era, the clients, calls, elicitations per second
// and the p50/p99 round trip of the measured rounds (tools/call sent to
// terminal result read, the elicitation answered at once; the load is
// closed-loop at saturation, so these include queueing), and the outcome
// counts of every call.
//
// # Bounds
//
// Loopback only (no proxy), every count capped (sessions ≤ 1000,
// concurrency ≤ 32, the runtime's pending cap per session, rounds ≤ 100000),
// every wait bounded (the run's deadline on every request, ten seconds for
// the server to settle, events per stream and bytes per event capped), and
// the server's elicitation timeout (-elicit-timeout) below the deadline, so
// that a lost answer shows as an unexpected outcome instead of a hang.
//
// Flags:
//
//	-era both|legacy|modern   eras to run (both)
//	-sessions N               legacy sessions and 2026-07-28 clients (50)
//	-concurrency N            calls in flight per session (20)
//	-rounds N                 measured calls per worker after the warm-up (20)
//	-seed N                   seed of the mix (1)
//	-mix o=w,...              outcome weights (accept=40, 12 for each other)
//	-deadline D               bound of the whole run (90s)
//	-elicit-timeout D         the server's elicitation timeout (20s)
//	-heap-tolerance B         live heap growth allowed, bytes (4 MiB)
//	-hostile                  run the hostile mix beside the measured rounds
//	-hostile-rounds N         at most this many hostile rounds (20, ≤ 1000)
//	-max-rss B                peak RSS bound of a hostile run (384 MiB)
//	-cpuprofile FILE          write a CPU profile of the run
//
// # Hostile mix
//
// With -hostile (make load-hostile), one more client attacks the server
// while the measured rounds run: 2025-03-26 batches of MaxBodyBytes made of
// tiny items, initializes carrying 1.5 MiB of clientInfo or capabilities, a
// flood of bare initializes far past the server's session cap, 200 idle
// keep-alive connections, and 2026-07-28 calls carrying inputResponses
// without requestState. Every check above must still hold (lost=0, no
// session left), every idle connection must be closed by the server
// (IdleTimeout 10s in this mode), and the process's peak RSS must stay
// under -max-rss. hostile.go says what each attack does and expects.
//
// Exit status: 0 when every check passed, 1 on a violation, 2 for a bad
// command line. The small run in load_test.go (5 sessions × 4, both eras)
// is part of go test.
package main
