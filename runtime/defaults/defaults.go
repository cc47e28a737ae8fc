// Package defaults is the one table of an idempotency contract's built-in
// values: what a contract means where neither the operation's
// x-idempotency block nor the document's x-idempotency-defaults say
// otherwise. Package spec applies it when it merges a contract; the
// runtime reads a zero field of its contract value as exactly this value,
// so the two sides cannot disagree.
//
// It is a leaf: the standard library only.
package defaults

import "time"

// The built-in values of a contract's fields.
const (
	// KeyHeader is the header that carries the idempotency key.
	KeyHeader = "Idempotency-Key"
	// KeyRequired says a request without a key is refused with 400.
	KeyRequired = true
	// KeyMaxLength is the longest key accepted, in bytes.
	KeyMaxLength = 255
	// Retention is how long the full record and its stored response are
	// kept.
	Retention = 24 * time.Hour
	// Tombstone is how long the compact record stays after retention; a
	// late retry in that period is refused, never re-run.
	Tombstone = 30 * 24 * time.Hour
	// Concurrency is the policy for a duplicate while the first attempt
	// runs: it waits for the result.
	Concurrency = "wait"
	// WaitTimeout bounds that wait; then 409 with Retry-After.
	WaitTimeout = 5 * time.Second
	// Replay answers a completed retry with the stored response.
	Replay = "stored"
	// Mode runs the operation in one transaction.
	Mode = "atomic"
	// Lease is how long a phased attempt may hold the operation.
	Lease = 30 * time.Second
)

// StoreFailures returns the built-in store-failures: business refusals
// (4xx) are final, so a retry gets the same refusal instead of running the
// operation again; 5xx and errors always free the key. Each call returns a
// new slice.
func StoreFailures() []string { return []string{"4xx"} }
