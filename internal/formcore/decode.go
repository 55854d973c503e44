package formcore

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-elicit/elicit/internal/subset"
)

// MaxFields is the number of properties a Decoder can track. elicitgen
// rejects forms with more.
const MaxFields = 256

// Decoder reads the JSON object a client sent as the content of an accepted
// elicitation. Generated ElicitDecode methods drive it: Next walks the keys,
// Field marks a known key (reporting duplicates), typed readers take the
// value, and Err returns every problem at once as a *ContentError.
//
// It never builds a map and allocates only for escaped strings, problems and
// what the caller keeps (strings, slices). Use a Decoder value on the stack:
//
//	var d formimpl.Decoder // formimpl.Decoder is an alias of this type
//	d.Reset(content)
type Decoder struct {
	data     []byte
	pos      int
	key      []byte
	scratch  []byte
	seen     [MaxFields / 64]uint64
	problems []Problem // the first MaxProblems, each once
	// more counts the problems beyond MaxProblems, each once: beyond holds
	// their hashes and those of their properties (see Problem).
	more   int
	beyond map[uint64]struct{}
	// holding sends every problem to held (see empty.go).
	holding bool
	// empty and held are the properties that arrived empty and what is
	// wrong with them should they be required (see empty.go).
	empty [MaxFields / 64]uint64
	held  []Problem
	// itemAt holds where each string item read so far of the array Item
	// walks starts in data (the first len(itemAt) of them; the rest are
	// found through itemSet), itemCount how many there are and itemN how
	// many elements the array has had: a multi-select may not name an
	// option twice, and checking that costs no allocation for a selection
	// of up to 16, and one map lookup per item past that.
	itemAt    [16]int
	itemSet   map[uint64]int // an item's hash (see itemKey) -> where it starts
	itemCount int
	itemN     int
	state     uint8
	// fatal is set by a syntax error: the rest of the input is not read and
	// Err reports only the syntax error.
	fatal bool
	// compared counts the comparisons of problems and items: what a test
	// checks grows no faster than the content.
	compared int
}

const (
	stateStart uint8 = iota
	stateInObject
	stateValueRead
	stateDone
)

// Reset prepares d to read content.
func (d *Decoder) Reset(content []byte) {
	*d = Decoder{data: content, scratch: d.scratch[:0]}
}

// Next advances to the next key of the object and reports whether there is
// one. It returns false at the end of the object and after a syntax error.
// The value of the previous key is skipped if the caller did not read it.
func (d *Decoder) Next() bool {
	if d.fatal {
		return false
	}
	switch d.state {
	case stateStart:
		d.ws()
		if d.pos >= len(d.data) {
			d.syntax("content is empty")
			return false
		}
		if d.data[d.pos] != '{' {
			d.fatal = true
			d.problems = append(d.problems[:0], Problem{Message: "content must be a JSON object"})
			return false
		}
		d.pos++
		d.ws()
		if d.peek() == '}' {
			d.pos++
			return d.end()
		}
	case stateInObject:
		// The caller did not read the value of the previous key.
		d.skipValue()
		if d.fatal {
			return false
		}
		fallthrough
	case stateValueRead:
		d.ws()
		switch d.peek() {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			return d.end()
		default:
			d.syntax("expected ',' or '}' after object value")
			return false
		}
	case stateDone:
		return false
	}
	if d.peek() != '"' {
		d.syntax("expected a string key")
		return false
	}
	key, ok := d.readString(false)
	if !ok {
		return false
	}
	d.key = key
	d.ws()
	if d.peek() != ':' {
		d.syntax("expected ':' after object key")
		return false
	}
	d.pos++
	d.ws()
	d.state = stateInObject
	return true
}

func (d *Decoder) end() bool {
	d.state = stateDone
	d.ws()
	if d.pos != len(d.data) {
		d.syntax("unexpected data after the object")
	}
	return false
}

// Key returns the current key, unescaped. It is valid until the next call.
func (d *Decoder) Key() []byte { return d.key }

// Field marks property i (its index in the form) as present and reports
// whether the caller should read its value. A repeated key is a problem: the
// value is skipped and Field returns false. So is an empty value ("" or
// null; see empty.go), which Field consumes.
func (d *Decoder) Field(i int, property string) bool {
	w, b := i/64, uint64(1)<<(i%64)
	if d.seen[w]&b != 0 {
		d.Problem(property, "appears more than once")
		d.skipCurrent()
		return false
	}
	d.seen[w] |= b
	return !d.blank(i, property)
}

// Seen reports whether property i was given: present, and not empty unless
// it is required (see empty.go).
func (d *Decoder) Seen(i int) bool {
	return (d.seen[i/64]&^d.empty[i/64])&(uint64(1)<<(i%64)) != 0
}

// Unknown reports the current key as not part of the form and skips its value.
func (d *Decoder) Unknown() {
	d.Problem(string(d.key), "is not a property of the form")
	d.skipCurrent()
}

// skipCurrent skips the current value.
func (d *Decoder) skipCurrent() {
	if d.state == stateInObject {
		d.skipValue()
		d.state = stateValueRead
	}
}

// MaxProblems is how many problems a content error names; it counts the
// others ("… and 12 more problems"), so that neither the work of decoding
// nor the error grows with the square of the content, nor the error with
// the content (an answer with a million unknown keys).
const MaxProblems = 32

// Problem records a problem with property; the same problem twice (two
// bad items of one list) is recorded once. Past MaxProblems, problems are
// counted, each once, not kept.
func (d *Decoder) Problem(property, message string) {
	if d.fatal {
		return
	}
	if d.holding {
		d.held = append(d.held, Problem{Property: property, Message: message})
		return
	}
	d.compared += len(d.problems)
	for _, p := range d.problems {
		if p.Property == property && p.Message == message {
			return
		}
	}
	if len(d.problems) < MaxProblems {
		d.problems = append(d.problems, Problem{Property: property, Message: message})
		return
	}
	if d.beyond == nil {
		d.beyond = make(map[uint64]struct{})
	}
	k := problemKey(property, message)
	if _, dup := d.beyond[k]; !dup {
		d.beyond[k] = struct{}{}
		d.beyond[propertyKey(property)] = struct{}{}
		d.more++
	}
}

// hashSeed seeds the hashes of problems and items: chosen at random for
// each process, so a client cannot make hashes collide.
var hashSeed = maphash.MakeSeed()

// problemKey and propertyKey are the hashes under which beyond holds a
// problem and its property; the leading byte keeps them apart. Two
// problems whose hashes collide (a chance of 2⁻⁶⁴) are counted once.
func problemKey(property, message string) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	h.WriteByte(0)
	h.WriteString(property)
	h.WriteByte(0)
	h.WriteString(message)
	return h.Sum64()
}

func propertyKey(property string) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	h.WriteByte(1)
	h.WriteString(property)
	return h.Sum64()
}

// failed reports whether property already has a problem.
func (d *Decoder) failed(property string) bool {
	d.compared += len(d.problems)
	for _, p := range d.problems {
		if p.Property == property {
			return true
		}
	}
	if d.beyond != nil {
		_, ok := d.beyond[propertyKey(property)]
		return ok
	}
	return false
}

// ok reports whether no problem has been recorded so far.
func (d *Decoder) ok() bool { return len(d.problems) == 0 }

// Err returns nil when the content was a well-formed object with no
// problems, and otherwise a content error (a *runtime.ContentError when the
// runtime is linked; see SetContentError) with the first MaxProblems
// problems sorted by property (stable: problems of one property keep their
// order) and the count of the others.
func (d *Decoder) Err() error {
	if len(d.problems) == 0 {
		return nil
	}
	ps := slices.Clone(d.problems)
	slices.SortStableFunc(ps, func(a, b Problem) int { return cmp.Compare(a.Property, b.Property) })
	return newContentError(ps, d.more)
}

// stringValue reads a string value. A value of another type is a problem.
func (d *Decoder) stringValue(property string) (string, bool) {
	b, ok := d.StringBytes(property)
	if !ok {
		return "", false
	}
	return string(b), true
}

// StringBytes reads a string value and returns it unescaped; the bytes are
// valid until the next call on d. A value of another type is a problem.
func (d *Decoder) StringBytes(property string) ([]byte, bool) {
	if !d.take(property, '"', "must be a string") {
		return nil, false
	}
	b, ok := d.readString(true)
	d.state = stateValueRead
	return b, ok
}

// boolValue reads a boolean value. A value of another type is a problem.
func (d *Decoder) boolValue(property string) (bool, bool) {
	c := d.peek()
	if c != 't' && c != 'f' {
		d.mismatch(property, "must be a boolean")
		return false, false
	}
	d.state = stateValueRead
	if d.literal("true") {
		return true, true
	}
	if d.literal("false") {
		return false, true
	}
	d.syntax("invalid literal")
	return false, false
}

// intValue reads an integer value in [lo, hi] (the range of the Go field's
// type). A number with a zero fraction, such as 3.0, is an integer, as in
// JSON Schema. Anything else is a problem; an integer beyond the range,
// however long, is out of range, not "not an integer".
func (d *Decoder) intValue(property string, lo, hi int64) (int64, bool) {
	num, ok := d.number(property, "must be an integer")
	if !ok {
		return 0, false
	}
	if len(num) <= maxIntegerDigits {
		if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			return d.intRange(property, v, lo, hi)
		}
	}
	var buf [maxIntegerDigits]byte
	digits, neg, class := integerDigits(num, &buf)
	u, err := parseDigits(digits, class)
	switch {
	case class == notInteger:
		d.Problem(property, "must be an integer")
		return 0, false
	case class == integer && len(digits) == 0:
		return d.intRange(property, 0, lo, hi)
	case neg && (class == tooLong || err != nil || u > 1<<63):
		d.Problem(property, "must be at least "+strconv.FormatInt(lo, 10))
		return 0, false
	case !neg && (class == tooLong || err != nil || u > math.MaxInt64):
		d.Problem(property, "must be at most "+strconv.FormatInt(hi, 10))
		return 0, false
	case neg:
		return d.intRange(property, -int64(u), lo, hi) // -int64(1<<63) is MinInt64
	}
	return d.intRange(property, int64(u), lo, hi)
}

func (d *Decoder) intRange(property string, v, lo, hi int64) (int64, bool) {
	if v < lo {
		d.Problem(property, "must be at least "+strconv.FormatInt(lo, 10))
		return 0, false
	}
	if v > hi {
		d.Problem(property, "must be at most "+strconv.FormatInt(hi, 10))
		return 0, false
	}
	return v, true
}

// uintValue reads a non-negative integer value at most hi.
func (d *Decoder) uintValue(property string, hi uint64) (uint64, bool) {
	num, ok := d.number(property, "must be an integer")
	if !ok {
		return 0, false
	}
	if len(num) <= maxIntegerDigits {
		if v, err := strconv.ParseUint(string(num), 10, 64); err == nil {
			if v > hi {
				d.Problem(property, "must be at most "+strconv.FormatUint(hi, 10))
				return 0, false
			}
			return v, true
		}
	}
	var buf [maxIntegerDigits]byte
	digits, neg, class := integerDigits(num, &buf)
	u, err := parseDigits(digits, class)
	switch {
	case class == notInteger:
		d.Problem(property, "must be an integer")
	case class == integer && len(digits) == 0:
		return 0, true
	case neg:
		d.Problem(property, "must be at least 0")
	case class == tooLong || err != nil || u > hi:
		d.Problem(property, "must be at most "+strconv.FormatUint(hi, 10))
	default:
		return u, true
	}
	return 0, false
}

// maxIntegerDigits is the length of the longest integer a Go integer type
// holds (math.MaxUint64 has 20 digits).
const maxIntegerDigits = 20

// What integerDigits finds a number to be.
const (
	integer    = iota // an integer of at most maxIntegerDigits digits
	notInteger        // a number with a fraction that is not zero
	tooLong           // an integer (or not) beyond maxIntegerDigits digits
)

// integerDigits reads the JSON number num (its grammar checked) as an
// integer: its magnitude's digits without leading zeros, in buf (none for
// zero), and its sign, when it is an integer of at most maxIntegerDigits
// digits, such as 12.0 or 1.2e1; otherwise notInteger or tooLong. It reads
// num once and allocates nothing, however long num or its exponent is.
func integerDigits(num []byte, buf *[maxIntegerDigits]byte) ([]byte, bool, int) {
	neg := num[0] == '-'
	p := 0
	if neg {
		p = 1
	}
	intStart := p
	for p < len(num) && isDigit(num[p]) {
		p++
	}
	intPart := num[intStart:p]
	var frac []byte
	if p < len(num) && num[p] == '.' {
		p++
		start := p
		for p < len(num) && isDigit(num[p]) {
			p++
		}
		frac = num[start:p]
	}
	exp := 0
	if p < len(num) && (num[p] == 'e' || num[p] == 'E') {
		p++
		expNeg := p < len(num) && num[p] == '-'
		if p < len(num) && (num[p] == '-' || num[p] == '+') {
			p++
		}
		for ; p < len(num); p++ {
			if exp < 1e9 { // beyond, the answer no longer changes
				exp = exp*10 + int(num[p]-'0')
			}
		}
		if expNeg {
			exp = -exp
		}
	}
	// The digits of intPart and frac as one sequence, the point after
	// the first point of them.
	n := len(intPart) + len(frac)
	at := func(i int) byte {
		if i < len(intPart) {
			return intPart[i]
		}
		return frac[i-len(intPart)]
	}
	first, last := 0, n-1
	for first < n && at(first) == '0' {
		first++
	}
	if first == n {
		return buf[:0], neg, integer
	}
	for at(last) == '0' {
		last--
	}
	point := len(intPart) + exp
	if point-first > maxIntegerDigits {
		return nil, neg, tooLong
	}
	if last >= point {
		return nil, neg, notInteger
	}
	out := buf[:0]
	for i := first; i < point; i++ {
		c := byte('0')
		if i <= last {
			c = at(i)
		}
		out = append(out, c)
	}
	return out, neg, integer
}

// parseDigits is the value of what integerDigits found, when it is an
// integer that is not zero (an error otherwise, or beyond math.MaxUint64).
func parseDigits(digits []byte, class int) (uint64, error) {
	if class != integer || len(digits) == 0 {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseUint(string(digits), 10, 64)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// floatValue reads a number that fits a float of the given bit size (32 or 64).
func (d *Decoder) floatValue(property string, bitSize int) (float64, bool) {
	num, ok := d.number(property, "must be a number")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(num), bitSize)
	if err != nil {
		d.Problem(property, "must be a number in the range of a float"+strconv.Itoa(bitSize))
		return 0, false
	}
	return f, true
}

// Item advances to the next element of an array value and reports whether
// there is one. The first call on a property expects the array to start; a
// value that is not an array is a problem, and Item returns false.
func (d *Decoder) Item(property string, first bool) bool {
	if d.fatal {
		return false
	}
	if first {
		d.itemCount, d.itemN = 0, 0
		clear(d.itemSet)
		if !d.take(property, '[', "must be an array of strings") {
			return false
		}
		d.pos++
		d.ws()
		if d.peek() == ']' {
			d.pos++
			d.state = stateValueRead
			return false
		}
		d.state = stateInObject
		d.itemN = 1
		return true
	}
	if d.state == stateInObject {
		d.skipValue()
	}
	d.ws()
	switch d.peek() {
	case ',':
		d.pos++
		d.ws()
		d.state = stateInObject
		d.itemN++
		return true
	case ']':
		d.pos++
		d.state = stateValueRead
		return false
	}
	d.syntax("expected ',' or ']' after array element")
	return false
}

// ItemBytes reads a string element of an array, like StringBytes. An item
// equal to an earlier one of the same array is a problem (a multi-select
// names each option at most once), and ItemBytes reports false for it.
func (d *Decoder) ItemBytes(property string) ([]byte, bool) {
	if d.peek() != '"' {
		d.Problem(property, "must contain only strings")
		d.skipValue()
		d.state = stateValueRead
		return nil, false
	}
	at := d.pos
	b, ok := d.readString(true)
	d.state = stateValueRead
	if !ok {
		return nil, false
	}
	if d.repeatedItem(b, at) {
		d.Problem(property, subset.RepeatedItem(d.itemN-1, string(b)))
		return nil, false
	}
	d.itemCount++
	return b, true
}

// repeatedItem reports whether the current array has an earlier item b;
// if not, it remembers that b starts at at. The first len(itemAt) items
// are compared one by one; past them, every item goes to itemSet, by hash:
// where a hash is taken by another item, the next hash in a fixed sequence
// is tried, so a collision costs a comparison, never a wrong answer.
func (d *Decoder) repeatedItem(b []byte, at int) bool {
	if d.itemCount <= len(d.itemAt) {
		d.compared += d.itemCount
		for _, earlier := range d.itemAt[:d.itemCount] {
			if string(d.itemString(earlier)) == string(b) {
				return true
			}
		}
		if d.itemCount < len(d.itemAt) {
			d.itemAt[d.itemCount] = at
			return false
		}
		if d.itemSet == nil {
			d.itemSet = make(map[uint64]int)
		}
		for _, earlier := range d.itemAt {
			d.addItem(d.itemString(earlier), earlier)
		}
	}
	return d.addItem(b, at)
}

// addItem adds item b, which starts at at, to itemSet, unless it is there
// already, and reports whether it was.
func (d *Decoder) addItem(b []byte, at int) bool {
	for k := maphash.Bytes(hashSeed, b); ; k = k*0x9E3779B97F4A7C15 + 1 {
		earlier, taken := d.itemSet[k]
		if !taken {
			d.itemSet[k] = at
			return false
		}
		d.compared++
		if string(d.itemString(earlier)) == string(b) {
			return true
		}
	}
}

// itemString is the value of the string item that starts at at in data,
// read again: a slice of data unless it is escaped.
func (d *Decoder) itemString(at int) []byte {
	again := Decoder{data: d.data, pos: at}
	v, _ := again.readString(true)
	return v
}

// take checks that the current value starts with c. Otherwise it records
// message for property (unless the input is malformed) and skips the value.
func (d *Decoder) take(property string, c byte, message string) bool {
	if d.fatal {
		return false
	}
	if d.peek() == c {
		return true
	}
	d.mismatch(property, message)
	return false
}

func (d *Decoder) mismatch(property, message string) {
	start := d.pos
	d.skipValue()
	d.state = stateValueRead
	if !d.fatal && d.pos > start {
		d.Problem(property, message)
	}
}

// number returns the bytes of a number value.
func (d *Decoder) number(property, message string) ([]byte, bool) {
	if d.fatal {
		return nil, false
	}
	c := d.peek()
	if c != '-' && (c < '0' || c > '9') {
		d.mismatch(property, message)
		return nil, false
	}
	start := d.pos
	if !d.scanNumber() {
		return nil, false
	}
	d.state = stateValueRead
	return d.data[start:d.pos], true
}

func (d *Decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *Decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *Decoder) literal(s string) bool {
	if len(d.data)-d.pos >= len(s) && string(d.data[d.pos:d.pos+len(s)]) == s {
		d.pos += len(s)
		return true
	}
	return false
}

// syntax records a fatal syntax error; it replaces every other problem,
// since nothing after it can be trusted.
func (d *Decoder) syntax(what string) {
	if d.fatal {
		return
	}
	d.fatal = true
	msg := "malformed JSON: " + what
	if d.pos < len(d.data) {
		msg += " at offset " + strconv.Itoa(d.pos)
	} else {
		msg += " at end of input"
	}
	d.problems = append(d.problems[:0], Problem{Message: msg})
}

// scanNumber moves past a JSON number, checking its grammar.
func (d *Decoder) scanNumber() bool {
	p := d.pos
	if p < len(d.data) && d.data[p] == '-' {
		p++
	}
	switch {
	case p < len(d.data) && d.data[p] == '0':
		p++
	case p < len(d.data) && d.data[p] >= '1' && d.data[p] <= '9':
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
		}
	default:
		d.pos = p
		d.syntax("invalid number")
		return false
	}
	if p < len(d.data) && d.data[p] == '.' {
		p++
		q := p
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
		}
		if p == q {
			d.pos = p
			d.syntax("invalid number")
			return false
		}
	}
	if p < len(d.data) && (d.data[p] == 'e' || d.data[p] == 'E') {
		p++
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		q := p
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
		}
		if p == q {
			d.pos = p
			d.syntax("invalid number")
			return false
		}
	}
	d.pos = p
	return true
}

// readString reads the string at d.pos (which is '"'). With keep it
// returns the unescaped bytes, pointing into the input when the string has no
// escapes and into d.scratch otherwise.
func (d *Decoder) readString(keep bool) ([]byte, bool) {
	d.pos++
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := d.data[start:d.pos]
			d.pos++
			return s, true
		case c == '\\':
			return d.readEscaped(start)
		case c < 0x20:
			d.syntax("control character in string")
			return nil, false
		case c < utf8.RuneSelf:
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && n == 1 {
				d.syntax("invalid UTF-8 in string")
				return nil, false
			}
			d.pos += n
		}
	}
	d.syntax("unterminated string")
	return nil, false
}

func (d *Decoder) readEscaped(start int) ([]byte, bool) {
	buf := append(d.scratch[:0], d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.scratch = buf
			return buf, true
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				d.pos++
				d.syntax("unterminated string")
				return nil, false
			}
			e := d.data[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return nil, false
				}
				if utf16.IsSurrogate(r) {
					// A high surrogate must be followed by a low one;
					// anything else decodes to U+FFFD, as encoding/json does.
					r2 := rune(-1)
					if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
						save := d.pos
						d.pos += 2
						if r2, ok = d.hex4(); !ok {
							return nil, false
						}
						if utf16.DecodeRune(r, r2) == utf8.RuneError {
							d.pos = save
							r2 = -1
						}
					}
					if r2 >= 0 {
						r = utf16.DecodeRune(r, r2)
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos--
				d.syntax("invalid escape in string")
				return nil, false
			}
		case c < 0x20:
			d.syntax("control character in string")
			return nil, false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			d.pos++
		default:
			r, n := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && n == 1 {
				d.syntax("invalid UTF-8 in string")
				return nil, false
			}
			buf = append(buf, d.data[d.pos:d.pos+n]...)
			d.pos += n
		}
	}
	d.syntax("unterminated string")
	return nil, false
}

func (d *Decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		d.pos = len(d.data)
		d.syntax("invalid \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			d.syntax("invalid \\u escape")
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// maxDepth bounds nesting in skipped values, so hostile input cannot
// exhaust the stack.
const maxDepth = 64

// skipValue moves past one JSON value of any type, checking its syntax.
func (d *Decoder) skipValue() { d.skip(0) }

func (d *Decoder) skip(depth int) {
	if depth > maxDepth {
		d.syntax("nesting too deep")
		return
	}
	d.ws()
	switch c := d.peek(); {
	case c == '"':
		d.readString(false)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		d.pos++
		d.ws()
		if d.peek() == closer {
			d.pos++
			return
		}
		for !d.fatal {
			if c == '{' {
				if d.peek() != '"' {
					d.syntax("expected a string key")
					return
				}
				if _, ok := d.readString(false); !ok {
					return
				}
				d.ws()
				if d.peek() != ':' {
					d.syntax("expected ':' after object key")
					return
				}
				d.pos++
			}
			d.skip(depth + 1)
			d.ws()
			switch d.peek() {
			case ',':
				d.pos++
				d.ws()
			case closer:
				d.pos++
				return
			default:
				d.syntax("expected ',' or '" + string(closer) + "'")
				return
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		d.scanNumber()
	case c == 't':
		if !d.literal("true") {
			d.syntax("invalid literal")
		}
	case c == 'f':
		if !d.literal("false") {
			d.syntax("invalid literal")
		}
	case c == 'n':
		if !d.literal("null") {
			d.syntax("invalid literal")
		}
	case d.pos >= len(d.data):
		d.syntax("unexpected end of input")
	default:
		d.syntax("unexpected character " + strconv.QuoteRune(rune(c)))
	}
}
