// Package schema is the runtime's database schema: the idempotency records,
// the outbox of side effects, the natural-key claims and the schema's
// version, as a sequence of numbered steps that only grow. A released step
// never changes; the schema changes by a new step, which records its number
// in the database. The generator emits one migration per step (goose,
// golang-migrate or plain files); services that migrate at start call
// Migrate instead, and the executor calls Require to refuse a schema older
// than Version.
//
// It depends on pgx and on its steps (package runtime/schema/steps, which
// the generator reads without pgx) only, and must not import the executor,
// the generator or the spec packages.
package schema
