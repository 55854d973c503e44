package formcore

// Empty means not given. A form UI sends an optional property the user
// cleared as "" (a text box emptied) or null (a number field cleared), not
// by leaving it out. Such a property is absent: the decoder does not store
// it, Seen reports false (so its default applies and its validate tags do
// not run) and none of its checks fail. A required property is still
// checked: when Require finds it empty it counts as given, and what its
// reader found wrong is recorded then: for "" the checks of its type (a
// string's minLength, format, validate:"required"), for null, and for ""
// where the type has no empty value (numbers, booleans, enums, dates),
// "is required".
//
// The readers cannot tell an optional property from a required one (only
// Require, after the loop, says which are required), so they hold back the
// problems of an empty value until then.

// blank consumes the current value when it is null or "", marks property
// i empty with "is required" held back for it, and reports whether it did.
func (d *Decoder) blank(i int, property string) bool {
	switch {
	case d.pos >= len(d.data):
		return false
	case d.data[d.pos] == 'n':
		if !d.literal("null") {
			return false
		}
	case d.data[d.pos] == '"' && d.pos+1 < len(d.data) && d.data[d.pos+1] == '"':
		d.pos += 2
	default:
		return false
	}
	d.state = stateValueRead
	d.markEmpty(i)
	d.held = append(d.held, Problem{Property: property, Message: "is required"})
	return true
}

// blankAt is blank for the readers of values that never start with 'n' or
// '"' unless empty or wrong: one comparison on their path.
func (d *Decoder) blankAt(i int, property string) bool {
	if c := d.peek(); c != 'n' && c != '"' {
		return false
	}
	return d.blank(i, property)
}

func (d *Decoder) markEmpty(i int) { d.empty[i/64] |= uint64(1) << (i % 64) }

// unblank makes property i, when it arrived empty, count as given and
// records the problems held back for it; it reports whether it was empty.
func (d *Decoder) unblank(i int, property string) bool {
	w, b := i/64, uint64(1)<<(i%64)
	if d.empty[w]&b == 0 {
		return false
	}
	d.empty[w] &^= b
	for _, p := range d.held {
		if p.Property == property {
			d.Problem(p.Property, p.Message)
		}
	}
	return true
}
