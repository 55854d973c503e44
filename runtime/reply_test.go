package runtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestAppendToolResult: the results appendToolResult writes are
// json.Marshal's bytes exactly, in a response frame as encodeResponse
// makes it (or, for invalid UTF-8, the same JSON: Go 1.27's encoding/json
// writes U+FFFD unescaped); the others it leaves to encoding/json.
func TestAppendToolResult(t *testing.T) {
	tricky := "a<b>&c \"q\" \\ \n\t\r\b\f \x01 \x7f é \u2028\u2029 \xff\xfe 😀"
	for _, res := range []*CallToolResult{
		{},
		{Content: []Content{}},
		&emptyToolResult,
		TextResult("ada 3"),
		TextResult(""),
		TextResult(tricky),
		ErrorResult("failed: %s", tricky),
		{Content: []Content{{Type: "image", Data: "iVBORw0KGgo=", MimeType: "image/png"}, {Type: tricky, Text: "t", MimeType: tricky}, {}}},
		{Content: nil, IsError: true},
	} {
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendToolResult([]byte("prefix"), res)
		if !ok || !bytes.HasPrefix(got, []byte("prefix")) || !sameJSON(got[len("prefix"):], want) {
			t.Errorf("appendToolResult(%+v) = %q, %v; want %q", res, got, ok, want)
		}
		id := json.RawMessage(`"x-1"`)
		wantFrame, _ := encodeResponse(id, res)
		if frame, err := encodeToolResponse(id, res); err != nil || !sameJSON(frame, wantFrame) {
			t.Errorf("encodeToolResponse(%+v) = %q, %v; want %q", res, frame, err, wantFrame)
		}
	}
	for _, res := range []*CallToolResult{
		{Content: []Content{{Type: "resource", Resource: map[string]any{"uri": "file:///a"}}}},
		{Content: []Content{}, StructuredContent: map[string]int{"n": 1}},
	} {
		if got, ok := appendToolResult([]byte("prefix"), res); ok || string(got) != "prefix" {
			t.Errorf("appendToolResult(%+v) = %q, %v; want it left to encoding/json", res, got, ok)
		}
		want, _ := encodeResponse(json.RawMessage(`7`), res)
		if frame, err := encodeToolResponse(json.RawMessage(`7`), res); err != nil || !bytes.Equal(frame, want) {
			t.Errorf("encodeToolResponse(%+v) = %q, %v; want %q", res, frame, err, want)
		}
	}
}

// sameJSON reports whether a and b are the same bytes, or, where they
// differ only in how a character is escaped, the same JSON value.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if !bytes.Equal(bytes.ReplaceAll(a, []byte(`\ufffd`), []byte("\uFFFD")), bytes.ReplaceAll(b, []byte(`\ufffd`), []byte("\uFFFD"))) {
		return false
	}
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

// TestJSONRepliesHaveContentLength: a plain JSON reply says its length,
// whether net/http counts it (a reply it buffers whole, netHTTPBuffered)
// or the sink does (a longer one), and is never sent chunked.
func TestJSONRepliesHaveContentLength(t *testing.T) {
	f := newFixture(t, Options{})
	c := f.connect(Version20251125, `{}`)
	for _, n := range []int{0, netHTTPBuffered / 2, netHTTPBuffered, 3 * netHTTPBuffered} {
		args := `{"pad":"` + strings.Repeat("x", n) + `"}`
		resp, _ := c.callTool("plain", args, "Accept: application/json")
		body := c.expect(resp, http.StatusOK)
		if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("a reply of %d bytes: Content-Length %d, Transfer-Encoding %q", len(body), resp.ContentLength, resp.TransferEncoding)
		}
		if !strings.Contains(body, strings.Repeat("x", n)+`\"}`) {
			t.Errorf("a reply of %d bytes does not echo the arguments: %.200s", len(body), body)
		}
	}
}
