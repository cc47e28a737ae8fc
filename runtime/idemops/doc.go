// Package idemops is the support library of the idempotency runtime: what
// a person (or a view built for one) may see of, and do to, what the
// runtime stored. Every view reads through it: `idemgen ops`, a web
// console and a client-facing status route, so that they show the same
// states and the same key hashes.
//
// It holds typed reads of operations (idempotency records: scope, key,
// state, operation id, stored status and timestamps, the progress of one
// that commits recovery points, with their effects) and of effects (outbox
// rows: attempts, lease holder and expiry), with support's audit trail of
// both; the two audited actions on an effect that waits for a person,
// Resolve (to done or failed) and Retry; and the two on an operation
// halted on an unknown outcome, Resume (the service calls again from its
// last recovery point) and ResolveOperation (completed with an answer, or
// failed with a problem, which every later retry receives). All keep the
// state model: only an effect in requires_recovery or dead, and an
// operation in requires_recovery, moves, and its audit row, with a
// mandatory actor and reason, is written in the same transaction.
//
// States are derived once, on the database's clock, for every view
// (OperationState, EffectState, and the LeaseState of an operation in
// progress after a recovery point). Keys are found in either form a client
// sends them (a bare token, or a Structured Field string such as "abc")
// and shown as the keyed hash the executor logs as key_hash, computed with
// the deployment's secret (Config.KeyHashSecret); never in clear unless
// Config.ShowKeys asks for it. Find looks an operation up by scope and key
// without reaching any other scope, as a status route must.
//
// Its SQL is in queries/, compiled by sqlc into internal/sqlcdb from the
// schema steps of runtime/schema; tables are named in the configured
// schema by runtime/internal/tables. It depends on the standard library,
// pgx and the runtime's internal packages; it must not import the
// generator, the spec packages, cmd/idemgen or a test helper, and the
// packages generated code imports (runtime/idem, runtime/idemimpl) must
// not import it.
package idemops
