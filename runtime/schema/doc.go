// Package schema is the runtime's database schema: the DDL of the
// idempotency records, the outbox of side effects and the natural-key
// claims, which the generator emits as migrations and Migrate applies.
//
// It depends on pgx only and must not import the executor, the generator or
// the spec packages.
package schema
