package idem

import (
	"net/http"

	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// ScopeFunc returns the trusted scope (tenant, principal) of a request,
// from authentication the server already did, never from the request body.
// Keys live in their scope: the same key in two scopes is two operations.
// An *Unauthenticated error (possibly wrapped) answers 401
// authentication-required; any other error answers 403 scope-unavailable
// and its text is never sent.
type ScopeFunc func(*http.Request) (string, error)

// Unauthenticated is the error a ScopeFunc returns for a request that
// carries no credential it accepts: answered 401 authentication-required,
// with its Challenge as the WWW-Authenticate field (required: without one
// the answer is the 403 of any other error) and its Detail, sent to the
// client as written, as the problem's detail. Say what the request lacks
// ("Send Authorization: Bearer <token>."), nothing that helps guess a
// credential. Nothing of the request is read or run.
type Unauthenticated = httpapi.Unauthenticated
