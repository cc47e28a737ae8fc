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
// server: Run's context has no deadline. The bound reaches the
// statement's preparation too: under pgx's default exec mode the worker
// prepares each statement by name on a connection the first time it
// sends it there, in a transaction bounded alike (pgstore.PrepareBounded),
// and a failed batch does not drop it, so neither a new connection nor a
// retry after a wait the server ended waits for a table's lock in a
// preparation round trip of pgx's. Under QueryExecModeExec and the simple
// protocol the statement is parsed after the bound, in the same round
// trip; under QueryExecModeCacheDescribe and QueryExecModeDescribeExec
// its description round trip still waits under the session's
// lock_timeout.
package outbox
