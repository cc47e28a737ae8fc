// Package pgstore is the PostgreSQL store of the idempotency runtime: the
// idempotency_record schema (an embedded migration), the SQL protocol of a
// claim, a lookup and a completion as statements to pipeline in a pgx.Batch,
// and the retention sweeper.
//
// Its queries are compiled by sqlc v1.31.1 from schema/ and queries/ into
// internal/sqlcdb; the executor sends the same sqlc-verified SQL constants.
// It is the storage stage of the runtime: it depends on pgx only and must
// not import the executor (runtime/idem), the generator or the spec packages.
package pgstore
