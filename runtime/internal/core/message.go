package core

import (
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A message consumer (runtime/internal/inbox) runs its handlers on an
// executor's pool, schema and clock, and hands them an Operation and a
// transaction as the executor hands a Func its own: effects enqueued by a
// consumer go through the same outbox with the same keys, and the handler
// cannot end the transaction it was given. These are functions, not
// methods, so that runtime/idem's Executor, which embeds *Executor, does
// not expose them.

// PoolOf returns the pool e runs on.
func PoolOf(e *Executor) *pgxpool.Pool { return e.pool }

// SchemaOf returns the schema of e's tables, "" for the search_path.
func SchemaOf(e *Executor) string { return e.schemaName }

// ClockOf returns e's clock.
func ClockOf(e *Executor) Clock { return e.clock }

// LoggerOf returns e's logger.
func LoggerOf(e *Executor) *slog.Logger { return e.log }

// MessageOperation returns the Operation of a consumed message's handler:
// named name (the consumer), in scope (the message's source), with key
// (the message's id) and id, the operation id derived from all three so
// that the keys of the effects it enqueues are stable across deliveries.
// trace is the message's trace context, "" for none.
func MessageOperation(e *Executor, name, scope, key string, id [16]byte, trace string) *Operation {
	return &Operation{ID: formatUUID(id), Name: name, Scope: scope, Key: key, id: id,
		store: e.store, trace: trace}
}

// OwnedTx returns tx as a Func gets it: its Commit and Rollback, and any
// statement that would end or start the transaction, refused. Close
// makes every method fail once the caller is done with it.
func OwnedTx(tx pgx.Tx) (owned pgx.Tx, closeTx func()) {
	t := &ownedTx{tx: tx}
	return t, func() { t.closed.Store(true) }
}
