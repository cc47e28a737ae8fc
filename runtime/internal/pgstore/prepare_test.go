package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/locktest"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// A takeover and a lease's release wait for an ACCESS EXCLUSIVE lock on
// the progress table no longer than their bound also on a connection that
// has not prepared their statements (new), and again on that connection
// after the server ended the first, also on a connection that had
// prepared them (warm): each fails with the server's 55P03 before the
// backstop. Before, pgx prepared the statement in a round trip of its own
// before the bounded batch, the first time a connection sent it and again
// after a batch of it failed, and that preparation waited for the lock
// under the session's lock_timeout (none) until the backstop. Under the
// simple protocol nothing is prepared.
func TestProgressPreparationIsBoundedAgainstATableLock(t *testing.T) {
	for _, tc := range progressCalls(pgstore.New("")) {
		t.Run(tc.name, func(t *testing.T) {
			locktest.ConnCases(t, func(t *testing.T, cc locktest.ConnCase) {
				cs := pgtest.ConnString(t)
				const app = "progress-prepare-under-lock"
				pool := locktest.OneConnPoolIn(t, cs, app, cc.Mode)
				if err := schema.Migrate(t.Context(), pool, ""); err != nil {
					t.Fatal(err)
				}
				admin, err := pgxpool.New(t.Context(), cs)
				if err != nil {
					t.Fatal(err)
				}
				defer admin.Close()
				conn, err := pool.Acquire(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				err = tc.call(t.Context(), conn, time.Second)
				conn.Release()
				if err != nil {
					t.Fatalf("warm-up on no operation: %v", err)
				}
				pid := cc.Backend(t, pool)
				barrier, err := admin.Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = barrier.Rollback(context.Background()) }()
				if _, err := barrier.Exec(t.Context(), "LOCK TABLE idempotency_progress IN ACCESS EXCLUSIVE MODE"); err != nil {
					t.Fatal(err)
				}
				conn, err = pool.Acquire(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Release()
				if got := conn.Conn().PgConn().PID(); got != uint32(pid) {
					t.Fatalf("backend %d, want the test's connection %d", got, pid)
				}
				for _, call := range []string{"first", "second"} {
					backstop, cancel := context.WithTimeout(t.Context(), 10*time.Second)
					err := tc.call(backstop, conn, 50*time.Millisecond)
					cancel()
					if !pgstore.IsLockTimeout(err) {
						t.Errorf("the %s call behind a table lock: %v, want SQLSTATE 55P03 from the server", call, err)
					}
					if n := locktest.LockWaiters(t, admin, app); n != 0 {
						t.Errorf("%d backends still wait on a lock after the %s call", n, call)
					}
				}
				if conn.Conn().IsClosed() {
					t.Error("the connection was closed: the calls did not both end on the server")
				}
			})
		})
	}
}

// progressCall is a call of s that waits for the progress table.
type progressCall struct {
	name string
	call func(ctx context.Context, conn *pgxpool.Conn, wait time.Duration) error
}

// progressCalls are the takeover and the lease's release of s, on an
// operation that does not exist.
func progressCalls(s *pgstore.Store) []progressCall {
	return []progressCall{
		{"take over", func(ctx context.Context, conn *pgxpool.Conn, wait time.Duration) error {
			_, err := s.TakeOver(ctx, conn.Conn(), "s", "k", []byte{1}, time.Minute, wait)
			return err
		}},
		{"give up the lease", func(ctx context.Context, conn *pgxpool.Conn, wait time.Duration) error {
			return s.GiveUpLease(ctx, conn.Conn(), "s", "k", 1, 0, wait)
		}},
	}
}

// BenchmarkPrepareBatch measures PrepareBatch on a connection that has
// prepared the batch's statements (a claim's): what it adds to each
// bounded batch of the runtime once a connection is warm, lookups in the
// connection's CustomData without a round trip or an allocation.
func BenchmarkPrepareBatch(b *testing.B) {
	pool := pgtest.Pool(b)
	if err := schema.Migrate(b.Context(), pool, ""); err != nil {
		b.Fatal(err)
	}
	conn, err := pool.Acquire(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	var batch pgx.Batch
	pgstore.New("").QueueClaim(&batch, pgstore.Claim{}, pgstore.ClaimOptions{Begin: true, LockTimeout: time.Second, Savepoint: true})
	if err := pgstore.PrepareBatch(b.Context(), conn.Conn(), time.Second, &batch); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := pgstore.PrepareBatch(b.Context(), conn.Conn(), time.Second, &batch); err != nil {
			b.Fatal(err)
		}
	}
}
