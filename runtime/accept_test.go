package runtime

import "testing"

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header    []string
		json, sse bool
	}{
		{nil, true, true},
		{[]string{"application/json, text/event-stream"}, true, true},
		{[]string{"application/json"}, true, false},
		{[]string{"text/event-stream"}, false, true},
		{[]string{"application/json", "text/event-stream"}, true, true},
		{[]string{"*/*"}, true, true},
		{[]string{"application/*;q=0.5, text/*"}, true, true},
		{[]string{"Application/JSON ; charset=utf-8"}, true, false},
		{[]string{"application/json, text/event-stream;q=0"}, true, false},
		{[]string{"application/json;q=0.0, text/event-stream; q=1"}, false, true},
		{[]string{"text/html"}, false, false},
		{[]string{""}, false, false},
		{[]string{",,;,"}, false, false},
	} {
		j, s := accepts(tc.header)
		if j != tc.json || s != tc.sse {
			t.Errorf("accepts(%q) = %v, %v; want %v, %v", tc.header, j, s, tc.json, tc.sse)
		}
	}
}
