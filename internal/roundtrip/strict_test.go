package roundtrip

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

type strictInner struct {
	Code int `json:"code"`
}

type strictEmbedded struct {
	Kind string `json:"kind"`
}

type strictOuter struct {
	strictEmbedded
	Name    string                     `json:"name"`
	Skip    string                     `json:"-"`
	Plain   int                        // no tag: the field name
	Inner   *strictInner               `json:"inner"`
	Meta    map[string]json.RawMessage `json:"_meta"`
	Answers map[string]strictInner     `json:"answers"`
	Raw     json.RawMessage            `json:"raw"`
}

func TestStrictUnmarshal(t *testing.T) {
	many := make([]string, 20)
	for i := range many {
		many[i] = `"k` + strings.Repeat("x", i) + `":1`
	}
	deep := strings.Repeat(`[`, 600) + strings.Repeat(`]`, 600)
	for _, tc := range []struct{ in, err string }{
		{`{"name":"a","kind":"k","Plain":1,"inner":{"code":1},"_meta":{"a":1,"A":2},"answers":{"x":{"code":1}},"raw":{"Name":1,"Name":2}}`, ""},
		{`{"\u006eame":"escaped is the same name"}`, ""},
		{`{"other":1,"other":2,"Other":3}`, ""}, // not read: ignored
		{`{"Name":"a"}`, `member "Name" is not "name": member names are case-sensitive`},
		{`{"KIND":"a"}`, `member "KIND" is not "kind"`},
		{`{"plain":1}`, `member "plain" is not "Plain"`},
		{`{"nam` + "\u212a" + `":1}`, ""}, // K (Kelvin) folds to k, not to e
		{`{"` + "\u212a" + `ind":1}`, `member "` + "\u212a" + `ind" is not "kind"`},
		{`{"name":"a","name":"b"}`, `member "name" appears more than once: send each member once`},
		{`{"name":"a","\u006eame":"b"}`, `member "name" appears more than once`},
		{`{"inner":{"code":1,"Code":2}}`, `member "Code" in inner is not "code"`},
		{`{"_meta":{"a":1,"a":2}}`, `member "a" appears more than once in _meta`},
		{`{"answers":{"x":{"code":1,"code":2}}}`, `member "code" appears more than once in answers.x`},
		{`{"_meta":{` + strings.Join(many, ",") + `,"k":1}}`, `member "k" appears more than once in _meta`},
		{`{"raw":` + deep + `,"name":"a","name":"b"}`, `member "name" appears more than once`},
		{`{"name":1}`, `json: cannot unmarshal number into Go struct field strictOuter.name of type string`},
		{`{"name":"a","name":"b"`, `unexpected end of JSON input`},
	} {
		var v strictOuter
		err := StrictUnmarshal([]byte(tc.in), &v)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.in, err, tc.err)
		}
		var me *MemberError
		if errors.As(err, &me) != strings.HasPrefix(tc.err, "member") {
			t.Errorf("%s: %T is a MemberError: %v", tc.in, err, !strings.HasPrefix(tc.err, "member"))
		}
	}
}

type strictTree struct {
	Name     string                 `json:"name"`
	Children []*strictTree          `json:"children"`
	Next     *strictTree            `json:"next"`
	ByName   map[string]*strictTree `json:"byName"`
}

// A recursive type has a shape, and shapes are built safely by requests
// racing to be the first (go test -race).
func TestStrictUnmarshalRecursiveAndConcurrent(t *testing.T) {
	in := []byte(`{"name":"a","next":{"name":"b","next":{"Name":"c"}}}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var v strictTree
			if err := StrictUnmarshal(in, &v); err == nil || err.Error() != `member "Name" in next.next is not "name": member names are case-sensitive` {
				t.Errorf("got %v", err)
			}
		})
	}
	wg.Wait()
	var v strictTree
	if err := StrictUnmarshal([]byte(`{"byName":{"x":{"name":"x","name":"y"}}}`), &v); err == nil || !strings.Contains(err.Error(), `in byName.x`) {
		t.Errorf("map of recursive values: %v", err)
	}
	if err := StrictUnmarshal([]byte(`{"children":[{"name":"x"},null,{"name":"y","NAME":"z"}]}`), &v); err == nil || !strings.Contains(err.Error(), `in children[2]`) {
		t.Errorf("slice of structs: %v", err)
	}
	var list []map[string]int
	if err := StrictUnmarshal([]byte(`[{"a":1},{"b":1,"b":2}]`), &list); err == nil || !strings.Contains(err.Error(), `member "b" appears more than once in [1]`) {
		t.Errorf("top-level slice: %v", err)
	}
}
