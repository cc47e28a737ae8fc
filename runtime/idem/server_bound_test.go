package idem_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
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
				// duplicate's statements are prepared, as a busy pool's are
				// (a new connection's:
				// TestClaimPreparationIsBoundedAgainstATableLock).
				// The connection is opened before the warm-up, whose acquire
				// the wait-timeout bounds too: a dial under load may not fit.
				app := waiterName()
				one := locktest.OneConnPool(t, d.connString, app)
				locktest.BackendPID(t, one)
				h := newHandler(t, one, c, idem.Config{Protocol: p}, createOrder)
				if r := post(h, "tenant-a", "warm-1", benchBody); r.Status != http.StatusCreated {
					t.Fatalf("warm-up: status %d %s", r.Status, r.Body)
				}

				lockTable(t, d, "idempotency_record")
				r := postWithin(h, backstop, "tenant-a", "locked-1", benchBody)
				if n := locktest.LockWaiters(t, d.pool, app); n != 0 {
					t.Errorf("%d of the runtime's backends still wait on a lock after it answered", n)
				}
				if r.Status != http.StatusConflict || problemType(t, r) != idem.ProblemInProgress {
					t.Errorf("status %d body %s, want the wait-timeout's 409", r.Status, r.Body)
				}
			})
		}
	}
}

// lockTable locks table in ACCESS EXCLUSIVE mode from another connection
// of d until the test ends or the returned transaction is rolled back: a
// barrier every statement on the table waits at.
func lockTable(t *testing.T, d *db, table string) pgx.Tx {
	t.Helper()
	barrier, err := d.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
	if _, err := barrier.Exec(t.Context(), "LOCK TABLE "+pgx.Identifier{table}.Sanitize()+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return barrier
}

// deadlineOnly is a context whose Deadline is deadline while only its
// parent's end makes it Done: the runtime reads the deadline, and the
// client side never ends the wait before the parent does.
type deadlineOnly struct {
	context.Context
	deadline time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.deadline, true }

// A request's deadline shorter than the wait-timeout bounds the wait for
// the key on the server: the runtime sets lock_timeout from it, so the
// server ends the wait (SQLSTATE 55P03) near the deadline although the
// request's context is not Done until the backstop, the backend waits no
// longer and the connection is kept. The answer is the one a deadline the
// client reaches gets: class timeout, a 503 deadline-exceeded
// (docs/problems.md). Before,
// lock_timeout was the whole wait-timeout and only the client's deadline
// ended the wait, by closing the connection (pgx sends a cancel request
// as it closes).
func TestRequestDeadlineBoundsTheServersWait(t *testing.T) {
	for _, p := range []idem.Protocol{idem.ProtocolAdvisory, idem.ProtocolClaimFirst} {
		t.Run(p.String(), func(t *testing.T) {
			d := newDB(t)
			c := orderContract()
			c.WaitTimeout = time.Minute
			hold := faults.NewHold()
			first := newHandlerWithFaults(t, d.pool, c, idem.Config{Protocol: p}, faults.Hooks{AfterBusiness: hold.Hook}, createOrder)
			app := waiterName()
			pool := locktest.OneConnPool(t, d.connString, app)
			rec := &recorder{}
			dup := newHandler(t, pool, c, idem.Config{Protocol: p, Observer: rec}, createOrder)
			if r := post(dup, "tenant-a", "warm-1", benchBody); r.Status != http.StatusCreated {
				t.Fatalf("warm-up: status %d %s", r.Status, r.Body)
			}
			pid := locktest.BackendPID(t, pool)

			firstDone := make(chan idemtest.Response)
			go func() { firstDone <- post(first, "tenant-a", "held-1", benchBody) }()
			<-hold.Reached()
			parent, cancel := context.WithTimeout(context.Background(), backstop)
			defer cancel()
			ctx := deadlineOnly{Context: parent, deadline: time.Now().Add(300 * time.Millisecond)}
			req := idemtest.NewRequest(http.MethodPost, "/orders", "held-1", []byte(benchBody)).WithContext(ctx)
			req.Header.Set("X-Tenant", "tenant-a")
			r := idemtest.Serve(dup, req)
			beforeBackstop := parent.Err() == nil
			waiting := locktest.LockWaiters(t, d.pool, app)
			hold.Release()
			if f := <-firstDone; f.Status != http.StatusCreated {
				t.Fatalf("first: status %d %s", f.Status, f.Body)
			}

			if !beforeBackstop {
				t.Fatal("the duplicate waited until the backstop: the server did not end the wait at the deadline")
			}
			if waiting != 0 {
				t.Errorf("%d of the runtime's backends still wait on a lock after it answered", waiting)
			}
			if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemDeadlineExceeded {
				t.Errorf("status %d body %s, want the 503 of a request past its deadline", r.Status, r.Body)
			}
			events := rec.all()
			if last := events[len(events)-1]; last.Kind != idem.EventRolledBack || last.Class != idem.ClassTimeout {
				t.Errorf("last event %+v, want a rollback of class timeout", last)
			}
			if got := locktest.BackendPID(t, pool); got != pid {
				t.Errorf("backend %d after the deadline, %d before: the connection was closed, not kept", got, pid)
			}
		})
	}
}

// A request's deadline that ends a statement of the business function
// still ends it on the server, although the runtime sets no bound there:
// pgx closes a connection whose context ended mid-statement and, closing
// it, sends PostgreSQL a cancel request, which ends the backend's wait
// (pgconn's asyncClose, pgx v5.13). The answer is a 503 deadline-exceeded
// of class timeout (docs/problems.md). The cancel request goes out from a goroutine of
// pgx's after the call returned, so nothing in this process marks its
// arrival: the test polls pg_stat_activity for the backend's wait to end,
// with a ceiling far past a cancel's round trip, while the barrier, which
// would otherwise hold the backend for good, is still in place.
func TestRequestDeadlineCancelsTheBusinessStatement(t *testing.T) {
	d := newDB(t)
	app := waiterName()
	rec := &recorder{}
	h := newHandler(t, locktest.OneConnPool(t, d.connString, app), orderContract(), idem.Config{Observer: rec}, createOrder)
	lockTable(t, d, "orders")
	r := postWithin(h, 300*time.Millisecond, "tenant-a", "business-1", benchBody)
	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemDeadlineExceeded {
		t.Errorf("status %d body %s, want the 503 of a request past its deadline", r.Status, r.Body)
	}
	if events := rec.all(); len(events) == 0 || events[len(events)-1].Class != idem.ClassTimeout {
		t.Errorf("events %+v, want the last of class timeout", events)
	}
	ceiling, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	for locktest.LockWaiters(t, d.pool, app) != 0 {
		if ceiling.Err() != nil {
			t.Fatal("the business statement still waits on the server after the request's deadline")
		}
	}
}
