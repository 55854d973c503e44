package runtime

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestBatch2025_03_26: only 2025-03-26 has JSON-RPC batches.
func TestBatch2025_03_26(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-03-26", `{"elicitation":{}}`)

	body := c.expect(c.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plain","arguments":{"a":1}}},{"jsonrpc":"1.0","id":3}]`), 200)
	var arr []map[string]any
	if err := json.Unmarshal([]byte(body), &arr); err != nil || len(arr) != 3 {
		t.Fatalf("want three responses in an array, got %s", body)
	}
	ids := map[any]bool{}
	for _, m := range arr {
		ids[m["id"]] = true
	}
	if !ids[1.0] || !ids[2.0] || !ids[3.0] {
		t.Errorf("responses %s", body)
	}

	c.expect(c.post(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`), 202)
	c.expect(c.post(`[]`), 400)
	c.expect(c.post(`[{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}]`), 200)

	// 2025-03-26 has no elicitation: the pre-checking handler falls back.
	body = c.expect(c.post(`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ask","arguments":{}}}]`), 200)
	if !strings.Contains(body, "missing required argument: username") {
		t.Errorf("ask in a batch: %s", body)
	}
	// A request that sends a notification first turns the batch's reply
	// into a stream that carries every response too.
	f.srv.AddTool(Tool{Name: "logs"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if err := req.Log("info", "t", "working"); err != nil {
			return nil, err
		}
		return TextResult("logged"), nil
	})
	resp := c.post(`[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"logs","arguments":{}}},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	s := openStream(t, resp)
	defer s.close()
	if ev := s.mustNext(); ev.msg["method"] != "notifications/message" {
		t.Fatalf("first event %s", ev.data)
	}
	got := map[string]string{}
	for range 2 {
		ev := s.mustNext()
		got[ev.msg["id"].(string)] = ev.data
	}
	if !strings.Contains(got["a"], "logged") || !strings.Contains(got["b"], `"result":{}`) {
		t.Errorf("stream carried %v", got)
	}

	// Later versions have no batches.
	d := f.connect("2025-06-18", `{}`)
	if body := d.expect(d.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`), 400); !strings.Contains(body, "removed them") {
		t.Errorf("2025-06-18 batch: %s", body)
	}
	anon := f.newClient()
	anon.expect(anon.post(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`), 400)
}

// TestBatchItemCap: a batch of MaxBatchItems runs; one more is refused
// whole, naming the cap.
func TestBatchItemCap(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect("2025-03-26", `{}`)
	batch := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	var arr []json.RawMessage
	if body := c.expect(c.post(batch(MaxBatchItems)), 200); json.Unmarshal([]byte(body), &arr) != nil || len(arr) != MaxBatchItems {
		t.Errorf("a batch of %d: %.300s", MaxBatchItems, body)
	}
	if body := c.expect(c.post(batch(MaxBatchItems+1)), 400); !strings.Contains(body, "batch of more than 64 messages") {
		t.Errorf("a batch of %d: %s", MaxBatchItems+1, body)
	}
	c.expect(c.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"}] x`), 400)
}
