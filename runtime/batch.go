package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// MaxBatchItems caps the messages of one JSON-RPC batch (2025-03-26 only).
// A longer batch is refused whole with 400 and -32600 before any of it
// runs: each item costs a goroutine and a response, so without a cap a
// body of MaxBodyBytes made of tiny items ("[0,0,0,...]") would build a
// reply dozens of times its own size.
const MaxBatchItems = 64

// errBatchTooLong is the error of a batch longer than MaxBatchItems.
var errBatchTooLong = fmt.Errorf("batch of more than %d messages: send at most %d per batch, or one message per POST", MaxBatchItems, MaxBatchItems)

// splitBatch returns the items of a JSON array, refusing more than max of
// them without reading further (it never holds more than the body and the
// items it returns).
func splitBatch(body []byte, max int) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('[') {
		return nil, errors.New("a batch must be a JSON array")
	}
	var items []json.RawMessage
	for dec.More() {
		if len(items) == max {
			return nil, errBatchTooLong
		}
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, err
	}
	if len(trimSpace(body[dec.InputOffset():])) != 0 {
		return nil, errors.New("invalid character after the batch's closing bracket")
	}
	return items, nil
}

// serveBatch answers a JSON-RPC batch, which only 2025-03-26 has (2025-06-18
// removed batches). Its requests run concurrently; a request that sends
// something first (an elicitation) turns the reply into an SSE stream that
// every message of the batch rides, responses included. Otherwise the
// responses go back as one JSON array, or 202 when the batch held none.
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request, body []byte, sseOK bool, lt liftedTimeouts) {
	items, err := splitBatch(body, MaxBatchItems)
	if err == errBatchTooLong {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, err.Error())
		return
	}
	if err != nil {
		httpError(w, http.StatusBadRequest, CodeParseError, "parse error: "+err.Error())
		return
	}
	if len(items) == 0 {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "empty batch")
		return
	}
	if r.Header.Get(HeaderSessionID) == "" {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "JSON-RPC batches are not supported outside a 2025-03-26 session (initialize must not be batched)")
		return
	}
	sess, ok := s.sessionFor(w, r)
	if !ok {
		return
	}
	if sess.protocol != Version20250326 {
		httpError(w, http.StatusBadRequest, CodeInvalidRequest, "JSON-RPC batches are not supported: protocol "+sess.protocol+" removed them")
		return
	}
	sess.touch()
	shared := s.newSink(w, r, sseOK, nil, lt)
	var (
		mu     sync.Mutex
		frames [][]byte
		wg     sync.WaitGroup
	)
	add := func(frame []byte) {
		if frame != nil {
			mu.Lock()
			frames = append(frames, frame)
			mu.Unlock()
		}
	}
	for _, item := range items {
		var msg message
		kind, rerr := readMessage(item, &msg)
		switch {
		case rerr != nil:
			add(encodeError(msg.ID, rerr))
		case msg.Method == "initialize":
			add(encodeError(msg.ID, rpcErrorf(CodeInvalidRequest, "initialize must not be part of a batch")))
		case kind == responseMessage:
			// Routed like a single answer: in a cluster, to the replica
			// whose handler waits for it.
			if status, text := s.routeReply(r.Context(), sess, &msg, item); status != http.StatusAccepted {
				add(encodeError(nil, rpcErrorf(CodeInvalidRequest, "%s", text)))
			}
		case kind == notificationMessage:
			s.sessionNotification(sess, &msg)
		default:
			wg.Add(1)
			go func(msg message) {
				defer wg.Done()
				add(s.sessionRequest(r.Context(), sess, &msg, batchSink{shared}).frame)
			}(msg)
		}
	}
	wg.Wait()
	if shared.streaming() {
		for _, f := range frames {
			_ = shared.send(f)
		}
		s.finish(shared, reply{})
		return
	}
	if len(frames) == 0 {
		s.finish(shared, reply{status: http.StatusAccepted})
		return
	}
	arr := []byte{'['}
	for i, f := range frames {
		if i > 0 {
			arr = append(arr, ',')
		}
		arr = append(arr, f...)
	}
	s.finish(shared, reply{status: http.StatusOK, frame: append(arr, ']')})
}

// batchSink is one batched request's view of the batch's shared reply:
// messages it sends go on the shared stream; its response is collected.
type batchSink struct{ shared *httpSink }

func (b batchSink) send(msg []byte) error    { return b.shared.send(msg) }
func (b batchSink) finish(int, []byte) error { return nil }
func (b batchSink) close()                   {}
func (b batchSink) streaming() bool          { return b.shared.streaming() }
func (b batchSink) canSend() bool            { return b.shared.canSend() }
