package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-elicit/elicit/runtime"
)

// bookingForm is the generated form's descriptor, for checking what the
// server sends.
var bookingForm = (*BookingForm)(nil).ElicitForm()

// server is the runtime under load: a runtime.Server behind a real
// net/http server on a 127.0.0.1 port the kernel picks.
type server struct {
	rt     *runtime.Server
	hs     *http.Server
	url    string
	served chan error // Serve's return

	conns           atomic.Int64 // open server-side connections
	entered, exited atomic.Int64 // handler runs begun and returned
	unsolicited     atomic.Int64 // probe runs answered without being asked (hostile mix)
	records         []callRecord

	// Anything the runtime or net/http logs at warning level or above, and
	// every elicitation outcome no client asked for, is a violation.
	notes *violations
}

// bookArgs are the tool's arguments: the call's number in the plan.
type bookArgs struct {
	Call int `json:"call"`
}

func startServer(cfg Config, records []callRecord, notes *violations) (*server, error) {
	s := &server{records: records, notes: notes, served: make(chan error, 1)}
	s.rt = runtime.NewServer(runtime.Options{
		Name:    "load",
		Version: "1",
		Logger:  slog.New(&noteHandler{notes: notes}),
		// A lost answer shows up as a timeout outcome (a violation) well
		// before the run's deadline, instead of as a hang.
		ElicitTimeout:          cfg.ElicitTimeout,
		SessionIdleTimeout:     10 * time.Minute,
		MaxPendingElicitations: runtime.DefaultMaxPendingElicitations,
		MaxSessions:            cfg.Sessions + 8,
		// A disconnect is not a cancel: the call waits this long for its
		// client to resume the stream, then ends with the context error.
		StreamResumeWindow: time.Second,
	})
	runtime.AddTool(s.rt, runtime.Tool{Name: toolName, Description: "Book seats; the user is asked for the details."}, s.book)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on loopback: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.rt)
	// Built the documented way; its WriteTimeout is shorter than the run:
	// the runtime must lift it on the streams it upgrades (known trap 1).
	s.hs = runtime.NewHTTPServer("", mux)
	if cfg.Hostile {
		s.hs.IdleTimeout = hostileIdleTimeout // the hostile idle connections must be closed within the run
		runtime.AddTool(s.rt, runtime.Tool{Name: probeTool, Description: "Elicits the form; the hostile mix answers it unasked."}, s.probe)
	}
	s.hs.ErrorLog = log.New(noteWriter{notes}, "", 0)
	s.hs.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.conns.Add(-1)
		}
	}
	s.url = "http://" + ln.Addr().String() + "/mcp"
	go func() { s.served <- s.hs.Serve(ln) }()
	return s, nil
}

// book is the tool under load: it elicits the generated BookingForm and
// names, in its result, the call and the outcome its Elicit returned, so
// the client can tell a result that reached the wrong call.
func (s *server) book(ctx context.Context, req *runtime.CallToolRequest, in bookArgs) (*runtime.CallToolResult, error) {
	s.entered.Add(1)
	defer s.exited.Add(1)
	if in.Call < 0 || in.Call >= len(s.records) {
		return runtime.ErrorResult("call %d is not in the plan", in.Call), nil
	}
	rec := &s.records[in.Call]
	run := rec.runs.Add(1)
	form, err := runtime.Elicit[BookingForm](ctx, elicitMessage(in.Call))
	o, detail := classify(err)
	if run <= int32(len(rec.outcomes)) {
		rec.outcomes[run-1].Store(int32(o))
		rec.rounds[run-1].Store(int32(req.Round) + 1)
	}
	if o == outcomeUnexpected {
		s.notes.add("call %d run %d: Elicit returned an unexpected error: %v", in.Call, run, err)
	}
	switch o {
	case outcomeInputRequired:
		return nil, err // the runtime answers input_required
	case outcomeAccept:
		return runtime.TextResult(resultText(in.Call, o, acceptedDetail(form))), nil
	}
	return runtime.ErrorResult("%s", resultText(in.Call, o, detail)), nil
}

// probe is the tool the hostile mix calls with answers it was never asked
// for: it counts an Elicit that returns a value in the call's first round.
func (s *server) probe(ctx context.Context, req *runtime.CallToolRequest, _ struct{}) (*runtime.CallToolResult, error) {
	_, err := runtime.Elicit[BookingForm](ctx, "probe")
	if err == nil && req.Round == 0 {
		s.unsolicited.Add(1)
	}
	if err != nil {
		return nil, err
	}
	return runtime.TextResult("answered"), nil
}

func elicitMessage(call int) string { return "Book seats for call " + strconv.Itoa(call) }

// resultText is the text of the tool's result; the client builds the same
// text from its plan and compares.
func resultText(call int, o outcome, detail string) string {
	return "call=" + strconv.Itoa(call) + " outcome=" + o.String() + " detail=" + detail
}

func acceptedDetail(f BookingForm) string {
	return fmt.Sprintf("%s|%d|%s|%t", f.Name, f.Seats, f.Class, f.Window)
}

// classify maps what Elicit returned to an outcome; for bad content the
// detail lists the properties the error names.
func classify(err error) (outcome, string) {
	var ce *runtime.ContentError
	switch {
	case err == nil:
		return outcomeAccept, ""
	case errors.Is(err, runtime.ErrInputRequired):
		return outcomeInputRequired, ""
	case errors.Is(err, runtime.ErrElicitDeclined):
		return outcomeDecline, ""
	case errors.Is(err, runtime.ErrElicitCanceled):
		return outcomeCancel, ""
	case errors.As(err, &ce) && errors.Is(err, runtime.ErrElicitInvalidContent):
		props := make([]string, len(ce.Problems))
		for i, p := range ce.Problems {
			props[i] = p.Property
		}
		return outcomeBadContent, strings.Join(props, ",")
	case errors.Is(err, runtime.ErrElicitMalformed):
		return outcomeMalformed, ""
	case errors.Is(err, context.Canceled):
		// The client closed the call's stream: net/http cancels the
		// request's context, which Elicit must return.
		return outcomeDisconnect, ""
	}
	return outcomeUnexpected, err.Error()
}

// parseResultOutcome reads the outcome a result text names.
func parseResultOutcome(text string) outcome {
	_, rest, ok := strings.Cut(text, " outcome=")
	if !ok {
		return outcomeUnexpected
	}
	name, _, _ := strings.Cut(rest, " ")
	for o := range numOutcomes {
		if outcomeNames[o] == name {
			return o
		}
	}
	return outcomeUnexpected
}

// noteHandler turns the runtime's warnings and errors into violations: under
// this load none is expected (an answer for no pending request, a panic).
type noteHandler struct {
	notes *violations
	attrs []slog.Attr
}

func (h *noteHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *noteHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("runtime logged ")
	b.WriteString(r.Level.String())
	b.WriteString(": ")
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		b.WriteString(" " + a.String())
	}
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	h.notes.add("%s", b.String())
	return nil
}

func (h *noteHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &noteHandler{notes: h.notes, attrs: append(append([]slog.Attr{}, h.attrs...), attrs...)}
}

func (h *noteHandler) WithGroup(string) slog.Handler { return h }

// noteWriter takes net/http's error log.
type noteWriter struct{ notes *violations }

func (w noteWriter) Write(p []byte) (int, error) {
	w.notes.add("net/http logged: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}

// violations collects what went wrong: every one is counted, the first
// few are kept for the report.
type violations struct {
	mu    sync.Mutex
	n     int
	first []string
}

const keptViolations = 20

func (v *violations) add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	if len(v.first) < keptViolations {
		v.first = append(v.first, fmt.Sprintf(format, args...))
	}
}

func (v *violations) snapshot() (int, []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.n, append([]string(nil), v.first...)
}
