// Package locktest lets the runtime's tests see a PostgreSQL session
// waiting for a lock, which is the barrier they order on when another
// session holds a table: the state is visible only in pg_locks, so it is
// polled there, the server's view, never timed.
package locktest

import (
	"testing"
	"time"

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
