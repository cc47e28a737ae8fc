// Package outbox executes the effects operations enqueue: a worker claims
// due outbox rows with FOR UPDATE SKIP LOCKED, several in one statement,
// under a lease with a fencing token, calls each effect's provider with
// the effect's stable key, concurrently up to its bound, and records the
// outcomes in batches, each row only while its token is still the row's,
// applying the effect's policy (retry, verify, halt) to an unknown
// outcome. runtime/idem is its face.
package outbox
