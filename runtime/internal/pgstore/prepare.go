package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/pgstore/internal/sqlcdb"
)

// preparedKey names, in a connection's pgconn.PgConn.CustomData, the set
// of statements PrepareBounded prepared on it.
const preparedKey = "idemgen/pgstore.prepared"

// PrepareBounded prepares on conn, by name, BoundLockWaits and those of
// sqls it has not prepared there yet, in a transaction of their own whose
// lock waits end at d (SQLSTATE 55P03 past it), so that statements sent
// after BoundLockWaits wait no longer than their bound at any step, their
// preparation included. A statement's preparation (Parse) takes the locks
// of the tables it names, so it waits for an ACCESS EXCLUSIVE lock (DDL,
// VACUUM FULL, LOCK TABLE), and a write's for a SHARE lock, under the
// session's lock_timeout (none by default): pgx's default exec mode
// (QueryExecModeCacheStatement) prepares a statement in a round trip of
// its own before the batch that uses it, the first time a connection
// sends it and again after a batch of it failed, 55P03 included, since
// pgx then drops the batch's statements from its cache. A statement
// prepared with its SQL as its name (pgx.Conn.Prepare) is found by every
// batch before that cache and is never dropped by a failed one; a
// prepared statement outlives the transaction that prepared it.
//
// Once conn has them all, PrepareBounded is a lookup in the connection's
// CustomData, without a round trip; the first time it costs two round
// trips and one per statement. It prepares nothing inside a transaction
// (then it fails), and nothing under any exec mode but pgx's default:
// under QueryExecModeExec and QueryExecModeSimpleProtocol a statement is
// parsed in the batch's own pipeline, after BoundLockWaits has run, and
// under QueryExecModeCacheDescribe and QueryExecModeDescribeExec, the
// modes a transaction-mode pooler such as PgBouncer needs, a named
// statement would not follow the session from one server connection to
// the next: their description round trip waits under the session's
// lock_timeout (a pooler's users bound it with that setting).
func PrepareBounded(ctx context.Context, conn *pgx.Conn, d time.Duration, sqls ...string) error {
	if conn.Config().DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
		return nil
	}
	data := conn.PgConn().CustomData()
	prepared, _ := data[preparedKey].(map[string]bool)
	var missing []string
	for _, sql := range append([]string{sqlcdb.BoundLockWaits}, sqls...) {
		if !prepared[sql] {
			missing = append(missing, sql)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if conn.PgConn().TxStatus() != 'I' {
		return errors.New("pgstore: statements to prepare inside a transaction")
	}
	if prepared == nil {
		prepared = map[string]bool{}
		data[preparedKey] = prepared
	}
	// TimeoutSetting's digits and unit need no quoting; the simple
	// protocol sends both statements in one round trip.
	if _, err := conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '"+TimeoutSetting(d)+"'").ReadAll(); err != nil {
		return errors.Join(fmt.Errorf("pgstore: bound the preparation: %w", err), endPreparation(ctx, conn))
	}
	for _, sql := range missing {
		if _, err := conn.Prepare(ctx, sql, sql); err != nil {
			return errors.Join(fmt.Errorf("pgstore: prepare: %w", err), endPreparation(ctx, conn))
		}
		prepared[sql] = true
	}
	return endPreparation(ctx, conn)
}

// endPreparation rolls back PrepareBounded's transaction, which changed
// nothing but its lock_timeout, also when ctx has ended.
func endPreparation(ctx context.Context, conn *pgx.Conn) error {
	if conn.PgConn().TxStatus() == 'I' {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := conn.PgConn().Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
		return fmt.Errorf("pgstore: end the preparation: %w", err)
	}
	return nil
}

// PrepareBatch is PrepareBounded of the statements queued in b, which
// goes on conn next.
func PrepareBatch(ctx context.Context, conn *pgx.Conn, d time.Duration, b *pgx.Batch) error {
	sqls := make([]string, len(b.QueuedQueries))
	for i, q := range b.QueuedQueries {
		sqls[i] = q.SQL
	}
	return PrepareBounded(ctx, conn, d, sqls...)
}

// SendBounded sends b, a batch of BoundLockWaits at d and the statements
// it bounds, on a connection of pool, once PrepareBounded has prepared
// them there under the same bound (PrepareBatch); closing the results releases the
// connection, as pgxpool.Pool.SendBatch's do.
func SendBounded(ctx context.Context, pool *pgxpool.Pool, d time.Duration, b *pgx.Batch) pgx.BatchResults {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return pgx.FailedBatchResults(b, err)
	}
	if err := PrepareBatch(ctx, c.Conn(), d, b); err != nil {
		c.Release()
		return pgx.FailedBatchResults(b, err)
	}
	return &releasingResults{BatchResults: c.SendBatch(ctx, b), c: c}
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
