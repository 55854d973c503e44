package script

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestParse(t *testing.T) {
	src := `# seed example
elicit-accept {"command": "show bgp peer list"}
@ze_execute {"command":""}

  elicit-decline
elicit-cancel
elicit-accept
@list
@greet{"a":[1, 2]}
	wait 1.5s
@tab	{"x":1}
elicit-reply maybe {"k": 2}
elicit-reply accept
elicit-reply accept [ ]
elicit-reply accept "x"
elicit-reply accept null
tools
sample-reply {"role":"assistant", "content":{"type":"text","text":"hi"},"model":"m"}
roots-reply {"roots":[]}
`
	ds, err := Parse("stdin", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Directive{
		{Line: 2, Kind: ElicitAccept, JSON: []byte(`{"command":"show bgp peer list"}`)},
		{Line: 3, Kind: Call, Tool: "ze_execute", JSON: []byte(`{"command":""}`)},
		{Line: 5, Kind: ElicitDecline},
		{Line: 6, Kind: ElicitCancel},
		{Line: 7, Kind: ElicitAccept},
		{Line: 8, Kind: Call, Tool: "list"},
		{Line: 9, Kind: Call, Tool: "greet", JSON: []byte(`{"a":[1,2]}`)},
		{Line: 10, Kind: Wait, Wait: 1500 * time.Millisecond},
		{Line: 11, Kind: Call, Tool: "tab", JSON: []byte(`{"x":1}`)},
		{Line: 12, Kind: ElicitReply, Action: "maybe", JSON: []byte(`{"k":2}`)},
		{Line: 13, Kind: ElicitReply, Action: "accept"},
		{Line: 14, Kind: ElicitReply, Action: "accept", JSON: []byte(`[]`)},
		{Line: 15, Kind: ElicitReply, Action: "accept", JSON: []byte(`"x"`)},
		{Line: 16, Kind: ElicitReply, Action: "accept", JSON: []byte(`null`)},
		{Line: 17, Kind: ListTools},
		{Line: 18, Kind: SampleReply, JSON: []byte(`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`)},
		{Line: 19, Kind: RootsReply, JSON: []byte(`{"roots":[]}`)},
	}
	if len(ds) != len(want) {
		t.Fatalf("got %d directives, want %d: %+v", len(ds), len(want), ds)
	}
	for i := range want {
		if !same(ds[i], want[i]) || ds[i].Line != want[i].Line {
			t.Errorf("directive %d: got %+v, want %+v", i, ds[i], want[i])
		}
	}
}

func TestParseCRLF(t *testing.T) {
	ds, err := Parse("stdin", strings.NewReader("elicit-cancel\r\n@x {}\r\n"))
	if err != nil || len(ds) != 2 || ds[1].Tool != "x" {
		t.Fatalf("got %+v, %v", ds, err)
	}
}

func TestParseErrors(t *testing.T) {
	src := `@ok
foo bar
elicit-accept [1]
elicit-decline now
@greet {"a":
wait
wait soon
wait -1s
@
@x {} {}
elicit-accept "s"
@x {"a":1} trailing
tools all
sample-reply
roots-reply [1]
task-wait 5s
`
	_, err := Parse("stdin", strings.NewReader(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want an ErrorList", err)
	}
	want := []string{
		`stdin:2: unknown directive "foo"`,
		`stdin:3: elicit-accept content: want a JSON object, got [1]`,
		`stdin:4: elicit-decline takes no argument, got "now"`,
		`stdin:5: @greet arguments: invalid JSON: unexpected EOF`,
		`stdin:6: wait needs a duration, e.g. wait 500ms`,
		`stdin:7: wait: bad duration "soon"`,
		`stdin:8: wait: negative duration "-1s"`,
		`stdin:9: "@" needs a tool name`,
		`stdin:10: @x arguments: unexpected text after the JSON value`,
		`stdin:11: elicit-accept content: want a JSON object, got "s"`,
		`stdin:12: @x arguments: unexpected text after the JSON value`,
		`stdin:13: tools takes no argument, got "all"`,
		`stdin:14: sample-reply needs the result, e.g. sample-reply {"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`,
		`stdin:15: roots-reply result: want a JSON object, got [1]`,
		`stdin:16: task-wait takes no argument, got "5s"`,
	}
	if len(list) != len(want) {
		t.Fatalf("got %d errors:\n%v", len(list), err)
	}
	for i, w := range want {
		if list[i].Error() != w {
			t.Errorf("error %d:\n got %s\nwant %s", i, list[i], w)
		}
	}
}

func TestParseLongLine(t *testing.T) {
	src := "@a\n@b " + strings.Repeat("x", MaxLineBytes+1) + "\n"
	_, err := Parse("stdin", strings.NewReader(src))
	if err == nil || !strings.Contains(err.Error(), "stdin:2: line longer than") {
		t.Fatalf("got %v", err)
	}
}

func TestParseReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Parse("stdin", iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

func TestFormatRoundTrip(t *testing.T) {
	src := "elicit-accept {\"a\": 1}\nelicit-accept\nelicit-decline\nelicit-cancel\n@t\n@t {\"b\":\"c d\"}\nwait 1h2m3.000000004s\nwait 0s\ntools\nroots-reply {\"roots\": []}\ntask-get\ntask-wait\ntask-cancel\n"
	ds, err := Parse("stdin", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "elicit-accept {\"a\":1}\nelicit-accept\nelicit-decline\nelicit-cancel\n@t\n@t {\"b\":\"c d\"}\nwait 1h2m3.000000004s\nwait 0s\ntools\nroots-reply {\"roots\":[]}\ntask-get\ntask-wait\ntask-cancel\n"
	if got := Format(ds); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
}

func same(a, b Directive) bool {
	return a.Kind == b.Kind && a.Tool == b.Tool && bytes.Equal(a.JSON, b.JSON) && a.Wait == b.Wait && a.Action == b.Action
}

// FuzzParseScript checks Parse never panics and that what it accepts
// prints back (Format) to a script that parses to the same directives.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"elicit-accept {\"command\":\"show bgp peer list\"}\n@ze_execute {\"command\":\"\"}\n",
		"elicit-reply maybe {\"a\":1}\nelicit-reply accept\n",
		"elicit-decline\nelicit-cancel\n# c\n\nwait 10ms\n",
		"@t{\"a\":[1,{\"b\":null}]}\n@u \t {}\r\n",
		"foo\n@\nwait -1s\nelicit-accept [1]\n",
		"elicit-accept {\"s\":\"\\u00e9\\n\"}\n@\u00e9 {}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ds, err := Parse("fuzz", strings.NewReader(src))
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			return
		}
		text := Format(ds)
		again, err := Parse("fuzz", strings.NewReader(text))
		if err != nil {
			t.Fatalf("formatted script does not parse: %v\n%s", err, text)
		}
		if len(again) != len(ds) {
			t.Fatalf("round trip changed the count %d -> %d\n%s", len(ds), len(again), text)
		}
		for i := range ds {
			if !same(ds[i], again[i]) {
				t.Fatalf("round trip changed directive %d: %+v -> %+v", i, ds[i], again[i])
			}
		}
	})
}
