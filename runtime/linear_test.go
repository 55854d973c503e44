package runtime

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/go-elicit/elicit/runtime/internal/testform"
)

// TestRuntimeDecodingIsLinear: the runtime's own decoding of client input
// (an ElicitSchema answer and the defaults of its re-ask, plain-struct
// tool arguments, a generated form's answer as the adapters and the
// cluster decode it) does work linear in its size: eight times the input
// costs about eight times the time, not sixty-four. The generated decoder's
// comparisons are counted exactly in formcore (TestDecodingIsLinear);
// here, where encoding/json and maps do the work, the test compares the
// times of the two sizes within one run, the best of several each, and
// never against a fixed limit. On a loaded machine, memory makes linear
// work look up to 20× (caches, the collector); quadratic is 64×.
func TestRuntimeDecodingIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("times work")
	}
	unknownKeys := func(n int) json.RawMessage {
		return json.RawMessage(`{"username":"ada",` + joinN(n, func(i int) string { return `"k` + strconv.Itoa(i) + `":1` }) + `}`)
	}
	answer := func(content json.RawMessage) json.RawMessage {
		return json.RawMessage(`{"action":"accept","content":` + string(content) + `}`)
	}
	paths := map[string]func(n int) func(){
		"ElicitSchema answer and re-ask defaults": func(n int) func() {
			content := unknownKeys(n)
			res := answer(content)
			return func() {
				_, err := schemaAnswer(userSchema, res)
				ce, ok := err.(*ContentError)
				if !ok {
					t.Fatalf("schemaAnswer: %v", err)
				}
				validProperties(content, ce)
				_ = ce.Error()
			}
		},
		"plain-struct tool arguments": func(n int) func() {
			raw := unknownKeys(n)
			decode := newArgsDecoder[deployArgs](&Tool{Name: "deploy"}) // checked against its reflected inputSchema
			return func() {
				var in deployArgs
				if decode(raw, &in) == nil {
					t.Fatal("the arguments decoder accepted unknown keys")
				}
			}
		},
		"generated form answer, distinct bad items": func(n int) func() {
			res := answer(json.RawMessage(`{"families":[` + joinN(n, func(i int) string { return `"x` + strconv.Itoa(i) + `"` }) + `]}`))
			return func() {
				if _, err := DecodeAnswer[testform.FamiliesForm](res); err == nil {
					t.Fatal("DecodeAnswer accepted bad items")
				}
			}
		},
	}
	for name, path := range paths {
		const n = 5000
		small, large := path(n), path(8*n)
		ts, tl := fastest(small), fastest(large)
		ratio := float64(tl) / float64(ts)
		t.Logf("%s: %.1f×", name, ratio)
		if ratio > 40 {
			t.Errorf("%s: %d elements %v, eight times as many %v (%.1f×; linear is 8×, quadratic 64×)", name, n, ts, tl, ratio)
		}
	}
}

// fastest is the shortest of several runs of f: the one least disturbed by
// the rest of the machine.
func fastest(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 7 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}
