package runtime

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-elicit/elicit/internal/roundtrip"
)

// WithReask lets an elicitation ask again, up to n more times, when the
// user accepts content that breaks the form or its validate tags (a
// *ContentError), instead of failing at once. Each new ask's message is the
// original followed by what was wrong, per property:
//
//	Where should the service go? — "host" must be a host name; please correct it
//
// ("please correct them" when two or more properties were wrong), and the
// properties that were right come back as the form's defaults,
// where the protocol version carries them (2025-11-25 and later; booleans
// since 2025-06-18), so the user fixes only the wrong ones. On 2026-07-28
// each re-ask is one more input_required round (keyed like a second ask of
// the form: "peer_form_2", ...). After the last attempt the error is the
// *ContentError of the last answer (ErrElicitInvalidContent), as without
// this option; decline, cancel and every other outcome end at once.
//
// It is opt-in: a handler's outcome for a bad answer does not change unless
// it asks for re-asks, a client that answers by itself (an LLM) is not
// held in a loop it did not expect, and each re-ask is one more question a
// person sees. n <= 0 means no re-ask. It applies to the form-mode
// elicitations, Elicit[T] and ElicitSchema (on every server, the adapters'
// included); ElicitURL has no content to check, and does not take it.
func WithReask(n int) FormOption { return reaskOption(max(n, 0)) }

type reaskOption int

func (n reaskOption) applyToElicit(o elicitOptions) elicitOptions { o.reasks = int(n); return o }
func (n reaskOption) applyToSchema(o elicitOptions) elicitOptions { o.reasks = int(n); return o }

// Ask asks the call's question with ask (which sends message and schema
// and returns the client's raw ElicitResult) and decodes the answer with
// Decode, re-asking as WithReask allows: what Elicit[T] does once the call
// is prepared.
func (c formCall[T, P]) Ask(message string, ask func(message string, schema json.RawMessage) (json.RawMessage, error)) (T, error) {
	var v T
	if ask == nil {
		return v, errors.New("elicit: formCall.Ask needs an ask function")
	}
	if c.Schema == nil {
		return v, errors.New("elicit: formCall.Ask on a formCall not made by prepareElicit")
	}
	err := askUntilValid(c.version, message, c.Schema, c.reasks, ask, func(raw json.RawMessage) error {
		var err error
		v, err = c.Decode(raw)
		return err
	})
	return v, err
}

// askUntilValid asks with message and schema and decodes the answer; while
// the answer's content is invalid and reasks remain, it asks again with
// the problems in the message and the valid properties as defaults.
func askUntilValid(version, message string, schema json.RawMessage, reasks int,
	ask func(message string, schema json.RawMessage) (json.RawMessage, error), decode func(json.RawMessage) error) error {
	msg, sch := message, schema
	for attempt := 0; ; attempt++ {
		raw, err := ask(msg, sch)
		if err != nil {
			return err
		}
		err = decode(raw)
		var ce *ContentError
		if err == nil || attempt >= reasks || !errors.As(err, &ce) {
			return err
		}
		content, _ := elicitOutcome(raw, true)
		msg = reaskMessage(message, ce)
		sch = schemaWithDefaults(schema, version, validProperties(content, ce))
	}
}

// reaskMessage is the message of a re-ask: the original and what was wrong.
func reaskMessage(message string, ce *ContentError) string {
	fix := "; please correct it"
	if len(ce.Problems) > 1 {
		fix = "; please correct them"
	}
	return message + " — " + ce.Detail() + fix
}

// validProperties are the properties of content that have no problem, as
// defaults for a re-ask: not empty ("" or null: not given), each once, in
// the order sent. With a problem of the content as a whole, or problems
// beyond those ce names, there are none. Its work is linear in content
// and problems.
func validProperties(content json.RawMessage, ce *ContentError) []propertyDefault {
	if ce.more > 0 {
		return nil
	}
	failing := make(map[string]bool, len(ce.Problems))
	for _, p := range ce.Problems {
		if p.Property == "" {
			return nil
		}
		failing[p.Property] = true
	}
	var out []propertyDefault
	given := map[string]bool{}
	roundtrip.EachMember(content, 0, func(key, value []byte) bool {
		if string(value) == "null" || string(value) == `""` || failing[string(key)] || given[string(key)] {
			return true
		}
		name := string(key)
		given[name] = true
		var b bytes.Buffer
		if json.Compact(&b, value) == nil {
			out = append(out, propertyDefault{Property: name, Value: b.Bytes()})
		}
		return true
	})
	return out
}

func hasProblem(problems []Problem, property string) bool {
	for _, p := range problems {
		if p.Property == property {
			return true
		}
	}
	return false
}
