package idem_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// backstop is the request context's deadline in the tests below: far
// past every bound the server is to apply, so a test that reaches it
// failed, and its zombie backend is then visible in pg_stat_activity.
const backstop = 10 * time.Second

// postWithin is post with a request context that ends after d.
func postWithin(h http.Handler, d time.Duration, tenant, key, body string) idemtest.Response {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req := idemtest.NewRequest(http.MethodPost, "/orders", key, []byte(body)).WithContext(ctx)
	req.Header.Set("X-Tenant", tenant)
	return idemtest.Serve(h, req)
}

// lockWaiters counts the sessions named app that wait on a lock.
func lockWaiters(t *testing.T, d *db, app string) int {
	t.Helper()
	return d.count(t, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, app)
}

// A claim's wait is bounded on the server, in the round trip of the claim,
// also when what it waits for is a lock on the record table itself (DDL,
// VACUUM FULL, LOCK TABLE in another session): the table is locked when
// the statement is bound, before anything in it runs, so the bound the
// claim statement used to set inside itself came too late, and the wait
// lasted until the request's context ended it (a 500, at the backstop).
// The attempt gets the wait-timeout's 409 and leaves no backend waiting,
// which the server's answer proves (no polling).
func TestClaimWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, p := range []idem.Protocol{idem.ProtocolAdvisory, idem.ProtocolClaimFirst} {
		for _, reject := range []bool{false, true} {
			name := p.String() + "/wait"
			if reject {
				name = p.String() + "/reject"
			}
			t.Run(name, func(t *testing.T) {
				d := newDB(t)
				c := orderContract()
				c.WaitTimeout = 150 * time.Millisecond
				if reject {
					c.Concurrency = idemimpl.ConcurrencyReject
				}
				// One connection, warmed by a first request, so that the
				// duplicate's statements are prepared: a statement's first
				// preparation on a connection waits under the session's
				// lock_timeout, before any statement of the runtime can bound it.
				pool, app := waiterPool(t, d)
				h := newHandler(t, onePool(t, pool), c, idem.Config{Protocol: p}, createOrder)
				if r := post(h, "tenant-a", "warm-1", benchBody); r.Status != http.StatusCreated {
					t.Fatalf("warm-up: status %d %s", r.Status, r.Body)
				}

				ctx := context.Background()
				barrier, err := d.pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = barrier.Rollback(ctx) }()
				if _, err := barrier.Exec(ctx, "LOCK TABLE idempotency_record IN ACCESS EXCLUSIVE MODE"); err != nil {
					t.Fatal(err)
				}
				r := postWithin(h, backstop, "tenant-a", "locked-1", benchBody)
				if n := lockWaiters(t, d, app); n != 0 {
					t.Errorf("%d of the runtime's backends still wait on a lock after it answered", n)
				}
				if r.Status != http.StatusConflict || problemType(t, r) != idem.ProblemInProgress {
					t.Errorf("status %d body %s, want the wait-timeout's 409", r.Status, r.Body)
				}
			})
		}
	}
}

// onePool returns pool with at most one connection, opened anew from its
// configuration (pgxpool fixes MaxConns when the pool is made).
func onePool(t *testing.T, pool *pgxpool.Pool) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config()
	cfg.MaxConns = 1
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
