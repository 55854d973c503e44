package mcpclient

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func readAll(t *testing.T, r io.Reader, max int) ([]Event, error) {
	t.Helper()
	sr := NewEventReader(r, max)
	var evs []Event
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEParsing(t *testing.T) {
	src := "\uFEFF: keep-alive\n" +
		"id: 1\nevent: message\ndata: {\"a\":1}\n\n" +
		"data:first\ndata: second\r\n\r\n" + // no space after colon; CRLF
		"id\nretry: 250\rdata: x\r\r" + // bare CR line ends; empty id resets
		"retry: nope\nid: a\x00b\ndata\n\n" + // bad retry and NUL id ignored; "data" alone is an empty line of data
		"event: other\ndata: y\n\n" +
		"\n\n" + // blank lines alone dispatch nothing
		"data: cut off at the end"
	evs, err := readAll(t, strings.NewReader(src), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{ID: "1", HasID: true, Name: "message", Data: `{"a":1}`},
		{Data: "first\nsecond"},
		{ID: "", HasID: true, Retry: 250 * time.Millisecond, HasRetry: true, Data: "x"},
		{Data: ""},
		{Name: "other", Data: "y"},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(evs), evs, len(want))
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d: got %+v, want %+v", i, evs[i], want[i])
		}
	}
}

// TestSSEByteByByte feeds one byte per read, so every line ending falls on
// a read boundary (a CR then LF in the next read must not make two lines).
func TestSSEByteByByte(t *testing.T) {
	src := "data: a\r\n\r\ndata: b\r\rdata: c\n\n"
	evs, err := readAll(t, iotest.OneByteReader(strings.NewReader(src)), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Data != "a" || evs[1].Data != "b" || evs[2].Data != "c" {
		t.Fatalf("got %+v", evs)
	}
}

func TestSSELimit(t *testing.T) {
	src := "data: " + strings.Repeat("x", 100) + "\n\n"
	if _, err := readAll(t, strings.NewReader(src), 50); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("long line: got %v", err)
	}
	src = strings.Repeat("data: 0123456789\n", 20) + "\n"
	if _, err := readAll(t, strings.NewReader(src), 100); !errors.Is(err, errEventTooLarge) {
		t.Fatalf("many lines: got %v", err)
	}
}

func FuzzSSE(f *testing.F) {
	f.Add("id: 1\nevent: message\ndata: {}\n\n")
	f.Add("data: a\r\ndata: b\r\r\n:c\nretry: 10\n\n")
	f.Add("\uFEFFdata\n\nid: \x00\n\n")
	f.Fuzz(func(t *testing.T, src string) {
		evs, err := readAll(t, strings.NewReader(src), 1<<12)
		if err != nil && !errors.Is(err, errEventTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		for _, ev := range evs {
			if strings.ContainsAny(ev.ID, "\x00\r\n") || strings.ContainsAny(ev.Name, "\r\n") || strings.Contains(ev.Data, "\r") {
				t.Fatalf("line break or NUL leaked into %+v", ev)
			}
		}
	})
}

func TestDecodeMessages(t *testing.T) {
	msgs, err := decodeMessages([]byte(` [{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"ping"},{"jsonrpc":"2.0","id":3,"result":{}}]`))
	if err != nil || len(msgs) != 3 || !msgs[0].isNotification() || !msgs[1].isRequest() || msgs[2].isRequest() {
		t.Fatalf("got %+v, %v", msgs, err)
	}
	for _, bad := range []string{"", "x", "[null]", `{"id":`} {
		if _, err := decodeMessages([]byte(bad)); !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func TestElicitationCapabilityJSON(t *testing.T) {
	cases := []struct {
		c    ElicitationCapability
		json string
		form bool
		url  bool
	}{
		{ElicitationCapability{}, `{}`, true, false},
		{ElicitationCapability{Form: true}, `{"form":{}}`, true, false},
		{ElicitationCapability{URL: true}, `{"url":{}}`, false, true},
		{ElicitationCapability{Form: true, URL: true}, `{"form":{},"url":{}}`, true, true},
	}
	for _, tc := range cases {
		b, _ := tc.c.MarshalJSON()
		if string(b) != tc.json || tc.c.Supports("form") != tc.form || tc.c.Supports("") != tc.form || tc.c.Supports("url") != tc.url || tc.c.Supports("x") {
			t.Errorf("%+v: json %s form %v url %v", tc.c, b, tc.c.Supports("form"), tc.c.Supports("url"))
		}
	}
}

func TestEventReaderEdges(t *testing.T) {
	var zero EventReader
	if _, err := zero.Next(); err == nil || !strings.Contains(err.Error(), "NewEventReader") {
		t.Errorf("zero EventReader: %v, want an error naming NewEventReader", err)
	}
	// maxEvent <= 0 takes the default bound, not a zero one.
	r := NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 100<<10)+"\n\n"), 0)
	ev, err := r.Next()
	if err != nil || len(ev.Data) != 100<<10 {
		t.Fatalf("default bound: %d bytes, %v", len(ev.Data), err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last event: %v, want io.EOF", err)
	}
}
