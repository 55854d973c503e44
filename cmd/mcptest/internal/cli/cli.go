// Package cli is mcptest's command line: flags, the script run and the exit
// status. The manual is the documentation of package main (cmd/mcptest).
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-elicit/elicit/cmd/mcptest/internal/script"
	"github.com/go-elicit/elicit/internal/mcpclient"
)

// Exit statuses.
const (
	ExitOK      = 0
	ExitFailure = 1 // a tool failed, the server misbehaved, or the run timed out
	ExitUsage   = 2 // bad flags or a bad script; nothing was sent
)

const (
	name           = "mcptest"
	defaultTimeout = 30 * time.Second
	scriptName     = "stdin"
)

// Run runs mcptest with args (without the program name) and returns the
// exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	errw := &lockedWriter{w: stderr}
	outw := &lockedWriter{w: stdout}
	cfg, err := parseFlags(args, errw)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		fmt.Fprintf(errw, "%s: %v\n", name, err)
		return ExitUsage
	}
	directives, err := script.Parse(scriptName, stdin)
	if err != nil {
		var list script.ErrorList
		if errors.As(err, &list) {
			fmt.Fprintln(errw, list.Error())
			return ExitUsage
		}
		fmt.Fprintf(errw, "%s: %v\n", name, err)
		return ExitFailure
	}
	r := &runner{cfg: cfg, stdout: outw, stderr: errw}
	return r.run(directives)
}

type config struct {
	url      string
	command  []string // --stdio, split as a shell would (quotes, backslashes; no expansion)
	protocol string   // "": the newest the server offers (connectNewest)
	elicit   *elicitFlag
	timeout  time.Duration
	trace    bool
	listen   bool
	header   http.Header
	sampling bool // --sampling: declare sampling (with tools from 2025-11-25 on)
	roots    bool // --roots: declare roots
	tasks    bool // --tasks: declare the tasks extension (2026-07-28)
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := &config{header: http.Header{}}
	var elicit elicitFlag
	var stdio string
	fs.StringVar(&cfg.url, "url", "", "server endpoint `URL` (this or --stdio)")
	fs.StringVar(&stdio, "stdio", "", "run the server `'CMD ARGS'` and speak stdio to it (this or --url)")
	fs.Var(&elicit, "elicit", "declare elicitation: alone as {} (form); --elicit=form,url lists the modes")
	fs.StringVar(&cfg.protocol, "protocol", "", "protocol `VERSION`: "+strings.Join(mcpclient.Versions(), ", ")+" (default: the newest the server offers)")
	fs.DurationVar(&cfg.timeout, "timeout", defaultTimeout, "bound on the whole run (0: none)")
	fs.BoolVar(&cfg.trace, "trace", false, "print every HTTP exchange and SSE frame, or every stdio line, to stderr")
	fs.BoolVar(&cfg.listen, "listen", false, "also open the standalone GET stream, for servers that elicit outside a call's stream")
	fs.Var(headerFlag(cfg.header), "header", "extra HTTP header `'Name: value'` (repeatable)")
	fs.BoolVar(&cfg.sampling, "sampling", false, "declare sampling (with tools from 2025-11-25 on), answered by sample-reply lines")
	fs.BoolVar(&cfg.roots, "roots", false, "declare roots, answered by roots-reply lines")
	fs.BoolVar(&cfg.tasks, "tasks", false, "declare the tasks extension (2026-07-28): a call of a task tool makes a task, for task-* lines")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s (--url URL | --stdio 'CMD ARGS') [--elicit[=form,url]] [--sampling] [--roots] [--tasks] [--protocol VERSION] [--timeout D] [--trace] [--listen] [--header 'K: V'] < script\n", name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		if isModeList(fs.Arg(0)) {
			// "--elicit form": a boolean-style flag takes its value only after "=".
			return nil, fmt.Errorf("unexpected argument %q: to declare those modes write --elicit=%s", fs.Arg(0), fs.Arg(0))
		}
		return nil, fmt.Errorf("unexpected argument %q (directives are read from stdin)", fs.Arg(0))
	}
	var err error
	if cfg.command, err = splitCommand(stdio); err != nil {
		return nil, fmt.Errorf("--stdio: %w", err)
	}
	switch {
	case cfg.url != "" && stdio != "":
		return nil, errors.New("--url and --stdio are mutually exclusive")
	case stdio != "" && len(cfg.command) == 0:
		return nil, errors.New("--stdio: empty command")
	case cfg.url == "" && stdio == "":
		return nil, errors.New("--url or --stdio is required")
	case len(cfg.command) > 0 && cfg.listen:
		return nil, errors.New("--listen needs --url (over stdio every message shares one channel)")
	case len(cfg.command) > 0 && len(cfg.header) > 0:
		return nil, errors.New("--header needs --url (stdio has no headers)")
	}
	if cfg.protocol != "" && !slices.Contains(mcpclient.Versions(), cfg.protocol) {
		return nil, fmt.Errorf("--protocol: unsupported version %q (want one of %s)", cfg.protocol, strings.Join(mcpclient.Versions(), ", "))
	}
	if cfg.tasks && cfg.protocol != "" && cfg.protocol != mcpclient.Version20260728 {
		return nil, fmt.Errorf("--tasks needs protocol %s (the tasks extension has no place in %s's sessions)", mcpclient.Version20260728, cfg.protocol)
	}
	if cfg.timeout < 0 {
		return nil, fmt.Errorf("--timeout: negative duration %s", cfg.timeout)
	}
	if elicit.set {
		if cfg.protocol != "" {
			if _, err := elicit.capability(cfg.protocol); err != nil {
				return nil, err
			}
		}
		cfg.elicit = &elicit
	}
	return cfg, nil
}

// connect connects speaking protocol.
func (r *runner) connect(ctx context.Context, protocol string) (*mcpclient.Client, error) {
	opts := mcpclient.Options{
		URL:        r.cfg.url,
		Command:    r.cfg.command,
		Protocol:   protocol,
		ClientInfo: mcpclient.Implementation{Name: name, Version: "1"},
		Header:     r.cfg.header,
		Listen:     r.cfg.listen,
	}
	if r.cfg.elicit != nil {
		c, err := r.cfg.elicit.capability(protocol)
		if err != nil {
			return nil, err
		}
		opts.Capabilities.Elicitation, opts.OnElicit = c, r.elicit
	}
	if r.cfg.sampling {
		opts.Capabilities.Sampling = &mcpclient.SamplingCapability{Tools: protocol >= "2025-11-25"}
	}
	if r.cfg.roots {
		opts.Capabilities.Roots = &mcpclient.RootsCapability{}
	}
	opts.OnRequest = r.request
	if r.cfg.tasks && protocol == mcpclient.Version20260728 {
		opts.Capabilities.Extensions = map[string]json.RawMessage{mcpclient.ExtensionTasks: json.RawMessage(`{}`)}
	}
	if r.cfg.trace {
		opts.Trace = r.stderr
	}
	if len(r.cfg.command) > 0 {
		// The server's own stderr (its logs, a panic) is the user's to see.
		opts.Stderr = r.stderr
	}
	return mcpclient.Connect(ctx, opts)
}

// probeTimeout bounds the 2026-07-28 attempt of connectNewest, for a
// server that does not answer a request it does not know.
const probeTimeout = 10 * time.Second

// connectNewest connects speaking the newest protocol version the server
// offers: 2026-07-28 when its server/discover lists it; else the newest
// legacy version its -32022 error lists as supported or, without that
// list (a legacy server does not know server/discover), an initialize
// asking for 2025-11-25, which the server answers with its choice.
func (r *runner) connectNewest(ctx context.Context) (*mcpclient.Client, error) {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	client, err := r.connect(pctx, mcpclient.Version20260728)
	cancel()
	if err == nil || ctx.Err() != nil {
		return client, err
	}
	legacy := mcpclient.Version20251125
	if supported := supportedVersions(err); len(supported) > 0 {
		legacy = ""
		for _, v := range mcpclient.Versions() { // newest first
			if slices.Contains(supported, v) {
				legacy = v
				break
			}
		}
		if legacy == "" {
			return nil, fmt.Errorf("the server supports only %s; mcptest speaks %s", strings.Join(supported, ", "), strings.Join(mcpclient.Versions(), ", "))
		}
	}
	if r.cfg.trace {
		fmt.Fprintf(r.stderr, "[-] * %s failed (%v); trying %s\n", mcpclient.Version20260728, err, legacy)
	}
	client, lerr := r.connect(ctx, legacy)
	if lerr != nil {
		return nil, fmt.Errorf("%w (and with %s: %v)", lerr, mcpclient.Version20260728, err)
	}
	return client, nil
}

// supportedVersions is data.supported of a -32022 error in err.
func supportedVersions(err error) []string {
	var rpcErr *mcpclient.RPCError
	if !errors.As(err, &rpcErr) || len(rpcErr.Data) == 0 {
		return nil
	}
	var data struct{ Supported []string }
	if json.Unmarshal(rpcErr.Data, &data) != nil {
		return nil
	}
	return data.Supported
}

// elicitFlag is --elicit, a boolean flag that may also take a mode list.
type elicitFlag struct {
	set   bool
	modes []string
}

func (f *elicitFlag) IsBoolFlag() bool { return true }

func (f *elicitFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strings.Join(f.modes, ",")
}

func (f *elicitFlag) Set(v string) error {
	switch v {
	case "true":
		f.set, f.modes = true, nil
		return nil
	case "false":
		f.set, f.modes = false, nil
		return nil
	}
	var modes []string
	for m := range strings.SplitSeq(v, ",") {
		m = strings.TrimSpace(m)
		if m != mcpclient.ModeForm && m != mcpclient.ModeURL {
			return fmt.Errorf("unknown elicitation mode %q (want form, url)", m)
		}
		modes = append(modes, m)
	}
	f.set, f.modes = true, modes
	return nil
}

func (f *elicitFlag) capability(protocol string) (*mcpclient.ElicitationCapability, error) {
	if protocol == mcpclient.Version20250326 {
		return nil, fmt.Errorf("--elicit needs protocol %s or later (elicitation does not exist in %s)", mcpclient.Version20250618, protocol)
	}
	c := &mcpclient.ElicitationCapability{}
	for _, m := range f.modes {
		switch m {
		case mcpclient.ModeForm:
			c.Form = true
		case mcpclient.ModeURL:
			c.URL = true
		}
	}
	if c.URL && protocol == mcpclient.Version20250618 {
		return nil, fmt.Errorf("--elicit=url needs protocol %s or later", mcpclient.Version20251125)
	}
	if protocol == mcpclient.Version20250618 {
		// {} is the only shape 2025-06-18 defines; it means form.
		c.Form = false
	}
	return c, nil
}

// headerFlag is a repeatable --header 'Name: value'.
type headerFlag http.Header

func (h headerFlag) String() string { return "" }

func (h headerFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") {
		return fmt.Errorf("want 'Name: value', got %q", v)
	}
	http.Header(h).Add(k, strings.TrimSpace(val))
	return nil
}

// runner executes a parsed script against one connection.
type runner struct {
	cfg    *config
	stdout *lockedWriter
	stderr *lockedWriter

	mu      sync.Mutex
	queue   []script.Directive // queued elicitation replies, oldest first
	samples []script.Directive // queued sample-reply lines, oldest first
	roots   []script.Directive // queued roots-reply lines, oldest first

	task string // the id of the last task an @TOOL made (main loop only)
}

func (r *runner) run(directives []script.Directive) (status int) {
	ctx := context.Background()
	if r.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.cfg.timeout, fmt.Errorf("timed out after %s (--timeout)", r.cfg.timeout))
		defer cancel()
	}
	target := r.cfg.url
	if len(r.cfg.command) > 0 {
		target = strings.Join(r.cfg.command, " ")
	}
	var client *mcpclient.Client
	var err error
	if r.cfg.protocol != "" {
		client, err = r.connect(ctx, r.cfg.protocol)
	} else {
		client, err = r.connectNewest(ctx)
	}
	if err != nil {
		r.errorf("connect %s: %v", target, cause(ctx, err))
		return ExitFailure
	}
	defer func() {
		if err := client.Close(); err != nil {
			r.errorf("close: %v", err)
			status = ExitFailure
		}
		// A test client is strict: what a real client may trip over fails
		// the run even when mcptest itself could skip it.
		if n, first := client.ProtocolViolations(); n > 0 {
			r.errorf("the server broke the protocol %d time%s (first: %s); over stdio, stdout must carry only MCP messages: log to stderr", n, plural(n, "", "s"), first)
			status = ExitFailure
		}
	}()
	for _, d := range directives {
		switch d.Kind {
		case script.ElicitAccept, script.ElicitDecline, script.ElicitCancel, script.ElicitReply:
			r.mu.Lock()
			r.queue = append(r.queue, d)
			r.mu.Unlock()
		case script.SampleReply:
			r.mu.Lock()
			r.samples = append(r.samples, d)
			r.mu.Unlock()
		case script.RootsReply:
			r.mu.Lock()
			r.roots = append(r.roots, d)
			r.mu.Unlock()
		case script.Wait:
			if err := mcpclient.Sleep(ctx, d.Wait); err != nil {
				r.errorf("%s:%d: %v", scriptName, d.Line, err)
				return ExitFailure
			}
		case script.ListTools:
			tools, err := client.ListTools(ctx)
			if err != nil {
				r.errorf("%s:%d: tools: %v", scriptName, d.Line, cause(ctx, err))
				return ExitFailure
			}
			for _, t := range tools {
				r.stdout.printf("%s\t%s\t%s\n", t.Name, oneLine(t.Description), compactJSON(t.InputSchema))
			}
		case script.Call, script.TaskGet, script.TaskWait, script.TaskCancel:
			ok, fatal := r.call(ctx, client, d)
			if !ok {
				status = ExitFailure
			}
			if fatal {
				return ExitFailure
			}
		}
	}
	r.mu.Lock()
	if n := len(r.queue); n > 0 {
		r.errorf("note: %d queued elicitation repl%s never used (first at %s:%d)", n, plural(n, "y", "ies"), scriptName, r.queue[0].Line)
	}
	for _, q := range [][]script.Directive{r.samples, r.roots} {
		if n := len(q); n > 0 {
			r.errorf("note: %d queued %s line%s never used (first at %s:%d)", n, strings.Fields(q[0].String())[0], plural(n, "", "s"), scriptName, q[0].Line)
		}
	}
	r.mu.Unlock()
	return status
}

// call runs one @TOOL or task-* directive. ok is false when it failed;
// fatal when the run cannot go on (transport failure, timeout). A
// JSON-RPC error or an isError result only fails this directive.
func (r *runner) call(ctx context.Context, client *mcpclient.Client, d script.Directive) (ok, fatal bool) {
	where := fmt.Sprintf("%s:%d: %s", scriptName, d.Line, d)
	if d.Kind == script.Call {
		where = fmt.Sprintf("%s:%d: @%s", scriptName, d.Line, d.Tool)
	}
	res, err := r.do(ctx, client, d)
	if err != nil {
		r.errorf("%s: %v", where, cause(ctx, err))
		var rpcErr *mcpclient.RPCError
		return false, ctx.Err() != nil || !(errors.As(err, &rpcErr) || errors.Is(err, errNoTask))
	}
	if res == nil {
		return true, false
	}
	if res.IsError {
		lines := res.Lines()
		if len(lines) == 0 {
			lines = []string{"tool reported an error with no content"}
		}
		for _, l := range lines {
			r.errorf("%s: %s", where, l)
		}
		return false, false
	}
	for _, l := range res.Lines() {
		r.stdout.printf("%s\n", l)
	}
	return true, false
}

// errNoTask fails a task-* line that has no task to act on.
var errNoTask = errors.New("no task: an @TOOL line of a tool that runs as a task comes first, with --tasks on protocol " + mcpclient.Version20260728)

// do sends what directive d asks and returns the tool result to print
// (nil: nothing to print, or printed already). A task handle becomes the
// current task and prints "task ID STATUS"; so do task-get and a
// task-wait that ends cancelled; a task-wait that ends failed returns the
// task's JSON-RPC error.
func (r *runner) do(ctx context.Context, client *mcpclient.Client, d script.Directive) (*mcpclient.CallToolResult, error) {
	if d.Kind == script.Call {
		res, err := client.CallTool(ctx, d.Tool, d.JSON)
		if task := mcpclient.TaskOf(res); err == nil && task != nil {
			r.task = task.TaskID
			r.printTask(task)
			return nil, nil
		}
		return res, err
	}
	if r.task == "" {
		return nil, errNoTask
	}
	var (
		task *mcpclient.Task
		err  error
	)
	switch d.Kind {
	case script.TaskCancel:
		return nil, client.CancelTask(ctx, r.task)
	case script.TaskGet:
		task, err = client.GetTask(ctx, r.task)
	default:
		task, err = client.AwaitTask(ctx, r.task)
	}
	switch {
	case err != nil:
		return nil, err
	case task.Status == mcpclient.TaskCompleted && d.Kind == script.TaskWait:
		return task.CallToolResult()
	case task.Status == mcpclient.TaskFailed && task.Error != nil && d.Kind == script.TaskWait:
		return nil, task.Error
	}
	r.printTask(task)
	return nil, nil
}

// printTask prints "task ID STATUS", and its status message if any; an
// input_required task's requests follow, one a line, as "\tKEY METHOD
// MESSAGE" in key order.
func (r *runner) printTask(t *mcpclient.Task) {
	if t.StatusMessage != "" {
		r.stdout.printf("task %s %s: %s\n", t.TaskID, t.Status, oneLine(t.StatusMessage))
	} else {
		r.stdout.printf("task %s %s\n", t.TaskID, t.Status)
	}
	var reqs map[string]struct {
		Method string
		Params struct{ Message string }
	}
	_ = json.Unmarshal(t.InputRequests, &reqs) // what does not decode is not shown
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		line := k + " " + reqs[k].Method
		if m := reqs[k].Params.Message; m != "" {
			line += " " + strconv.Quote(oneLine(m))
		}
		r.stdout.printf("\t%s\n", line)
	}
}

// elicit answers an elicitation from the queue; an empty queue answers
// cancel so a short script never leaves a server waiting.
func (r *runner) elicit(_ context.Context, p mcpclient.ElicitParams) (mcpclient.ElicitResult, error) {
	url := p.EffectiveMode() == mcpclient.ModeURL
	if url {
		r.stdout.printf("elicitation url: %s\n", p.URL)
	}
	r.mu.Lock()
	var (
		d      script.Directive
		queued = len(r.queue) > 0
	)
	if queued {
		d, r.queue = r.queue[0], r.queue[1:]
	}
	r.mu.Unlock()
	if !queued {
		r.errorf("note: elicitation %q arrived with no queued reply; answering cancel", p.Message)
		return mcpclient.ElicitResult{Action: mcpclient.ActionCancel}, nil
	}
	switch d.Kind {
	case script.ElicitDecline:
		return mcpclient.ElicitResult{Action: mcpclient.ActionDecline}, nil
	case script.ElicitCancel:
		return mcpclient.ElicitResult{Action: mcpclient.ActionCancel}, nil
	case script.ElicitReply:
		return mcpclient.ElicitResult{Action: d.Action, Content: d.JSON}, nil
	}
	res := mcpclient.ElicitResult{Action: mcpclient.ActionAccept, Content: d.JSON}
	if url && d.JSON != nil {
		r.errorf("note: %s:%d: content dropped, a url-mode accept carries none", scriptName, d.Line)
		res.Content = nil
	}
	return res, nil
}

// request answers sampling/createMessage from the sample-reply queue and
// roots/list from the roots-reply queue, each reply verbatim; an empty
// queue answers with error -1, as a client whose user refused.
func (r *runner) request(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	r.mu.Lock()
	q, key := &r.samples, "sample-reply"
	if method == mcpclient.MethodListRoots {
		q, key = &r.roots, "roots-reply"
	}
	var d script.Directive
	queued := len(*q) > 0
	if queued {
		d, *q = (*q)[0], (*q)[1:]
	}
	r.mu.Unlock()
	if !queued {
		r.errorf("note: %s arrived with no queued %s; answering error -1", method, key)
		return nil, &mcpclient.RPCError{Code: -1, Message: "mcptest: no queued " + key}
	}
	return d.JSON, nil
}

func (r *runner) errorf(format string, args ...any) {
	r.stderr.printf(name+": "+format+"\n", args...)
}

// cause prefers the reason the run's context ended (the --timeout message)
// over the error a call saw because of it.
func cause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lockedWriter serializes writes from the main loop, elicitation handlers
// and the trace, so lines never interleave mid-line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(l, format, args...) // like log: output errors are not reported
}

// splitCommand splits a --stdio command line into words the way a POSIX
// shell does for a simple command, without running one: white space
// separates words; '...' keeps everything literally; "..." keeps
// everything but a backslash before ", \, $ or `; a backslash outside
// quotes keeps the next character. Nothing is expanded ($VAR, ~, globs).
func splitCommand(line string) ([]string, error) {
	var (
		words []string
		word  strings.Builder
		in    bool // a word has started (it may be empty: '')
	)
	for i := 0; i < len(line); i++ {
		switch ch := line[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, word.String())
				word.Reset()
				in = false
			}
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", line)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			in = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unterminated \" in %q", line)
			}
			in = true
		case ch == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("trailing backslash in %q", line)
			}
			i++
			word.WriteByte(line[i])
			in = true
		default:
			word.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, word.String())
	}
	return words, nil
}

// isModeList reports whether s is a list of elicitation modes, as --elicit=
// takes: "form", "url", "form,url".
func isModeList(s string) bool {
	for m := range strings.SplitSeq(s, ",") {
		if m != "form" && m != "url" {
			return false
		}
	}
	return true
}

// oneLine folds white space runs (newlines included) into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// compactJSON prints raw without insignificant space ({} when empty).
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil {
		return "{}"
	}
	return b.String()
}
