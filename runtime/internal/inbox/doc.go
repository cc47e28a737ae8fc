// Package inbox is the idempotent consumer (transactional inbox) of the
// idempotency runtime, internal to it: a message, delivered by a webhook
// sender or a broker at least once, has its handler's changes committed
// once.
//
// Deliver runs the handler in a transaction of its own and writes the
// message's inbox row, keyed by (source, consumer, message id), in that
// same transaction, so the row exists exactly when the changes do:
//
//   - a message already processed is answered Duplicate without running
//     the handler (one round trip: the bound and the read, an implicit
//     transaction of their own);
//   - a handler that fails leaves nothing of its changes; the attempt is
//     counted in the inbox row in a short transaction of its own, and the
//     message is to be redelivered (Retry) until the consumer's
//     MaxAttempts are spent; then it is dead (DeadLettered), kept with
//     its body for support, and acknowledged;
//   - the same id with another body (its SHA-256 differs from the one the
//     row keeps) is refused (Mismatch) and never runs;
//   - two deliveries of one message at once, from any number of processes
//     and pools: a transaction-level advisory lock on the message lets one
//     run, the other waits (bounded by WaitTimeout, then ErrBusy) and
//     then finds the first one's row. The primary key stays the final
//     arbiter.
//
// Every lock wait of the first read, of the claim and of counting a
// failed attempt, for a concurrent delivery and for a lock on the inbox
// table itself (DDL,
// VACUUM FULL, LOCK TABLE in another session), is bounded on the server:
// lock_timeout, set by pgstore's BoundLockWaits first in the same round
// trip, is what is left of the delivery's WaitTimeout, or less when the
// delivery's deadline is nearer (core.WaitBound): the waits before the
// handler runs (the first read, the claim's preparation, the claim and
// its read again) share one WaitTimeout from the moment the delivery has
// its connection, as an HTTP attempt's wait for a concurrent one does,
// and counting a failed attempt, after the handler, has one of its own.
// The server ends the wait there, and the delivery is
// answered ErrBusy (the deadline's error when the deadline bounded it):
// nothing was done or counted, the message is to be redelivered. A
// broker adapter's context has no end, and a webhook's only the client's
// going away: neither ends a wait the server does not. The statements'
// preparation is bounded alike: under pgx's default exec mode each
// bounded batch of a delivery, the first time a connection sends it,
// prepares its statements there, by name, in a transaction bounded at the
// same wait (pgstore.PrepareBounded; the claim's before the claim's
// transaction), and a failed batch does not drop them, so neither a new
// connection nor a redelivery after a wait the server ended waits for an
// ACCESS EXCLUSIVE lock, or for a SHARE lock (the claim's INSERT), in a
// preparation round trip of pgx's. Under QueryExecModeExec and the simple protocol a
// statement is parsed after the bound, in the same round trip; under
// QueryExecModeCacheDescribe and QueryExecModeDescribeExec its
// description round trip still waits under the session's lock_timeout.
// A delivery holds one pool connection from its first read to its last
// statement.
//
// A new message takes four round trips besides the handler's statements:
// the bound and the read that answers duplicates, BEGIN, one batch of the bound, the
// lock and the inbox row's INSERT that claims the message under the lock
// before the handler runs (a row decided meanwhile is not claimed, and
// read for the answer; the INSERT puts the previous lock_timeout back for
// the handler), and COMMIT.
//
// The attempt counter is the inbox row's, never the broker's (a broker's
// delivery count is a hint: RabbitMQ 4.3 changed what it counts).
//
// An adapter acknowledges a message only after Deliver returned, and only
// when the Outcome says so (Outcome.Ack): Processed and Duplicate after
// the commit, DeadLettered and Mismatch because redelivering cannot help;
// Retry and an error mean redeliver.
//
// The inbox's times (received, updated, processed, the end of retention)
// are the database's now(), as a record's deadlines are, and the sweep
// deletes processed rows by now(): a host whose clock is off answers a
// redelivery as the others do and has nothing deleted early.
//
// Effects the handler enqueues (through the core.Operation it is given)
// go to the outbox as an operation's do, under an operation id derived
// from the message's key, so their keys are stable across deliveries.
//
// It depends on the standard library, pgx and the runtime's core, tables
// and schema packages; it must not import net/http, the generator, the
// spec packages or any test helper.
package inbox
