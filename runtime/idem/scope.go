package idem

import "net/http"

// ScopeFunc returns the trusted scope (tenant, principal) of a request,
// from authentication the server already did, never from the request body.
// Keys live in their scope: the same key in two scopes is two operations.
// An error answers 403 scope-unavailable.
type ScopeFunc func(*http.Request) (string, error)
