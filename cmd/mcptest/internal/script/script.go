// Package script parses mcptest's stdin directives.
//
// One directive per line; leading and trailing white space is ignored, as
// are blank lines and lines starting with '#':
//
//	elicit-accept [{json object}]   queue an accept (with form content, or none)
//	elicit-decline                  queue a decline
//	elicit-cancel                   queue a cancel
//	elicit-reply ACTION [json]      queue a reply with any action word and
//	                                any JSON content (an object, [], "x",
//	                                null...) or none, verbatim: for testing
//	                                how a server treats malformed answers
//	@TOOL [{json object}]           call TOOL with these arguments ({} if none)
//	wait DURATION                   pause (time.ParseDuration syntax, >= 0)
//	task-get                        tasks/get of the last task an @TOOL made
//	task-wait                       poll that task until it ends, answering
//	                                its input requests from the queues
//	task-cancel                     tasks/cancel of that task
//
// The tool name runs to the first white space or '{'. Parse reports every
// bad line, each as "NAME:LINE: message".
package script

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
)

// Kind says what a directive does.
type Kind int

// Directive kinds.
const (
	ElicitAccept Kind = iota + 1
	ElicitDecline
	ElicitCancel
	Call
	Wait
	ElicitReply
	ListTools
	SampleReply
	RootsReply
	TaskGet
	TaskWait
	TaskCancel
)

// Directive keywords.
const (
	keyAccept  = "elicit-accept"
	keyDecline = "elicit-decline"
	keyCancel  = "elicit-cancel"
	keyReply   = "elicit-reply"
	keyWait    = "wait"
	keyTools   = "tools"
	keySample  = "sample-reply"
	keyRoots   = "roots-reply"
	keyTaskGet = "task-get"
	keyAwait   = "task-wait"
	keyCancelT = "task-cancel"
	callPrefix = "@"
)

// MaxLineBytes bounds one script line.
const MaxLineBytes = 1 << 20

// Directive is one parsed line.
type Directive struct {
	Line int // 1-based line number in the script
	Kind Kind
	// Tool is the tool name of a Call.
	Tool string
	// JSON is the compacted object of an ElicitAccept (content), a Call
	// (arguments), a SampleReply or a RootsReply (the result); nil when the
	// line had none.
	JSON json.RawMessage
	// Wait is the pause of a Wait.
	Wait time.Duration
	// Action is the action word of an ElicitReply.
	Action string
}

// String formats d as a script line that parses back to d.
func (d Directive) String() string {
	var s string
	switch d.Kind {
	case ElicitAccept:
		s = keyAccept
	case ElicitDecline:
		return keyDecline
	case ElicitCancel:
		return keyCancel
	case Call:
		s = callPrefix + d.Tool
	case Wait:
		return keyWait + " " + d.Wait.String()
	case ElicitReply:
		s = keyReply + " " + d.Action
	case ListTools:
		return keyTools
	case TaskGet:
		return keyTaskGet
	case TaskWait:
		return keyAwait
	case TaskCancel:
		return keyCancelT
	case SampleReply:
		s = keySample
	case RootsReply:
		s = keyRoots
	default:
		return fmt.Sprintf("# unknown directive kind %d", d.Kind)
	}
	if d.JSON != nil {
		s += " " + string(d.JSON)
	}
	return s
}

// Format prints directives one per line.
func Format(ds []Directive) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Error is a problem on one line.
type Error struct {
	Name string // the script's name, e.g. "stdin"
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// ErrorList is every problem found, in line order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Parse reads a whole script. On bad lines it returns an ErrorList naming
// each; a read error is returned as is (wrapped).
func Parse(name string, r io.Reader) ([]Directive, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	var (
		ds   []Directive
		errs ErrorList
		line int
	)
	for sc.Scan() {
		line++
		d, msg := parseLine(sc.Text())
		if msg != "" {
			errs = append(errs, &Error{Name: name, Line: line, Msg: msg})
			continue
		}
		if d.Kind != 0 {
			d.Line = line
			ds = append(ds, d)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			errs = append(errs, &Error{Name: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxLineBytes)})
		} else {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return ds, nil
}

// parseLine parses one line; a zero Kind with no message is a blank or
// comment line.
func parseLine(text string) (Directive, string) {
	text = strings.TrimSpace(text)
	if text == "" || text[0] == '#' {
		return Directive{}, ""
	}
	if rest, ok := strings.CutPrefix(text, callPrefix); ok {
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '{' })
		if end < 0 {
			end = len(rest)
		}
		tool, args := rest[:end], strings.TrimSpace(rest[end:])
		if tool == "" {
			return Directive{}, `"@" needs a tool name`
		}
		if i := strings.IndexFunc(tool, func(r rune) bool { return !unicode.IsPrint(r) || r == unicode.ReplacementChar }); i >= 0 {
			return Directive{}, fmt.Sprintf("tool name %q has a non-printable character", tool)
		}
		obj, msg := object(args, "@"+tool+" arguments")
		if msg != "" {
			return Directive{}, msg
		}
		return Directive{Kind: Call, Tool: tool, JSON: obj}, ""
	}
	word, rest := text, ""
	if i := strings.IndexFunc(text, unicode.IsSpace); i >= 0 {
		word, rest = text[:i], strings.TrimSpace(text[i:])
	}
	switch word {
	case keyAccept:
		obj, msg := object(rest, keyAccept+" content")
		if msg != "" {
			return Directive{}, msg
		}
		return Directive{Kind: ElicitAccept, JSON: obj}, ""
	case keyDecline, keyCancel:
		if rest != "" {
			return Directive{}, fmt.Sprintf("%s takes no argument, got %q", word, rest)
		}
		if word == keyDecline {
			return Directive{Kind: ElicitDecline}, ""
		}
		return Directive{Kind: ElicitCancel}, ""
	case keyReply:
		action, content := rest, ""
		if i := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '{' }); i >= 0 {
			action, content = rest[:i], strings.TrimSpace(rest[i:])
		}
		if action == "" {
			return Directive{}, "elicit-reply needs an action word, e.g. elicit-reply maybe"
		}
		if i := strings.IndexFunc(action, func(r rune) bool { return !unicode.IsPrint(r) || r == '"' || r == '\\' }); i >= 0 {
			return Directive{}, fmt.Sprintf("elicit-reply: action %q has a character that cannot be sent as is", action)
		}
		raw, msg := jsonValue(content, keyReply+" content", false)
		if msg != "" {
			return Directive{}, msg
		}
		return Directive{Kind: ElicitReply, Action: action, JSON: raw}, ""
	case keySample, keyRoots:
		obj, msg := object(rest, word+" result")
		switch {
		case msg != "":
			return Directive{}, msg
		case obj == nil && word == keySample:
			return Directive{}, `sample-reply needs the result, e.g. sample-reply {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`
		case obj == nil:
			return Directive{}, `roots-reply needs the result, e.g. roots-reply {"roots":[{"uri":"file:///src"}]}`
		case word == keySample:
			return Directive{Kind: SampleReply, JSON: obj}, ""
		}
		return Directive{Kind: RootsReply, JSON: obj}, ""
	case keyTools, keyTaskGet, keyAwait, keyCancelT:
		if rest != "" {
			return Directive{}, fmt.Sprintf("%s takes no argument, got %q", word, rest)
		}
		return Directive{Kind: bare[word]}, ""
	case keyWait:
		if rest == "" {
			return Directive{}, "wait needs a duration, e.g. wait 500ms"
		}
		d, err := time.ParseDuration(rest)
		if err != nil {
			return Directive{}, fmt.Sprintf("wait: bad duration %q", rest)
		}
		if d < 0 {
			return Directive{}, fmt.Sprintf("wait: negative duration %q", rest)
		}
		return Directive{Kind: Wait, Wait: d}, ""
	}
	return Directive{}, fmt.Sprintf("unknown directive %q", word)
}

// bare are the kinds of the directives that take no argument.
var bare = map[string]Kind{keyTools: ListTools, keyTaskGet: TaskGet, keyAwait: TaskWait, keyCancelT: TaskCancel}

// object checks that s is empty or one JSON object and compacts it.
func object(s, what string) (json.RawMessage, string) { return jsonValue(s, what, true) }

// jsonValue checks that s is empty or one JSON value (an object when
// wantObject) and compacts it.
func jsonValue(s, what string, wantObject bool) (json.RawMessage, string) {
	if s == "" {
		return nil, ""
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Sprintf("%s: invalid JSON: %v", what, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Sprintf("%s: unexpected text after the JSON value", what)
	}
	if _, ok := v.(map[string]any); wantObject && !ok {
		return nil, fmt.Sprintf("%s: want a JSON object, got %s", what, s)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return nil, fmt.Sprintf("%s: invalid JSON: %v", what, err)
	}
	return b.Bytes(), ""
}
