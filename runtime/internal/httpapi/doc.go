// Package httpapi is the HTTP face of the transport-neutral executor in
// runtime/internal/core: it reads the idempotency key and the trusted
// scope from a request, decodes parameters and the body into an
// Attempt, runs it through core.Execute, and writes the Outcome (or a
// problem+json rejection naming the field) back to the client. Phased
// operations are driven step by step by NewPhasedHandler.
package httpapi
