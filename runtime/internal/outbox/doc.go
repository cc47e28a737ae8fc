// Package outbox executes the effects operations enqueue: a worker claims
// due outbox rows with FOR UPDATE SKIP LOCKED, several in one statement,
// under a lease with a fencing token, calls each effect's provider with
// the effect's stable key, concurrently up to its bound, and records the
// outcomes in batches, each row only while its token is still the row's,
// applying the effect's policy (retry, verify, halt) to an unknown
// outcome. runtime/idem is its face.
//
// Every statement of a worker goes after pgstore's BoundLockWaits in one
// round trip (see Worker.bounded), so that a lock on its tables (DDL,
// VACUUM FULL, LOCK TABLE in another session) holds a claim, a gauge
// reading, a record or a release no longer than its bound, ended by the
// server: Run's context has no deadline. The bound does not reach a
// statement's preparation, which pgx sends in a round trip of its own the
// first time a connection uses it and again after a statement of it
// failed (pgx then drops the prepared statements of the failed batch):
// that waits for a table's lock under the session's lock_timeout.
package outbox
