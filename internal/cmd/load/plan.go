package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// era is the protocol era a call runs in.
type era uint8

const (
	eraLegacy era = iota // initialize + sessions; elicitation/create on the call's SSE stream
	eraModern            // 2026-07-28: input_required, then a retry
	numEras
)

func (e era) String() string {
	if e == eraModern {
		return "modern"
	}
	return "legacy"
}

// parseEras reads the -era flag.
func parseEras(s string) ([]era, error) {
	switch s {
	case "both":
		return []era{eraLegacy, eraModern}, nil
	case "legacy":
		return []era{eraLegacy}, nil
	case "modern":
		return []era{eraModern}, nil
	}
	return nil, fmt.Errorf("unknown era %q: want legacy, modern or both", s)
}

// outcome is what happens to one elicitation. The first six are what a
// client can do; the server also sees input_required (the first run of a
// 2026-07-28 call) and, when the runtime misbehaves, something unexpected.
type outcome uint8

const (
	outcomeNone       outcome = iota // not recorded
	outcomeAccept                    // valid content
	outcomeDecline                   // action "decline"
	outcomeCancel                    // action "cancel"
	outcomeBadContent                // action "accept" with content that breaks the form
	outcomeMalformed                 // not a valid elicitation result
	outcomeDisconnect                // legacy: stream closed before answering; modern: retry dropped
	outcomeInputRequired
	outcomeUnexpected
	numOutcomes
)

// clientOutcomes are the outcomes a plan draws from, in report order.
var clientOutcomes = []outcome{outcomeAccept, outcomeDecline, outcomeCancel, outcomeBadContent, outcomeMalformed, outcomeDisconnect}

var outcomeNames = [numOutcomes]string{
	outcomeNone:          "none",
	outcomeAccept:        "accept",
	outcomeDecline:       "decline",
	outcomeCancel:        "cancel",
	outcomeBadContent:    "bad-content",
	outcomeMalformed:     "malformed",
	outcomeDisconnect:    "disconnect",
	outcomeInputRequired: "input-required",
	outcomeUnexpected:    "unexpected",
}

func (o outcome) String() string {
	if o < numOutcomes {
		return outcomeNames[o]
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

func parseOutcome(s string) (outcome, bool) {
	for _, o := range clientOutcomes {
		if outcomeNames[o] == s {
			return o, true
		}
	}
	return outcomeNone, false
}

// mix is the relative weight of each client outcome.
type mix [numOutcomes]int

// defaultMix favours the happy path but gives every failure a real share.
var defaultMix = mix{outcomeAccept: 40, outcomeDecline: 12, outcomeCancel: 12, outcomeBadContent: 12, outcomeMalformed: 12, outcomeDisconnect: 12}

// parseMix reads "accept=40,decline=12,...": outcomes left out weigh 0.
func parseMix(s string) (mix, error) {
	var m mix
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return m, fmt.Errorf("mix entry %q: want outcome=weight", part)
		}
		o, known := parseOutcome(name)
		if !known {
			return m, fmt.Errorf("mix entry %q: unknown outcome %q (want %s)", part, name, strings.Join(outcomeList(), ", "))
		}
		n, err := strconv.Atoi(w)
		if err != nil || n < 0 || n > 1000000 {
			return m, fmt.Errorf("mix entry %q: weight must be an integer from 0 to 1000000", part)
		}
		if m[o] != 0 {
			return m, fmt.Errorf("mix entry %q: %s given twice", part, name)
		}
		m[o] = n
		total += n
	}
	if total == 0 {
		return m, errors.New("mix: every weight is 0")
	}
	return m, nil
}

func outcomeList() []string {
	names := make([]string, len(clientOutcomes))
	for i, o := range clientOutcomes {
		names[i] = o.String()
	}
	return names
}

func (m mix) String() string {
	parts := make([]string, 0, len(clientOutcomes))
	for _, o := range clientOutcomes {
		parts = append(parts, o.String()+"="+strconv.Itoa(m[o]))
	}
	return strings.Join(parts, ",")
}

// draw picks an outcome with probability weight/total.
func (m mix) draw(r *rand.Rand) outcome {
	total := 0
	for _, o := range clientOutcomes {
		total += m[o]
	}
	n := r.IntN(total)
	for _, o := range clientOutcomes {
		if n < m[o] {
			return o
		}
		n -= m[o]
	}
	return outcomeAccept // unreachable: n < total
}

// Ways an answer breaks the form (outcomeBadContent), each with the one
// property the server must name.
var badContents = []struct {
	property string
	content  string
}{
	{"name", `{"name":"","seats":2,"class":"economy","window":true}`},                                         // minLength
	{"name", `{"name":"` + strings.Repeat("x", 41) + `","seats":2,"class":"economy","window":true}`},          // maxLength
	{"name", `{"seats":2,"class":"economy","window":false}`},                                                  // required
	{"name", `{"name":7,"seats":2,"class":"economy","window":false}`},                                         // type
	{"seats", `{"name":"ada","seats":0,"class":"business","window":true}`},                                    // minimum
	{"seats", `{"name":"ada","seats":10,"class":"business","window":true}`},                                   // maximum
	{"seats", `{"name":"ada","seats":2.5,"class":"business","window":true}`},                                  // integer
	{"seats", `{"name":"ada","seats":"two","class":"business","window":true}`},                                // type
	{"class", `{"name":"ada","seats":1,"class":"first","window":true}`},                                       // enum
	{"window", `{"name":"ada","seats":1,"class":"economy","window":"yes"}`},                                   // type
	{"class", `{"name":"ada","seats":1,"window":true}`},                                                       // required
	{"extra", `{"name":"ada","seats":1,"class":"economy","window":true,"extra":1}`},                           // unknown property
	{"name", `{"name":"` + strings.Repeat("é", 41) + `","seats":3,"class":"economy","window":true}`},          // maxLength, in multi-byte characters
	{"seats", `{"name":"ada","seats":99999999999999999999999,"class":"economy","window":true}`},               // out of int64
	{"class", `{"name":"ada","seats":1,"class":"Economy","window":false}`},                                    // enum is case-sensitive
	{"seats", `{"name":"ada","seats":null,"class":"economy","window":false}`},                                 // null for a required property
	{"name", `{"name":["ada"],"seats":1,"class":"economy","window":false}`},                                   // array
	{"seats", `{"name":"ada","seats":{"n":1},"class":"economy","window":false}`},                              // object
	{"class", `{"name":"ada","seats":1,"class":"","window":false}`},                                           // empty enum value
	{"name", `{"name":"a\u0000b` + strings.Repeat("c", 39) + `","seats":1,"class":"economy","window":false}`}, // long with an escape
}

// Answers that are not a valid elicitation result (outcomeMalformed).
var malformedResults = []string{
	`{"action":"bogus"}`,
	`{}`,
	`{"action":""}`,
	`{"action":"ACCEPT"}`,
	`{"action":"accept","content":"yes"}`,
	`{"action":"accept","content":[1,2]}`,
	`{"action":7}`,
}

var names = []string{"ada", "grace", "linus", "rob", "ken", "barbara", "edsger", "frances", "tony", "niklaus", "zoë", "ümit"}

// callPlan is what the client will do with one call, drawn before the run
// so the run is reproducible from its seed whatever the scheduling.
type callPlan struct {
	era     era
	outcome outcome
	kind    uint8 // index into badContents or malformedResults
	name    uint8 // index into names
	seats   uint8 // 1..9
	class   uint8 // 0 economy, 1 business
	window  bool
}

// answer is the elicitation result the client sends (not for disconnects).
func (p *callPlan) answer(call int) string {
	switch p.outcome {
	case outcomeAccept:
		return `{"action":"accept","content":` + p.content(call) + `}`
	case outcomeDecline:
		return `{"action":"decline"}`
	case outcomeCancel:
		return `{"action":"cancel"}`
	case outcomeBadContent:
		return `{"action":"accept","content":` + badContents[p.kind].content + `}`
	case outcomeMalformed:
		return malformedResults[p.kind]
	}
	return ""
}

// content is the valid content of an accepted answer; the name carries the
// call number so a result routed to the wrong call cannot match.
func (p *callPlan) content(call int) string {
	f := p.accepted(call)
	name, _ := json.Marshal(f.Name) // a string always marshals
	return fmt.Sprintf(`{"name":%s,"seats":%d,"class":"%s","window":%t}`, name, f.Seats, f.Class, f.Window)
}

// accepted is the form the server decodes from content.
func (p *callPlan) accepted(call int) BookingForm {
	class := Economy
	if p.class == 1 {
		class = Business
	}
	return BookingForm{Name: names[p.name] + "-" + strconv.Itoa(call), Seats: int64(p.seats), Class: class, Window: p.window}
}

// callRecord is what happened to one call, written by the server's handler
// (atomics) and by the one client worker that made the call.
type callRecord struct {
	// Server side.
	runs     atomic.Int32    // handler runs for this call (2 for a modern retry)
	outcomes [2]atomic.Int32 // outcome seen by run 1 and run 2
	rounds   [2]atomic.Int32 // CallToolRequest.Round of run 1 and 2, plus 1 (0 = not run)

	// Client side.
	results   [2]int8 // terminal responses read: [0] the call (modern: its first POST), [1] the retry
	received  outcome // outcome named by the terminal result
	detailOK  bool    // the result's detail matched what was sent
	elicited  bool    // the elicitation request arrived and matched the form
	latency   time.Duration
	clientErr bool // the worker reported a violation for this call
}

// plan holds every call of a run, indexed by call number: era, then
// session, then worker, then round.
type plan struct {
	cfg     Config
	calls   []callPlan
	records []callRecord
}

func newPlan(cfg Config) *plan {
	n := int(numEras) * cfg.Sessions * cfg.Concurrency * cfg.totalRounds()
	p := &plan{cfg: cfg, calls: make([]callPlan, n), records: make([]callRecord, n)}
	for e := range numEras {
		for s := range cfg.Sessions {
			for w := range cfg.Concurrency {
				// One stream per worker: the same seed gives the same calls
				// whatever the other workers do.
				r := rand.New(rand.NewPCG(cfg.Seed, uint64(e)<<48|uint64(s)<<24|uint64(w)))
				for round := range cfg.totalRounds() {
					c := &p.calls[p.index(e, s, w, round)]
					c.era = e
					c.outcome = cfg.Mix.draw(r)
					c.name = uint8(r.IntN(len(names)))
					c.seats = uint8(1 + r.IntN(9))
					c.class = uint8(r.IntN(2))
					c.window = r.IntN(2) == 1
					switch c.outcome {
					case outcomeBadContent:
						c.kind = uint8(r.IntN(len(badContents)))
					case outcomeMalformed:
						c.kind = uint8(r.IntN(len(malformedResults)))
					}
				}
			}
		}
	}
	return p
}

func (p *plan) index(e era, session, worker, round int) int {
	return ((int(e)*p.cfg.Sessions+session)*p.cfg.Concurrency+worker)*p.cfg.totalRounds() + round
}
