package core

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ownedTx is the pgx.Tx handed to a business function: pgx's own
// transaction, begun in the claim batch, with the top-level Commit and
// Rollback taken away. The executor commits the business changes together
// with the stored response, or rolls both back; a business function that
// committed on its own would store an effect without its record. Nested
// transactions (Begin) are pgx's savepoints and behave as usual. A
// statement that would end or start the transaction on the server, such
// as COMMIT, is refused before it is sent (txcontrol.go). Once the
// executor has finished, every method fails with pgx.ErrTxClosed.
type ownedTx struct {
	tx     pgx.Tx
	closed atomic.Bool
}

var _ pgx.Tx = (*ownedTx)(nil)

// Begin opens a savepoint-backed nested transaction.
func (t *ownedTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed.Load() {
		return nil, pgx.ErrTxClosed
	}
	return t.tx.Begin(ctx)
}

// Commit returns ErrTxOwnedByExecutor.
func (t *ownedTx) Commit(context.Context) error { return ErrTxOwnedByExecutor }

// Rollback returns ErrTxOwnedByExecutor.
func (t *ownedTx) Rollback(context.Context) error { return ErrTxOwnedByExecutor }

// CopyFrom delegates to the transaction.
func (t *ownedTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if t.closed.Load() {
		return 0, pgx.ErrTxClosed
	}
	return t.tx.CopyFrom(ctx, table, columns, src)
}

// SendBatch delegates to the transaction; a batch with a statement that
// ends or starts a transaction fails whole, nothing of it sent.
func (t *ownedTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.closed.Load() {
		return pgx.FailedBatchResults(b, pgx.ErrTxClosed)
	}
	for _, q := range b.QueuedQueries {
		if stmt := txControl(q.SQL); stmt != "" {
			return pgx.FailedBatchResults(b, errTxControl(stmt))
		}
	}
	return t.tx.SendBatch(ctx, b)
}

// LargeObjects delegates to the transaction.
func (t *ownedTx) LargeObjects() pgx.LargeObjects { return t.tx.LargeObjects() }

// Prepare delegates to the transaction, but refuses a statement that ends
// or starts a transaction.
func (t *ownedTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if t.closed.Load() {
		return nil, pgx.ErrTxClosed
	}
	if stmt := txControl(sql); stmt != "" {
		return nil, errTxControl(stmt)
	}
	return t.tx.Prepare(ctx, name, sql)
}

// Exec delegates to the transaction, but refuses a statement that ends or
// starts a transaction.
func (t *ownedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.closed.Load() {
		return pgconn.CommandTag{}, pgx.ErrTxClosed
	}
	if stmt := txControl(sql); stmt != "" {
		return pgconn.CommandTag{}, errTxControl(stmt)
	}
	return t.tx.Exec(ctx, sql, args...)
}

// Query delegates to the transaction, but refuses a statement that ends or
// starts a transaction.
func (t *ownedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.closed.Load() {
		return nil, pgx.ErrTxClosed
	}
	if stmt := txControl(sql); stmt != "" {
		return nil, errTxControl(stmt)
	}
	return t.tx.Query(ctx, sql, args...)
}

// QueryRow delegates to the transaction, but refuses a statement that ends
// or starts a transaction.
func (t *ownedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.closed.Load() {
		return errRow{pgx.ErrTxClosed}
	}
	if stmt := txControl(sql); stmt != "" {
		return errRow{errTxControl(stmt)}
	}
	return t.tx.QueryRow(ctx, sql, args...)
}

// Conn returns the underlying connection.
func (t *ownedTx) Conn() *pgx.Conn { return t.tx.Conn() }

// errRow is a pgx.Row whose Scan fails.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
