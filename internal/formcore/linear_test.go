package formcore

import (
	"strconv"
	"strings"
	"testing"
)

// The work of decoding grows no faster than the content: doubling a
// hostile answer (distinct bad items, repeated items, unknown keys,
// repeated keys) at most doubles the comparisons the decoder makes. It
// counts them (Decoder.compared), so the test is the same on any machine.

// hostileAnswers builds answers of n elements of each kind.
var hostileAnswers = map[string]func(n int) string{
	"distinct items": func(n int) string {
		return `{"l":[` + join(n, func(i int) string { return strconv.Quote("x" + strconv.Itoa(i)) }) + `]}`
	},
	"escaped distinct items": func(n int) string {
		return `{"l":[` + join(n, func(i int) string { return `"\u0078` + strconv.Itoa(i) + `"` }) + `]}`
	},
	"repeated items": func(n int) string {
		return `{"l":[` + join(n, func(int) string { return `"a"` }) + `]}`
	},
	"unknown keys": func(n int) string {
		return `{` + join(n, func(i int) string { return `"k` + strconv.Itoa(i) + `":1` }) + `}`
	},
	"repeated unknown keys": func(n int) string {
		return `{` + join(n, func(i int) string { return `"k` + strconv.Itoa(i%50) + `":1` }) + `}`
	},
	"repeated keys": func(n int) string {
		return `{` + join(n, func(int) string { return `"s":"v"` }) + `}`
	},
}

func join(n int, f func(int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, ",")
}

// decodeCounting decodes content with decodeWith, then validates "l",
// and returns the comparisons made and the content error's text.
func decodeCounting(content string) (int, string) {
	var d Decoder
	decodeWith(&d, content)
	d.ValidateVar("l", "", "required")
	text := ""
	if err := d.Err(); err != nil {
		text = err.Error()
	}
	return d.compared, text
}

func TestDecodingIsLinear(t *testing.T) {
	for name, answer := range hostileAnswers {
		const n = 20_000
		small, _ := decodeCounting(answer(n))
		large, text := decodeCounting(answer(2 * n))
		if float64(large) > 2.1*float64(small) {
			t.Errorf("%s: %d comparisons for %d elements, %d for twice as many", name, small, n, large)
		}
		if len(text) > 4096 {
			t.Errorf("%s: the error is %d bytes long: %.200s", name, len(text), text)
		}
	}
}

// TestProblemsCounted: past MaxProblems, problems are counted once each,
// not named (decodeCounting adds one: "l" is required); a property with a
// problem among them still counts as failed.
func TestProblemsCounted(t *testing.T) {
	_, text := decodeCounting(hostileAnswers["unknown keys"](1000))
	if !strings.HasSuffix(text, "; … and 969 more problems") || strings.Count(text, "is not a property of the form") != MaxProblems {
		t.Errorf("1000 unknown keys: %s", text)
	}
	_, text = decodeCounting(hostileAnswers["repeated unknown keys"](1000))
	if !strings.HasSuffix(text, "; … and 19 more problems") {
		t.Errorf("50 unknown keys, 20 times each: %s", text)
	}
	_, text = decodeCounting(hostileAnswers["repeated items"](100))
	if !strings.Contains(text, `"l" item 1 repeats "a"`) || !strings.HasSuffix(text, "; … and 67 more problems") {
		t.Errorf("100 repeated items: %s", text)
	}
	var d Decoder
	d.Reset([]byte(`{}`))
	for i := range MaxProblems {
		d.Problem("p"+strconv.Itoa(i), "is wrong")
	}
	d.Problem("late", "is wrong")
	d.Problem("late", "is wrong")
	if !d.failed("late") || d.failed("other") || d.more != 1 {
		t.Errorf("failed(late) %v, failed(other) %v, more %d", d.failed("late"), d.failed("other"), d.more)
	}
}

// TestEchoClipped: a long unknown key or repeated item is named by a
// short prefix, marked as cut.
func TestEchoClipped(t *testing.T) {
	long := strings.Repeat("é", 1000)
	_, text := decodeCounting(`{"` + long + `":1,"l":["` + long + `","` + long + `"]}`)
	if len(text) > 400 || strings.Count(text, "…") != 2 {
		t.Errorf("long names: %d bytes: %s", len(text), text)
	}
}
