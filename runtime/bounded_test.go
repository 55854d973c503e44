package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// replyBound is the most any reply may carry, whatever the request: 4 KiB
// and a small constant (the envelope, a 256-byte id).
const replyBound = 4096 + 1024

// hostileArguments are tool arguments (or answer contents) a hostile
// client sends, each about a megabyte; built when a test asks (the test
// binary is also the child server of hostile_test.go, whose memory is
// measured).
func hostileArguments() map[string]string {
	return map[string]string{
		"100k unknown keys":           `{` + joinN(100_000, func(i int) string { return `"<k` + strconv.Itoa(i) + `>":1` }) + `}`,
		"100k invalid items":          `{"families":[` + joinN(100_000, func(i int) string { return `"<x` + strconv.Itoa(i) + `>"` }) + `]}`,
		"100k repeated items":         `{"families":[` + joinN(100_000, func(int) string { return `"ipv4-unicast"` }) + `]}`,
		"a long repeated item":        `{"families":["` + strings.Repeat("<", 1<<19) + `","` + strings.Repeat("<", 1<<19) + `"]}`,
		"a long string, unknown keys": `{"families":["` + strings.Repeat("é", 1<<18) + `"],` + joinN(1000, func(i int) string { return `"` + strings.Repeat("<", 1000) + strconv.Itoa(i) + `":1` }) + `}`,
	}
}

func joinN(n int, f func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, ",")
}

// boundedFixture is a fixture with a tool whose arguments are a generated
// form, one whose arguments are a plain struct, and one that elicits the
// form.
func boundedFixture(t *testing.T) *fixture {
	f := newFixture(t, Options{})
	AddTool(f.srv, Tool{Name: "fam"}, func(ctx context.Context, req *CallToolRequest, in testform.FamiliesForm) (*CallToolResult, error) {
		return TextResult("ok"), nil
	})
	AddTool(f.srv, Tool{Name: "deploy"}, func(ctx context.Context, req *CallToolRequest, in deployArgs) (*CallToolResult, error) {
		return TextResult("ok"), nil
	})
	f.srv.AddTool(Tool{Name: "askfam"}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if _, err := Elicit[testform.FamiliesForm](ctx, "Which families?"); err != nil {
			return nil, err
		}
		return TextResult("ok"), nil
	})
	return f
}

func checkBound(t *testing.T, what string, reply string) {
	t.Helper()
	if len(reply) > replyBound {
		t.Errorf("%s: a reply of %d bytes: %.300s", what, len(reply), reply)
	}
	if len(reply) == 0 {
		t.Errorf("%s: no reply", what)
	}
}

// TestRepliesBoundedHTTP: over HTTP, in a 2025-11-25 session and in
// 2026-07-28, no reply grows with the request: a huge method or tool name,
// a hundred thousand unknown argument keys or bad multi-select items, long
// strings in failing properties, as tool arguments and as an answer.
func TestRepliesBoundedHTTP(t *testing.T) {
	f := boundedFixture(t)
	hostile := hostileArguments()
	long := strings.Repeat("<", 1<<20)
	sess := f.connect("2025-11-25", `{"elicitation":{}}`)
	modern := f.newClient()
	call := func(c *client, method, tool, params string) string {
		if c == sess {
			return readAll(t, c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s}}`, method, params)))
		}
		return readAll(t, c.post(inputRequiredBody(1, method, params, inputRequiredCapsElicit), inputRequiredHeaders(method, tool)...))
	}
	for era, c := range map[string]*client{"2025-11-25": sess, "2026-07-28": modern} {
		checkBound(t, era+" huge method", call(c, long, "", `"x":1`))
		name := long[:100_000] // a header must carry it too in 2026-07-28
		checkBound(t, era+" huge tool name", call(c, "tools/call", name, `"name":"`+name+`","arguments":{}`))
		for what, args := range hostile {
			for _, tool := range []string{"fam", "deploy"} {
				checkBound(t, era+" "+tool+" arguments with "+what, call(c, "tools/call", tool, `"name":"`+tool+`","arguments":`+args))
			}
		}
	}
	for what, content := range hostile {
		// 2026-07-28: the answer comes back in the retry.
		r := modern.inputRequiredCallTool("askfam", `{}`, inputRequiredCapsElicit, "")
		var requests map[string]json.RawMessage
		_ = json.Unmarshal(r.Result["inputRequests"], &requests)
		for key := range requests {
			responses := `{"` + key + `":{"action":"accept","content":` + content + `}}`
			reply := call(modern, "tools/call", "askfam", `"name":"askfam","arguments":{},`+retryExtra(responses, r.Result["requestState"]))
			checkBound(t, "2026-07-28 answer with "+what, reply)
			if !strings.Contains(reply, "more problem") && !strings.Contains(reply, "repeats") && !strings.Contains(reply, "must contain only") {
				t.Errorf("2026-07-28 answer with %s: %.300s", what, reply)
			}
		}
		// 2025-11-25: the answer is a POST of its own; the result rides
		// the call's stream.
		resp, _ := sess.callTool("askfam", `{}`)
		s := openStream(t, resp)
		id, _ := s.elicitation()
		readAll(t, sess.answer(id, `{"action":"accept","content":`+content+`}`))
		ev := s.mustNext()
		checkBound(t, "2025-11-25 answer with "+what, ev.data)
		s.close()
	}
}

// TestRepliesBoundedStdio: the same over stdio, in a session and with
// 2026-07-28 _meta.
func TestRepliesBoundedStdio(t *testing.T) {
	f := boundedFixture(t)
	hostile := hostileArguments()
	p := startStdio(t, f, context.Background())
	p.initialize(`{"elicitation":{}}`)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	long := strings.Repeat("<", 1<<20)
	for era, extra := range map[string]string{"session": "", "2026-07-28": "," + meta} {
		send := func(what, method, params string) {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s%s}}`, method, params, extra))
			checkBound(t, era+" "+what, mustJSON(p.next()))
		}
		send("huge method", long, `"x":1`)
		send("huge tool name", "tools/call", `"name":"`+long+`","arguments":{}`)
		for what, args := range hostile {
			for _, tool := range []string{"fam", "deploy"} {
				send(tool+" arguments with "+what, "tools/call", `"name":"`+tool+`","arguments":`+args)
			}
		}
	}
}
