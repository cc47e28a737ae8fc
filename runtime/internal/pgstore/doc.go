// Package pgstore is the PostgreSQL store of the idempotency runtime, internal
// to it: the SQL of the two store protocols as statements to pipeline in a
// pgx.Batch (the advisory protocol's opening pipeline and record insert,
// advisory.go; the claim-first protocol's claim, lookup and completion,
// store.go), effect enqueueing, natural-key claims and the retention
// sweeper.
//
// Its queries are compiled by sqlc v1.31.1 from runtime/schema's steps and queries/ into
// internal/sqlcdb; the executor sends the same sqlc-verified SQL constants.
//
// Portability: the table leads its key with the scope, for distribution by
// scope. The SQL is plain INSERT … ON CONFLICT, row-value IN and FOR UPDATE
// SKIP LOCKED, which Citus and YugabyteDB accept as PostgreSQL does. The
// advisory protocol is PostgreSQL's (pg_advisory_xact_lock, and a BEGIN
// after statements of a pipeline's implicit transaction). The part of the
// claim-first protocol to verify per engine and version is its wait bound:
// set_config on lock_timeout plus a custom setting (idem.saved_lock_timeout)
// to restore it; CockroachDB's support for lock_timeout, custom settings and
// SKIP LOCKED has changed across releases, and it has not been tested here.
//
// It is the storage stage of the runtime: it depends on pgx only and must
// not import the executor (runtime/idem), the generator or the spec packages.
package pgstore
