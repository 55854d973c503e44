package formcore

import (
	"encoding/json"
	"slices"
)

// CheckDropped refuses an answer that has a property the variant left out
// (Variant.Dropped): the client was not asked it, so its value can only be
// a client's mistake, and a form's properties are an allowlist per
// protocol version. result is the client's ElicitResult; CheckDropped
// returns nil when the variant dropped nothing, when the result is not an
// accept with an object content (the outcome and ElicitDecode report
// those) and when the content has none of the dropped properties.
func (v Variant) CheckDropped(result []byte) error {
	if len(v.Dropped) == 0 {
		return nil
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil || r.Action != "accept" || len(r.Content) == 0 {
		return nil
	}
	var d Decoder
	d.Reset(r.Content)
	for d.Next() {
		if k := string(d.Key()); slices.Contains(v.Dropped, k) {
			d.Problem(k, "was not asked: protocol "+v.Version+" cannot carry it, so the form leaves it out")
		}
	}
	if d.fatal {
		return nil
	}
	return d.Err()
}
