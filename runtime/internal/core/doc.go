// Package core is the idempotency runtime's transport-neutral executor. It
// knows keys, scopes, fingerprints, attempts and outcomes, and nothing of
// HTTP, brokers or generated code: an adapter (runtime/internal/httpapi
// for net/http, and message consumers and phased steps after it) reads a
// request of its transport into an Attempt and a Func, and renders the
// Result back.
//
// An attempt claims its key in its scope with its fingerprint. The Func
// then runs in a transaction that also holds the claim, and decides how
// the attempt ends (Decision):
//
//   - Complete: the Outcome, opaque to the core (a code, a JSON meta
//     document and a body the adapter reads back), is stored with the
//     record and committed with the business changes; a retry with the
//     same fingerprint gets it back, Replayed.
//   - Fail: the business changes roll back to a savepoint and the Outcome
//     is stored as a failure, answered to every retry the same way.
//   - Release: everything rolls back and the key is free again; the
//     Outcome goes to this caller only.
//   - Checkpoint: the business changes commit with a recovery point (a
//     name and a state) and the record, now in progress under a lease and
//     a fencing token; the Func runs again in a new transaction, which
//     commits only while the token still holds. A crashed attempt's
//     operation is taken over by a retry once the lease has run out on the
//     database's clock, with a new token, and resumes from the last
//     recovery point (Operation.Resumed); the old attempt can no longer
//     commit anything.
//
// A retry of an operation already decided is answered from its record: a
// replay, or a refusal (RefusalError) wrapping ErrFingerprintMismatch,
// ErrInProgress, ErrExpired or ErrRequiresRecovery.
//
// It depends on the standard library, pgx and the runtime's leaf packages
// (defaults, fingerprint, idemkey, faults, pgstore, schema); it must not
// import net/http, the generator, the spec packages, the faces or any
// test helper.
//
// # Decisions
//
// Two store protocols (Protocol), chosen once per executor; ProtocolAuto
// reads version() before the first operation and takes the advisory
// protocol on PostgreSQL, claim-first elsewhere.
//
// Advisory (advisory.go, pgstore's advisory.go): one pipeline reads the
// record, takes pg_advisory_xact_lock on the key's 64-bit hash (bounded by
// lock_timeout at wait-timeout; pg_try_advisory_xact_lock under reject),
// reads the record again and only then sends BEGIN. A hit ends the
// pipeline with an error before BEGIN, so a replay is one round trip; a
// record found by the second read was committed while the lock was
// awaited and is answered without running the Func. The record is
// inserted once, decided, with COMMIT; its primary key stays the final
// arbiter (a unique violation rolls back and answers from the committed
// record). No row of a running operation exists anywhere until its first
// checkpoint.
//
// Claim-first (claimfirst.go), the portable one: INSERT … ON CONFLICT DO
// NOTHING on (scope, key), sent in one batch with BEGIN and, when the
// policy stores failures, the business savepoint; only a claim that does
// not take the key reads the holder's record, in the batch that rolls
// back. A duplicate blocks on the primary key until the first transaction
// ends; lock_timeout, set by a statement of its own just before the claim
// in the same batch (a lock on the table itself is taken when the claim is
// bound, before anything in it runs) and put back by the claim, bounds
// that wait at wait-timeout (SQLSTATE 55P03 becomes ErrInProgress). Reject
// mode is the same path with a 1 ms lock_timeout: no dependency on
// advisory locks, which CockroachDB lacks.
//
// After a checkpoint both protocols are one: the record exists, each step
// begins by renewing the lease under its fencing token (which also locks
// the record's row until the step commits, so a takeover waits for a
// running step instead of racing it), and the end updates the record under
// the token.
//
// One clock decides, the database's: a record's deadlines are computed
// from now() when it is written, expiry compares them with the time the
// database read the record when a retry arrives (never whether the
// sweeper has run), and leases and sweeps are now()'s too, so a host
// whose clock is skewed answers as any other. A record past its tombstone
// period stays expired until the sweeper deletes it; the key is then free
// again. The injected Clock only measures how long a cached replay stays
// valid (replaycache.go) and is compared with the database's to log a
// skew.
//
// A panic in the Func or a fault hook rolls the transaction back, freeing
// the key (or, after a checkpoint, leaving the operation to a takeover),
// and is then propagated unchanged: the executor does not hide bugs.
//
// EventWaited is reported for a replay of a record completed after this
// attempt started, on the database's clock (the read's time less the time
// the attempt has run): the first attempt was still running when the
// duplicate arrived, so the duplicate waited for it.
package core
