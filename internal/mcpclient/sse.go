package mcpclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Event is one server-sent event, parsed as the WHATWG EventSource rules
// say (field names, a single optional space after the colon, multi-line
// data joined by "\n", ids with NUL ignored, retry only if all digits).
type Event struct {
	// ID is the event's id field; HasID says whether one appeared (an empty
	// id resets the last event id).
	ID    string
	HasID bool
	// Name is the event field; empty means "message".
	Name string
	Data string
	// Retry is the reconnection delay the server asked for, if HasRetry.
	Retry    time.Duration
	HasRetry bool
}

// errEventTooLarge is returned when one event exceeds the size limit.
var errEventTooLarge = errors.New("sse event too large")

// EventReader reads events from a text/event-stream body. It is the
// module's one SSE parser on the client side: the client reads its
// response streams with it, and so does the load driver, which speaks raw
// HTTP for the rest.
type EventReader struct {
	sc    *bufio.Scanner
	max   int
	first bool
}

// NewEventReader reads the events of r; an event (or one line) larger than
// maxEvent bytes is an error. maxEvent <= 0 means 16 MiB, the client's
// default for one message.
func NewEventReader(r io.Reader, maxEvent int) *EventReader {
	if maxEvent <= 0 {
		maxEvent = defaultMaxMessage
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxEvent)
	sc.Split(splitSSELines())
	return &EventReader{sc: sc, max: maxEvent, first: true}
}

// splitSSELines splits on "\n", "\r\n" or a lone "\r". A "\r" at the end of
// the data read so far ends the line at once (a server may pause right after
// it, waiting for us); a "\n" that then follows is skipped.
func splitSSELines() bufio.SplitFunc {
	skipLF := false
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if skipLF && len(data) > 0 {
			skipLF = false
			if data[0] == '\n' {
				return 1, nil, nil
			}
		}
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			if data[i] == '\r' {
				if i+1 < len(data) {
					if data[i+1] == '\n' {
						return i + 2, data[:i], nil
					}
				} else {
					skipLF = true
				}
			}
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	}
}

// Next returns the next dispatched event. An event cut off by the end of
// the stream is discarded, as the standard says. At the end it returns
// io.EOF.
func (r *EventReader) Next() (Event, error) {
	if r.sc == nil {
		return Event{}, errors.New("mcpclient: EventReader not made by NewEventReader")
	}
	var (
		ev     Event
		data   strings.Builder
		fields bool
		size   int
	)
	for r.sc.Scan() {
		line := r.sc.Text()
		if r.first {
			r.first = false
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		if line == "" {
			if !fields {
				continue
			}
			ev.Data = strings.TrimSuffix(data.String(), "\n")
			return ev, nil
		}
		if line[0] == ':' {
			continue // comment (keep-alive)
		}
		size += len(line)
		if size > r.max {
			return Event{}, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, r.max)
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "event":
			ev.Name, fields = value, true
		case "data":
			data.WriteString(value)
			data.WriteByte('\n')
			fields = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				ev.ID, ev.HasID, fields = value, true, true
			}
		case "retry":
			if n, err := strconv.ParseUint(value, 10, 31); err == nil && value != "" && value[0] != '+' {
				ev.Retry, ev.HasRetry, fields = time.Duration(n)*time.Millisecond, true, true
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Event{}, fmt.Errorf("%w: a line exceeds %d bytes", errEventTooLarge, r.max)
		}
		return Event{}, err
	}
	return Event{}, io.EOF
}
