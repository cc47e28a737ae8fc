// Package locktest lets the runtime's tests see a PostgreSQL session
// waiting for a lock, which is the barrier they order on when another
// session holds a table: the state is visible only in pg_locks, so it is
// polled there, the server's view, never timed.
package locktest

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// WaitForRelationLock returns once a session waits, not granted, for a
// lock in mode (as pg_locks names it, such as "ShareLock") on relation (a
// name the search_path of pool's sessions resolves); it fails t when t's
// context ends first.
func WaitForRelationLock(t testing.TB, pool *pgxpool.Pool, relation, mode string) {
	t.Helper()
	for {
		var waiting bool
		if err := pool.QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM pg_catalog.pg_locks WHERE NOT granted
			AND locktype = 'relation' AND mode = $1 AND relation = $2::regclass)`, mode, relation).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(time.Millisecond): // polling the server's view, not ordering goroutines
		}
	}
}

// OneConnPool returns a pool of one connection on cs whose session is
// named app (application_name), so that LockWaiters can tell its backend
// from the test's own; the test's cleanup closes it.
func OneConnPool(t testing.TB, cs, app string) *pgxpool.Pool {
	t.Helper()
	return OneConnPoolIn(t, cs, app, pgx.QueryExecModeCacheStatement)
}

// ExecModes are the query exec modes a test of a bound runs under: pgx's
// default, which prepares each statement in a round trip before the batch
// that sends it, and exec and the simple protocol, which parse each
// statement in the batch's own round trip and prepare nothing (the simple
// protocol is one of the modes a transaction-mode pooler such as
// PgBouncer needs). Under cache_describe and describe_exec a statement's
// description round trip still waits under the session's lock_timeout.
var ExecModes = []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol}

// OneConnPoolIn is OneConnPool whose connection sends statements in
// mode.
func OneConnPoolIn(t testing.TB, cs, app string, mode pgx.QueryExecMode) *pgxpool.Pool {
	t.Helper()
	pc, err := pgxpool.ParseConfig(cs)
	if err != nil {
		t.Fatal(err)
	}
	pc.MaxConns = 1
	pc.ConnConfig.RuntimeParams["application_name"] = app
	pc.ConnConfig.DefaultQueryExecMode = mode
	pool, err := pgxpool.NewWithConfig(t.Context(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// ConnCase is a case of a test of a bound: the exec mode of its pool's
// one connection, and whether that connection is new (it has prepared
// nothing) or warm (a first call has prepared the statements) when the
// calls under test begin.
type ConnCase struct {
	Mode pgx.QueryExecMode
	New  bool
}

// ConnCases runs f as a subtest for each exec mode of ExecModes and each
// connection, new and warm, named mode/new or mode/warm.
func ConnCases(t *testing.T, f func(t *testing.T, c ConnCase)) {
	t.Helper()
	for _, mode := range ExecModes {
		for _, fresh := range []bool{true, false} {
			c := ConnCase{Mode: mode, New: fresh}
			name := mode.String() + "/warm"
			if fresh {
				name = mode.String() + "/new"
			}
			t.Run(name, func(t *testing.T) { f(t, c) })
		}
	}
}

// Backend returns the backend (pid) of pool's one connection, after the
// warm-up: for a new case it first closes pool's connections, so that
// its next one is new and has prepared nothing. By it a test tells that
// its later calls ran on that same connection.
func (c ConnCase) Backend(t testing.TB, pool *pgxpool.Pool) int32 {
	t.Helper()
	if c.New {
		pool.Reset()
	}
	return BackendPID(t, pool)
}

// BackendPID is the backend of the connection pool's next query runs on:
// of a one-connection pool, its connection's.
func BackendPID(t testing.TB, pool *pgxpool.Pool) int32 {
	t.Helper()
	var pid int32
	if err := pool.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// LockWaiters counts the sessions named app that wait on a lock, as
// pg_stat_activity sees them, asking through pool.
func LockWaiters(t testing.TB, pool *pgxpool.Pool, app string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_catalog.pg_stat_activity
		WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
