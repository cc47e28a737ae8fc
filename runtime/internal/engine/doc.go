// Package engine is the idempotency runtime's implementation: the
// operation contract value, idempotency-key parsing, the atomic-mode
// executor that takes a key, claims the entity's natural key, runs the
// business function and stores its response in one PostgreSQL transaction,
// and the net/http adapter that speaks the HTTP behaviour of DESIGN.md
// section 3 (problem+json, replays, 409/422).
//
// It is internal. Services see it through runtime/idem (the executor, its
// configuration, business refusals, sentinel errors, events), generated
// code through runtime/idemimpl (the contract value, the typed handler),
// and the runtime's own tests install fault hooks with InstallFaults.
//
// The executor owns every database step of an operation; the HTTP adapter
// only reads the request (key, body, scope, path parameters), decodes and
// fingerprints it and renders the natural key, so the typed and the
// raw-body path, protected or not, run the same steps: claim, natural key,
// business function, refusal handling, stored response.
//
// It depends on the standard library, pgx, runtime/defaults,
// runtime/fingerprint, runtime/jsonpointer, runtime/internal/pgstore and
// runtime/internal/faults; it must not import the generator, the spec
// packages, the faces or any test helper.
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
// awaited and is answered without running the business function. The
// record is inserted once, completed, with COMMIT; its primary key stays
// the final arbiter (a unique violation rolls back and answers from the
// committed record). No row of a running operation exists anywhere.
//
// Claim-first (claimfirst.go), the portable one: INSERT … ON CONFLICT DO
// NOTHING on (scope, key), sent in one batch with BEGIN and, when the
// contract stores failures, the business savepoint; only a claim that does
// not take the key reads the holder's record, in the batch that rolls
// back. A duplicate blocks on the primary key until the first transaction
// ends; lock_timeout, set for the claim statement only, bounds that wait
// at wait-timeout (SQLSTATE 55P03 becomes 409 with Retry-After). Reject
// mode is the same path with a 1 ms lock_timeout: no dependency on
// advisory locks, which CockroachDB lacks. Its cost: any other lock wait
// of the claim over 1 ms (a contended relation extension lock under heavy
// inserts) also answers 409, which the client retries after Retry-After.
//
// Expiry is decided from the injected Clock when a retry arrives, never from
// whether the sweeper has run. A record past its tombstone period stays
// expired until the sweeper deletes it; the key is then free again.
//
// A panic in the business function or a fault hook rolls the transaction back,
// freeing the key, and is then propagated unchanged: the executor does not
// hide bugs, and net/http (or a recovery middleware) turns it into a closed
// connection or a 500 as for any other handler.
//
// EventWaited is reported for a replay of a record completed after this
// request started by the executor's clock: the first request was still
// running when the duplicate arrived, so the duplicate waited for it.
package engine
