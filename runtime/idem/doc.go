// Package idem is the core of the idempotency runtime: the operation
// contract value, idempotency-key parsing, the atomic-mode executor that
// claims a key, runs the business function and stores its response in one
// PostgreSQL transaction, and the net/http adapter that speaks the HTTP
// behaviour of DESIGN.md section 3 (problem+json, replays, 409/422).
//
// It is the execution stage of the runtime, called by generated handlers.
// It depends on the standard library, pgx, runtime/fingerprint and
// runtime/pgstore; it must not import the generator, the spec packages or
// any test helper.
package idem
