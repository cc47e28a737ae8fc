// Package outbox executes the effects operations enqueue: a worker claims
// due outbox rows with FOR UPDATE SKIP LOCKED under a lease with a fencing
// token, calls the effect's provider with the effect's stable key, and
// records the outcome only while its token is still the row's, applying
// the effect's policy (retry, verify, halt) to an unknown outcome.
// runtime/idem is its face.
package outbox
