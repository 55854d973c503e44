package runtime

import "encoding/json"

// modernCall is the state of one 2026-07-28 request (filled in with the
// input_required round trip).
type modernCall struct{}

func (m *modernCall) ask(key string, params []byte) (json.RawMessage, error) {
	return nil, unsupportedf("2026-07-28 requests are not served yet")
}
