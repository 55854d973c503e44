package runtime

import (
	"context"
	"fmt"
	"net/http"
)

// Who calls: Options.Authenticate names the subject of every HTTP request,
// and sessions and requestStates are bound to it.

// maxSubjectBytes caps a subject from Options.Authenticate.
const maxSubjectBytes = 1024

// subjectKey carries Options.Authenticate's subject in a request context.
type subjectKey struct{}

func subjectOf(r *http.Request) string {
	s, _ := r.Context().Value(subjectKey{}).(string)
	return s
}

// authenticate runs Options.Authenticate, when set, and returns r carrying
// the subject; it answers 401 itself when it returns false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if s.opts.Authenticate == nil {
		return r, true
	}
	subject, err := s.opts.Authenticate(r)
	if err == nil && len(subject) > maxSubjectBytes {
		// Sessions and requestStates keep the subject: its size must
		// not be the client's to choose (a raw token as the subject).
		err = fmt.Errorf("Options.Authenticate returned a subject of %d bytes, more than %d: return a short identifier (a user id or a hash)", len(subject), maxSubjectBytes)
	}
	if err != nil {
		httpError(w, http.StatusUnauthorized, CodeInvalidRequest, "unauthorized: "+err.Error())
		return r, false
	}
	return r.WithContext(context.WithValue(r.Context(), subjectKey{}, subject)), true
}
