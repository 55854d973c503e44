package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/go-elicit/elicit/internal/roundtrip"
	"github.com/go-elicit/elicit/internal/subset"
	"github.com/go-elicit/elicit/runtime/formimpl"
)

// unsupportedf is ErrElicitUnsupported with the reason.
func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrElicitUnsupported, fmt.Sprintf(format, args...))
}

// ElicitSchema asks the user of the tool call ctx belongs to to fill in a
// form described by a hand-built requestedSchema and returns the accepted
// content. The schema is checked against the elicitation subset before
// anything is sent (ErrElicitSchemaInvalid); a form the session's protocol
// version cannot express is downgraded where an equivalent exists; an
// optional property with none (a multi-select on 2025-06-18) is left out,
// and an answer that has it is refused; otherwise ErrElicitUnsupported
// names the feature. Accepted content is validated against the schema
// (*ContentError names each failing property); an optional property sent
// empty ("" or null) is not given and is left out of the map (see "Empty
// means not given" in the package doc). In the map it returns, numbers are
// json.Number (as the client wrote them). ctx
// must be the handler's context, or one derived from it (ErrNoCall
// otherwise).
//
// Prefer Elicit[T] with a generated form: its schema is checked at build time
// and the answer arrives as a typed value.
func ElicitSchema(ctx context.Context, message string, schema map[string]any, opts ...FormOption) (map[string]any, error) {
	a, err := askerFrom(ctx)
	if err != nil {
		return nil, err
	}
	o := optionsOf("", opts, FormOption.applyToSchema)
	protocol := a.protocol()
	ctx, ask := startAsk(ctx, a, "form", "schema", nil)
	asks := 0
	content, err := askSchema(protocol, func() error { return checkForm(protocol, a.caps().form) }, message, schema, o.reasks, func(message string, schema json.RawMessage) (json.RawMessage, error) {
		asks++
		return askForm(ctx, a, o.key, message, schema)
	})
	endAsk(ask, err, max(asks-1, 0))
	return content, err
}

// askSchema is ElicitSchema once the call is known: the client speaks
// protocol, checkClient says why it cannot be asked a form (nil when it
// can), reasks is WithReask's count, and ask sends the question and
// returns the raw ElicitResult.
func askSchema(protocol string, checkClient func() error, message string, schema map[string]any, reasks int,
	ask func(message string, schema json.RawMessage) (json.RawMessage, error)) (map[string]any, error) {
	if v := subset.Check(schema, subset.V2026_07_28); len(v) > 0 {
		return nil, newSchemaError(protocol, v)
	}
	if err := checkClient(); err != nil {
		return nil, err
	}
	wire, checked := schema, schema
	if protocol != subset.V2026_07_28 && protocol != subset.V2025_11_25 {
		var viol []subset.Violation
		var dropped []string
		if wire, dropped, viol = subset.DowngradeDropping(schema, protocol); len(viol) > 0 {
			return nil, unsupportedf("protocol %s cannot express this form: %s", protocol, viol[0].String())
		}
		if len(dropped) > 0 {
			checked = wire // the client was not asked the dropped properties: refuse them
		}
	}
	rawSchema, err := json.Marshal(wire)
	if err != nil {
		return nil, newSchemaError(protocol, []subset.Violation{{Message: err.Error()}})
	}
	var values map[string]any
	err = askUntilValid(protocol, message, rawSchema, reasks, ask,
		func(res json.RawMessage) error {
			var err error
			values, err = schemaAnswer(checked, res)
			return err
		})
	if err != nil {
		return nil, err
	}
	return values, nil
}

// schemaAnswer is the content of the answer res to ElicitSchema's schema,
// validated against it.
func schemaAnswer(schema map[string]any, res json.RawMessage) (map[string]any, error) {
	content, err := elicitOutcome(res, true)
	if err != nil {
		return nil, err
	}
	var values map[string]any
	if len(content) > 0 {
		var me *roundtrip.MemberError // a repeated property, as generated decoders report it
		if errors.As(roundtrip.CheckMembers(content, reflect.TypeOf(values)), &me) {
			return nil, &ContentError{Problems: []Problem{{Property: me.Name, Message: "appears more than once"}}}
		}
		dec := json.NewDecoder(strings.NewReader(string(content)))
		dec.UseNumber()
		if err := dec.Decode(&values); err != nil {
			return nil, fmt.Errorf("%w: content is not an object: %v", ErrElicitMalformed, err)
		}
	}
	dropEmpty(schema, values)
	if v := subset.ValidateContent(schema, values); len(v) > 0 {
		return nil, contentError(v)
	}
	if values == nil {
		values = map[string]any{}
	}
	return values, nil
}

func contentError(v []subset.Violation) *ContentError {
	e := &ContentError{Problems: make([]Problem, len(v))}
	for i, x := range v {
		e.Problems[i] = Problem{Property: x.Property, Message: x.Message}
	}
	return e
}

// Elicit asks the user of the tool call ctx belongs to to fill in the
// generated form T and returns the answer decoded and validated into a T.
// It compiles only for types elicitgen generated code for (their pointer
// implements formimpl.Form):
//
//	peer, err := runtime.Elicit[PeerForm](ctx, "Which peer?")
//
// ctx must be the handler's context, or one derived from it: it names the
// call, its session and the stream the question rides (ErrNoCall
// otherwise). The outcomes: nil on accept, otherwise ErrElicitDeclined,
// ErrElicitCanceled, a *ContentError, ... (errors.Is; see the package doc).
func Elicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context, message string, opts ...ElicitOption) (T, error) {
	var v T
	a, err := askerFrom(ctx)
	if err != nil {
		return v, err
	}
	protocol := a.protocol()
	if err := checkForm(protocol, a.caps().form); err != nil {
		return v, err
	}
	fc, err := prepareElicit[T, P](protocol, opts...)
	if err != nil {
		return v, err
	}
	ctx, ask := startAsk(ctx, a, "form", reflect.TypeFor[T]().Name(), fc.variant.Dropped)
	if fc.reasks == 0 {
		// The common case asks once; without the re-ask loop's closure
		// the static path allocates what it did before WithReask.
		res, err := askForm(ctx, a, fc.Key, message, fc.Schema)
		if err == nil {
			v, err = fc.Decode(res)
		}
		endAsk(ask, err, 0)
		return v, err
	}
	asks := 0
	v, err = fc.Ask(message, func(message string, schema json.RawMessage) (json.RawMessage, error) {
		asks++
		return askForm(ctx, a, fc.Key, message, schema)
	})
	endAsk(ask, err, max(asks-1, 0))
	return v, err
}

// formFor returns form T's variant for the protocol version of the call
// ctx belongs to, or why T cannot be asked there.
func formFor[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) (formimpl.Variant, error) {
	a, err := askerFrom(ctx)
	if err != nil {
		return formimpl.Variant{}, err
	}
	protocol := a.protocol()
	if err := checkForm(protocol, a.caps().form); err != nil {
		return formimpl.Variant{}, err
	}
	return formVariant(P(nil).ElicitForm(), protocol) // as in prepareElicit
}

// CanElicit reports whether the form T can be asked of the client of the
// tool call ctx belongs to: nil, or why not, an error matching
// ErrElicitUnsupported (the client did not declare form elicitation, or its
// protocol cannot express T: a required multi-select needs 2025-11-25, say)
// or ErrNoCall. A form whose optional properties the protocol cannot carry
// can be asked without them: CanElicit is nil, and Dropped[T] names them.
// Check it before Elicit[T] where a handler has another way on, such as a
// tool error asking for the missing argument:
//
//	if err := runtime.CanElicit[DeployForm](ctx); err != nil {
//		return runtime.ErrorResult("missing arguments: %v", err), nil
//	}
func CanElicit[T any, P interface {
	*T
	formimpl.Form
}](ctx context.Context) error {
	_, err := formFor[T, P](ctx)
	return err
}

// ClientSupportsElicit reports whether the client of the tool call ctx
// belongs to can be asked with a form: it declared the elicitation
// capability (form mode) and its protocol version has form elicitation.
// False for a ctx that belongs to no call. Handlers check it (or
// CanElicit[T], which also checks the form) first and fall back to a plain
// tool error, so a client without it never waits on a question.
func ClientSupportsElicit(ctx context.Context) bool {
	a, err := askerFrom(ctx)
	return err == nil && a.caps().form && hasFormElicitation(a.protocol())
}

// ClientSupportsElicitURL reports whether the client of the tool call ctx
// belongs to declared URL-mode elicitation (2025-11-25 and later). False
// for a ctx that belongs to no call.
func ClientSupportsElicitURL(ctx context.Context) bool {
	a, err := askerFrom(ctx)
	return err == nil && a.caps().url && hasElicitMode(a.protocol())
}

// ElicitOption is an option of Elicit[T]: [WithKey], [WithReask],
// [WithChoices] and [WithDefaults].
//
// Each elicitation takes the options that mean something to it, and the
// compiler refuses the others: an option has one unexported method per
// call it applies to, and each call takes its own option type
// (ElicitOption, [FormOption] for [ElicitSchema], [URLOption] for [ElicitURL]):
//
//	option        Elicit[T]  ElicitSchema  ElicitURL  returns
//	WithKey           ✓           ✓            ✓      CommonOption
//	WithReask         ✓           ✓                   FormOption
//	WithChoices       ✓                               ElicitOption
//	WithDefaults      ✓                               ElicitOption
//
// So ElicitURL(ctx, msg, url, WithReask(1)) does not compile ("FormOption
// does not implement URLOption (missing method applyToURL)").
type ElicitOption interface {
	applyToElicit(elicitOptions) elicitOptions
}

// FormOption is an option of both form-mode elicitations, Elicit[T] and
// [ElicitSchema]: [WithKey] and [WithReask]. ElicitSchema takes only these.
type FormOption interface {
	ElicitOption
	applyToSchema(elicitOptions) elicitOptions
}

// URLOption is an option of [ElicitURL]: [WithKey].
type URLOption interface {
	applyToURL(elicitOptions) elicitOptions
}

// CommonOption is an option of every elicitation, Elicit[T],
// [ElicitSchema] and [ElicitURL], and of [Sample] and [ListRoots]:
// [WithKey].
type CommonOption interface {
	FormOption
	URLOption
	RequestOption
}

type elicitOptions struct {
	key    string
	reasks int          // WithReask
	form   *formOptions // WithChoices and WithDefaults; nil without them
}

// optionsOf applies opts, each with apply (nil ones are skipped), to
// the defaults.
// The options pass elicitOptions by value, in and out: a pointer handed to
// an interface's method escapes, and would cost every call with options an
// allocation.
func optionsOf[O comparable](defaultKey string, opts []O, apply func(O, elicitOptions) elicitOptions) elicitOptions {
	o := elicitOptions{key: defaultKey}
	var none O
	for _, opt := range opts {
		if opt != none {
			o = apply(opt, o)
		}
	}
	return o
}

// WithKey sets the input-request key this elicitation uses in a 2026-07-28
// input_required round trip (default: the form's key, e.g. "peer_form",
// "url" for ElicitURL, "sampling" for Sample and "roots" for ListRoots;
// a form asked again in the same run is numbered: "peer_form_2", ...).
// The key is how a rerun finds its answer, so the default is right as long
// as the handler asks in the same order on every run; give a key where the
// order can change between runs (asks that depend on earlier answers).
// Every elicitation takes it: Elicit[T], ElicitSchema and ElicitURL, and
// so do Sample and ListRoots.
func WithKey(key string) CommonOption { return keyOption(key) }

type keyOption string

func (k keyOption) applyToElicit(o elicitOptions) elicitOptions { o.key = string(k); return o }
func (k keyOption) applyToSchema(o elicitOptions) elicitOptions { o.key = string(k); return o }
func (k keyOption) applyToURL(o elicitOptions) elicitOptions    { o.key = string(k); return o }

// askForm sends a form elicitation in call a and returns the client's raw
// result.
func askForm(ctx context.Context, a asker, key, message string, schema []byte) (json.RawMessage, error) {
	params := make([]byte, 0, len(schema)+len(message)+64)
	params = append(params, `{"message":`...)
	params = appendJSONString(params, message)
	if hasElicitMode(a.protocol()) {
		params = append(params, `,"mode":"form"`...)
	}
	params = append(params, `,"requestedSchema":`...)
	params = append(params, schema...)
	params = append(params, '}')
	return a.ask(ctx, key, params)
}

// ElicitURL asks the user of the tool call ctx belongs to to visit url (URL
// mode, 2025-11-25 and 2026-07-28: for what form mode must not ask, like
// credentials or payment). It returns nil when the user accepted to open
// it, with the elicitation id to pass to Session.CompleteURLElicitation
// once the out-of-band interaction is done; decline and cancel are
// ErrElicitDeclined and ErrElicitCanceled, a ctx of no call ErrNoCall. On
// 2026-07-28 the ask is an input_required round trip keyed "url" (WithKey
// sets another); that protocol has no elicitation ids, and the id returned
// is only the handler's own.
func ElicitURL(ctx context.Context, message, url string, opts ...URLOption) (elicitationID string, err error) {
	a, err := askerFrom(ctx)
	if err != nil {
		return "", err
	}
	switch protocol := a.protocol(); {
	case !hasElicitMode(protocol):
		return "", unsupportedf("protocol %s has no URL elicitation", protocol)
	case !a.caps().url:
		return "", &MissingCapabilityError{Mode: "url"}
	}
	elicitationID = newID()
	id := elicitationID
	if a.roundTrip() {
		id = "" // 2026-07-28 has no elicitation ids
	}
	params := urlParams(message, url, id)
	ctx, ask := startAsk(ctx, a, "url", "", nil)
	// The key must be the same on every run of the handler: a retry's answer
	// is found by it.
	res, err := a.ask(ctx, optionsOf(urlKey, opts, URLOption.applyToURL).key, params)
	if err == nil {
		_, err = elicitOutcome(res, false)
	}
	endAsk(ask, err, 0)
	if err != nil {
		return "", err
	}
	return elicitationID, nil
}

// urlParams are the elicitation/create params of a URL-mode ask; an empty
// elicitationID is left out.
func urlParams(message, url, elicitationID string) []byte {
	params := make([]byte, 0, len(message)+len(url)+len(elicitationID)+64)
	params = append(params, `{"mode":"url","message":`...)
	params = appendJSONString(params, message)
	if elicitationID != "" {
		params = append(params, `,"elicitationId":`...)
		params = appendJSONString(params, elicitationID)
	}
	params = append(params, `,"url":`...)
	params = appendJSONString(params, url)
	return append(params, '}')
}

// urlKey is the input-request key of URL elicitations on 2026-07-28.
const urlKey = "url"

// CompleteURLElicitation tells the client (notifications/elicitation/complete,
// 2025-11-25) that the URL-mode interaction with this id has finished. It
// rides the stream of the call ctx belongs to, which must be one of this
// session's (ErrNoCall otherwise; on 2026-07-28, whose sessions are a view
// of one request, it does nothing).
func (s *Session) CompleteURLElicitation(ctx context.Context, elicitationID string) error {
	c, err := callFrom(ctx)
	if err != nil {
		return err
	}
	if s == nil || c.session != s {
		return fmt.Errorf("%w: the call is not one of this session's", ErrNoCall)
	}
	if s.protocol != Version20251125 {
		return nil // the notification exists only in 2025-11-25
	}
	return c.notify("notifications/elicitation/complete", map[string]string{"elicitationId": elicitationID})
}

// URLElicitationRequired returns the error a handler returns when the call
// cannot go on until the user has completed these URL elicitations (a
// sign-in, say) and the call is retried. What the client gets depends on
// its protocol:
//
//   - 2025-11-25 with the url capability: the -32042 error, listing them.
//   - 2026-07-28 with the url capability: an input_required result asking
//     each as a URL-mode elicitation (keys "url_required", "url_required_2",
//     ...); the handler runs again on the retry. When the user declined or
//     canceled one, the call ends with an isError result; when the user
//     accepted them all and the handler still returns this error, they are
//     asked again.
//   - 2026-07-28 without it: -32021 naming the url capability.
//   - any other session: an isError result with message, since the client
//     cannot be sent URLs.
func URLElicitationRequired(message string, elicitations ...URLElicitation) *RPCError {
	items := make([]map[string]string, len(elicitations))
	for i, e := range elicitations {
		items[i] = map[string]string{"mode": "url", "elicitationId": e.ElicitationID, "url": e.URL, "message": e.Message}
	}
	data, _ := json.Marshal(map[string]any{"elicitations": items})
	return &RPCError{Code: CodeURLElicitationRequired, Message: message, Data: data}
}

// URLElicitation is one URL the user must visit (see URLElicitationRequired).
type URLElicitation struct {
	ElicitationID string
	URL           string
	Message       string
}

// urlRequiredKey is the input-request key of the URL elicitations of a
// URLElicitationRequired on 2026-07-28.
const urlRequiredKey = "url_required"

// urlRequired is what a handler's -32042 error becomes for the session it
// ran on (see URLElicitationRequired): the error itself, an isError result,
// -32021, or (2026-07-28) the URL asks recorded in the run, which the caller
// turns into input_required.
func urlRequired(s *Session, e *RPCError) (*CallToolResult, *RPCError) {
	switch {
	case !hasElicitMode(s.protocol):
		return ErrorResult("%s (this needs a URL interaction, which protocol %s cannot ask for)", e.Message, s.protocol), nil
	case s.inputRun == nil && s.caps.url:
		return nil, e
	case !s.caps.url && s.inputRun != nil:
		return nil, (&MissingCapabilityError{Mode: "url"}).RPCError()
	case !s.caps.url:
		return ErrorResult("%s (this needs a URL interaction; the client did not declare URL elicitation)", e.Message), nil
	}
	var data struct {
		Elicitations []struct {
			URL     string `json:"url"`
			Message string `json:"message"`
		} `json:"elicitations"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || len(data.Elicitations) == 0 {
		return nil, rpcErrorf(CodeInternalError, "a URL-elicitation-required error with no elicitations in its data: %s", e.Message)
	}
	// Keys are positional: the same list on every run finds its answers.
	// A pass whose keys were all answered with accept means the handler
	// still needs them: the next pass asks them again under the next keys.
	// Each input_required round can answer one pass (only the keys a round
	// asked are answered), so more passes than rounds end the call.
	asks := make([][]byte, len(data.Elicitations))
	for i, el := range data.Elicitations {
		asks[i] = urlParams(el.Message, el.URL, "")
	}
	for pass := 0; ; pass++ {
		if pass > s.inputRun.Round()+1 {
			return ErrorResult("%s (the URL interaction is still not complete)", e.Message), nil
		}
		for _, params := range asks {
			ans, ok := s.inputRun.Ask(urlRequiredKey, params)
			if !ok {
				continue
			}
			if _, err := elicitOutcome(ans, false); err != nil {
				return ErrorResult("%s: %v", e.Message, err), nil
			}
		}
		if len(s.inputRun.Requests()) > 0 {
			return nil, nil // asked: input_required
		}
	}
}

// ask sends an elicitation/create request with params and waits for the
// client's answer: in an initialized session as a request on the call's SSE stream,
// on a 2026-07-28 request through the input_required round trip.
func (s *Session) ask(ctx context.Context, c *call, key string, params []byte) (json.RawMessage, error) {
	return s.request(ctx, c, key, "", params)
}

// request is ask for a request of method ("" is elicitation/create;
// "sampling/createMessage", "roots/list"): the one path every server
// request of a call takes, with the same correlation, limits, timeout and
// input_required round.
func (s *Session) request(ctx context.Context, c *call, key, method string, params []byte) (json.RawMessage, error) {
	if s.inputRun != nil {
		if ans, ok := s.inputRun.AskMethod(key, method, params); ok {
			return ans, nil
		}
		return nil, ErrInputRequired
	}
	if !c.sink.canSend() {
		return nil, unsupportedf("%v", errCannotStream)
	}
	id := s.srv.elicitID()
	p := newPendingElicit()
	s.mu.Lock()
	switch {
	case s.closed:
		err := s.closeErr
		s.mu.Unlock()
		return nil, err
	case len(s.pending) >= s.srv.opts.MaxPendingElicitations:
		s.mu.Unlock()
		return nil, fmt.Errorf("%w (%d)", ErrElicitTooMany, s.srv.opts.MaxPendingElicitations)
	}
	s.pending[id] = p
	s.mu.Unlock()
	defer func() { // every exit frees the entry
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()

	frame := make([]byte, 0, len(params)+len(id)+72) // the text around them is 65 bytes
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = appendJSONString(frame, id)
	frame = append(frame, `,"method":"`...)
	frame = append(frame, wireMethod(method)...)
	frame = append(frame, `","params":`...)
	frame = append(frame, params...)
	frame = append(frame, '}')
	if err := c.sink.send(frame); err != nil {
		return nil, fmt.Errorf("elicit: sending the request: %w", err)
	}

	var timeout <-chan time.Time
	if d := s.srv.opts.ElicitTimeout; d > 0 {
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > d {
			t := time.NewTimer(d)
			defer t.Stop()
			timeout = t.C
		}
	}
	// The handler's own context, without a child yet, is not made one for
	// the wait (handlerCtx.await): a cancel of the call resolves p instead,
	// and the wait watches what the child would (parent, and a resumable
	// call's connection). Any other context is waited on through its Done.
	var ctxDone, connDone <-chan struct{}
	if h := c.own; h != nil && ctx == context.Context(h) && h.await(p) {
		defer h.unawait(p)
		ctxDone = h.parent.Done()
		if sk, ok := c.sink.(*httpSink); ok {
			connDone = sk.connDone()
		}
	} else {
		ctxDone = ctx.Done()
	}
	for {
		select {
		case <-p.done:
			if p.reply.err != errWaitCanceled {
				return p.reply.outcome()
			}
		case <-ctxDone:
			select {
			case <-p.done: // answered (or the session closed) at the same time
				if p.reply.err != errWaitCanceled {
					return p.reply.outcome()
				}
			default:
			}
		case <-connDone: // a dropped connection detaches a kept stream, or cancels the call
			connDone = nil
			c.sink.(*httpSink).connectionGone()
			continue
		case <-timeout:
			s.cancelRequest(c, id, wireMethod(method)+" timed out")
			return nil, timeoutError{}
		case <-s.stopping():
			return nil, shutdownError{}
		}
		s.cancelRequest(c, id, "the tool call ended")
		return nil, ctxError(ctx)
	}
}

// cancelRequest tells the client the server gave up on its request (not
// when the session is over: then nobody is there to tell).
func (s *Session) cancelRequest(c *call, id, reason string) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = c.notify("notifications/cancelled", map[string]any{"requestId": id, "reason": reason})
}

// ctxError is the context's error, carrying its cause when there is one
// (a client's notifications/cancelled, a closed session): errors.Is matches
// both ctx.Err() and the cause.
func ctxError(ctx context.Context) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return &causeError{err: err, cause: cause}
	}
	return err
}

type causeError struct{ err, cause error }

func (e *causeError) Error() string   { return e.err.Error() + ": " + e.cause.Error() }
func (e *causeError) Unwrap() []error { return []error{e.err, e.cause} }
