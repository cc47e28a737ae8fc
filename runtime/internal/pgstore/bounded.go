package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/tables"
)

// Bounded returns a tables.DBTX, for sqlc's generated code, that sends
// each statement after BoundLockWaits at d in one batch on a connection of
// pool (SendBounded): one round trip and one implicit transaction, so that
// every lock wait of the statement, a table's lock included, ends at d on
// the server (SQLSTATE 55P03) and the bound ends with the transaction.
// The statement's preparation on the connection is bounded at d too
// (PrepareBounded).
func Bounded(pool *pgxpool.Pool, d time.Duration) tables.DBTX { return bounded{pool: pool, wait: d} }

// IsLockTimeout reports whether err is the server ending a lock wait at
// its lock_timeout (SQLSTATE 55P03), as BoundLockWaits bounds it.
func IsLockTimeout(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03"
}

// bounded is Bounded's DBTX.
type bounded struct {
	pool *pgxpool.Pool
	wait time.Duration
}

// send sends sql after BoundLockWaits and reads BoundLockWaits' result;
// the caller reads the statement's and closes the results.
func (b bounded) send(ctx context.Context, sql string, args []any) (pgx.BatchResults, error) {
	batch := &pgx.Batch{}
	QueueBoundLockWaits(batch, b.wait)
	batch.Queue(sql, args...)
	br := SendBounded(ctx, b.pool, b.wait, batch)
	if _, err := br.Exec(); err != nil {
		return nil, errors.Join(err, br.Close())
	}
	return br, nil
}

func (b bounded) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	br, err := b.send(ctx, sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

func (b bounded) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	br, err := b.send(ctx, sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		rows.Close()
		return nil, errors.Join(err, br.Close())
	}
	return &batchRows{Rows: rows, br: br}, nil
}

func (b bounded) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	br, err := b.send(ctx, sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

// batchRows are the rows of a bounded statement: closing them closes the
// batch's results too, whose error Err reports.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// batchRow is the row of a bounded statement: scanning it closes the
// batch's results.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// errRow is a row whose statement was not sent.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// SendBounded sends b, a batch of BoundLockWaits at d and the statements
// it bounds, on a connection of pool, prepared there under the same bound
// (SendPrepared); closing the results releases the connection, as
// pgxpool.Pool.SendBatch's do.
func SendBounded(ctx context.Context, pool *pgxpool.Pool, d time.Duration, b *pgx.Batch) pgx.BatchResults {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return &releasingResults{BatchResults: SendPrepared(ctx, c.Conn(), c.Conn(), d, b), c: c}
}

// BatchSender sends a batch: a *pgx.Conn, or a pgx.Tx on one.
type BatchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// SendPrepared sends b, a batch of BoundLockWaits at d and the statements
// it bounds, through s (conn, or a transaction on it) once PrepareBatch
// has prepared its statements on conn under the same bound; a failed
// preparation is the results' error. Closing the results marks b's
// statements stale when they failed for a statement the server no longer
// has or whose result type changed (see PrepareBounded), so that only
// that call fails.
func SendPrepared(ctx context.Context, conn *pgx.Conn, s BatchSender, d time.Duration, b *pgx.Batch) pgx.BatchResults {
	if err := PrepareBatch(ctx, conn, d, b); err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	return &preparedResults{BatchResults: s.SendBatch(ctx, b), conn: conn, b: b}
}

// preparedResults are the results of SendPrepared's batch b on conn.
type preparedResults struct {
	pgx.BatchResults
	conn *pgx.Conn
	b    *pgx.Batch
}

func (r *preparedResults) Close() error {
	err := r.BatchResults.Close()
	markStale(r.conn, r.b, err)
	return err
}

// releasingResults are the results of a batch sent on c, which closing
// them releases.
type releasingResults struct {
	pgx.BatchResults
	c *pgxpool.Conn
}

func (r *releasingResults) Close() error {
	err := r.BatchResults.Close()
	r.c.Release() // a no-op after the first
	return err
}
