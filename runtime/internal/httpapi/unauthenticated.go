package httpapi

import (
	"errors"
	"fmt"
	"net/http"
)

// Unauthenticated is the error a scope function returns for a request
// that carries no credential it accepts (none, or one it cannot read): the
// request is answered 401 authentication-required with Challenge as its
// WWW-Authenticate field and Detail as the problem's detail, instead of
// the 403 scope-unavailable of any other error, whose text the runtime
// never sends. Detail goes to the client as written: say what the request
// lacks ("Send Authorization: Bearer <token>."), nothing of why a given
// credential was refused that would help guess one. Challenge is required
// (RFC 9110 section 11.6.1: a 401 carries at least one challenge); an
// Unauthenticated without one answers 403 as any other error.
type Unauthenticated struct {
	// Challenge is the WWW-Authenticate field value, such as
	// `Bearer realm="payments"`.
	Challenge string
	// Detail is the problem's detail, sent to the client.
	Detail string
}

// Error describes the refusal.
func (e *Unauthenticated) Error() string { return "idem: unauthenticated: " + e.Detail }

// scopeFailed is the request error of a scope function's error err: an
// *Unauthenticated with its challenge as it is, any other error wrapped in
// errScope with its text kept for the log only.
func scopeFailed(err error) error {
	if ua := (*Unauthenticated)(nil); errors.As(err, &ua) && ua.Challenge != "" {
		return ua
	}
	return fmt.Errorf("%w: %v", errScope, err)
}

// unauthenticatedProblem is the answer to ua.
func unauthenticatedProblem(ua *Unauthenticated) *Problem {
	return &Problem{Type: ProblemUnauthenticated, Title: "Authentication required", Status: http.StatusUnauthorized,
		Detail: ua.Detail, accept: []string{ua.Challenge}, acceptHeader: "WWW-Authenticate"}
}
