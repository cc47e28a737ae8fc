package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/pgstore/internal/sqlcdb"
)

// preparedKey names, in a connection's pgconn.PgConn.CustomData, the
// statements PrepareBounded prepared on it (map[string]bool: false for
// one marked stale, which pgx still holds by name), or notPreparing under
// an exec mode it prepares nothing in.
const preparedKey = "idemgen/pgstore.prepared"

// notPreparing marks a connection whose exec mode PrepareBounded
// prepares nothing in.
type notPreparing struct{}

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
// pgx keeps a statement prepared by name for the life of the connection,
// also once the server no longer has it (DISCARD ALL, DEALLOCATE ALL:
// SQLSTATE 26000) or a migration changed the type of a column it returns
// ("cached plan must not change result type", 0A000). A batch sent with
// SendPrepared that fails so marks its statements stale (for 26000 all
// of the connection's), as pgx's cache drops its own after a failed
// batch: that call fails, and the next PrepareBounded on the connection
// deallocates them and prepares them again, under its bound. What pgx's
// own pgx.Conn.DeallocateAll (or Deallocate) drops goes unseen: nothing
// fails, pgx's cache prepares the statements again, in a round trip of
// its own under the session's lock_timeout, until the connection closes.
//
// Once conn has them all, PrepareBounded is a few lookups in the
// connection's CustomData, without a round trip or an allocation; the
// first time it costs two round trips and one per statement. It prepares
// nothing inside a transaction (then it fails), and nothing under any
// exec mode but pgx's default: under QueryExecModeExec and
// QueryExecModeSimpleProtocol a statement is parsed in the batch's own
// pipeline, after BoundLockWaits has run, and under
// QueryExecModeCacheDescribe and QueryExecModeDescribeExec, the modes a
// transaction-mode pooler such as PgBouncer needs, a named statement
// would not follow the session from one server connection to the next:
// their description round trip waits under the session's lock_timeout (a
// pooler's users bound it with that setting).
func PrepareBounded(ctx context.Context, conn *pgx.Conn, d time.Duration, sqls ...string) error {
	prepared := preparedOn(conn)
	if prepared == nil {
		return nil
	}
	missing := !prepared[sqlcdb.BoundLockWaits]
	for _, sql := range sqls {
		missing = missing || !prepared[sql]
	}
	if !missing {
		return nil
	}
	return prepare(ctx, conn, d, prepared, sqls)
}

// PrepareBatch is PrepareBounded of the statements queued in b, which
// goes on conn next.
func PrepareBatch(ctx context.Context, conn *pgx.Conn, d time.Duration, b *pgx.Batch) error {
	prepared := preparedOn(conn)
	if prepared == nil {
		return nil
	}
	missing := !prepared[sqlcdb.BoundLockWaits]
	for _, q := range b.QueuedQueries {
		missing = missing || !prepared[q.SQL]
	}
	if !missing {
		return nil
	}
	sqls := make([]string, len(b.QueuedQueries))
	for i, q := range b.QueuedQueries {
		sqls[i] = q.SQL
	}
	return prepare(ctx, conn, d, prepared, sqls)
}

// preparedOn returns the statements PrepareBounded prepared on conn, nil
// when its exec mode is not pgx's default. It reads the mode once per
// connection: pgx.Conn.Config copies the configuration.
func preparedOn(conn *pgx.Conn) map[string]bool {
	data := conn.PgConn().CustomData()
	v, ok := data[preparedKey]
	if !ok {
		v = notPreparing{}
		if conn.Config().DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
			v = map[string]bool{}
		}
		data[preparedKey] = v
	}
	prepared, _ := v.(map[string]bool)
	return prepared
}

// prepare prepares on conn BoundLockWaits and those of sqls not in
// prepared (deallocating those marked stale first), in a transaction
// bounded at d, and adds each to prepared.
func prepare(ctx context.Context, conn *pgx.Conn, d time.Duration, prepared map[string]bool, sqls []string) error {
	if conn.PgConn().TxStatus() != 'I' {
		return errors.New("pgstore: statements to prepare inside a transaction")
	}
	// TimeoutSetting's digits and unit need no quoting; the simple
	// protocol sends both statements in one round trip.
	if _, err := conn.PgConn().Exec(ctx, "BEGIN; SET LOCAL lock_timeout = '"+TimeoutSetting(d)+"'").ReadAll(); err != nil {
		return errors.Join(fmt.Errorf("pgstore: bound the preparation: %w", err), endPreparation(ctx, conn))
	}
	for _, sql := range append([]string{sqlcdb.BoundLockWaits}, sqls...) {
		ready, stale := prepared[sql]
		if ready {
			continue
		}
		if stale {
			// pgx would answer Prepare with the statement it holds.
			if err := conn.Deallocate(ctx, sql); err != nil {
				return errors.Join(fmt.Errorf("pgstore: deallocate a stale statement: %w", err), endPreparation(ctx, conn))
			}
			delete(prepared, sql)
		}
		if _, err := conn.Prepare(ctx, sql, sql); err != nil {
			return errors.Join(fmt.Errorf("pgstore: prepare: %w", err), endPreparation(ctx, conn))
		}
		prepared[sql] = true
	}
	return endPreparation(ctx, conn)
}

// endPreparation rolls back prepare's transaction, which changed nothing
// but its lock_timeout, also when ctx has ended.
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

// markStale marks statements PrepareBounded prepared on conn stale, so
// that the next PrepareBounded prepares them again, when err, the error
// of b's results, says so: that the server no longer has one of them
// (SQLSTATE 26000), then all of them, which the session reset that lost
// one (DISCARD ALL, DEALLOCATE ALL) lost too; or that the result type of
// one changed (0A000, "cached plan must not change result type"), then
// b's.
func markStale(conn *pgx.Conn, b *pgx.Batch, err error) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return
	}
	prepared := preparedOn(conn)
	switch pgErr.Code {
	case "26000":
		for sql, ready := range prepared {
			if ready {
				prepared[sql] = false
			}
		}
	case "0A000":
		for _, q := range b.QueuedQueries {
			if prepared[q.SQL] {
				prepared[q.SQL] = false
			}
		}
	}
}
