package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
	"github.com/idemgen/idemgen/runtime/internal/stdwebhooks"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// lockedWebhookApp names the connection of the receiver under test.
const lockedWebhookApp = "webhook-under-lock"

// lockedWebhooks is a receiver waiting at most 150 ms, on one connection
// of its own whose statements are prepared, and the tests' view of the
// database. Its handler settles a payment and fails one whose id starts
// with pay_fail, after inFail and proceed (but for pay_fail_warm).
type lockedWebhooks struct {
	admin    *pgxpool.Pool
	receiver *httpapi.WebhookReceiver
	inFail   chan struct{}
	proceed  chan struct{}
}

func newLockedWebhooks(t *testing.T) *lockedWebhooks {
	t.Helper()
	cs := pgtest.ConnString(t)
	lw := &lockedWebhooks{inFail: make(chan struct{}, 1), proceed: make(chan struct{})}
	admin, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	lw.admin = admin
	if err := idem.Migrate(t.Context(), admin, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(t.Context(), `CREATE TABLE settled (payment_id text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	pool := locktest.OneConnPool(t, cs, lockedWebhookApp)
	// Opened before the warm-ups, whose acquire the wait-timeout may
	// bound: a dial under load may not fit in it.
	locktest.BackendPID(t, pool)
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	key, err := stdwebhooks.ParseSecret(bankSecret)
	if err != nil {
		t.Fatal(err)
	}
	lw.receiver, err = httpapi.NewWebhookReceiver(exec, httpapi.Webhook{Name: "bankSettlement", Source: "bank",
		Secrets: []stdwebhooks.Secret{key}, MaxAttempts: 3, Retention: time.Hour, WaitTimeout: 150 * time.Millisecond},
		decodeSettlement, func(ctx context.Context, tx pgx.Tx, _ *core.Operation, s settlement) error {
			switch {
			case s.PaymentID == "pay_fail_warm":
				return errors.New("the ledger refused the settlement")
			case strings.HasPrefix(s.PaymentID, "pay_fail"):
				lw.inFail <- struct{}{}
				<-lw.proceed
				return errors.New("the ledger refused the settlement")
			}
			_, err := tx.Exec(ctx, `INSERT INTO settled VALUES ($1)`, s.PaymentID)
			return err
		})
	if err != nil {
		t.Fatal(err)
	}
	// One delivery of each kind prepares the statements, as a busy
	// pool's are (a new connection's preparation is bounded alike; see
	// the inbox's TestPreparationWaitIsBoundedAgainstATableLock).
	for _, w := range []struct {
		id   string
		want int
	}{{"pay_warm", http.StatusNoContent}, {"pay_fail_warm", http.StatusInternalServerError}} {
		if rec := lw.send(t, context.Background(), w.id); rec.Code != w.want {
			t.Fatalf("warm-up %s: %d %s, want %d", w.id, rec.Code, rec.Body, w.want)
		}
	}
	return lw
}

// send delivers the settlement of payment id, under webhook id msg_<id>,
// with ctx as the request's context.
func (lw *lockedWebhooks) send(t *testing.T, ctx context.Context, id string) *httptest.ResponseRecorder {
	t.Helper()
	return lw.serve(settlementRequest(t, ctx, id))
}

// settlementRequest is the webhook of payment id's settlement, under
// webhook id msg_<id>, with ctx as its context.
func settlementRequest(t *testing.T, ctx context.Context, id string) *http.Request {
	t.Helper()
	d := delivery{id: "msg_" + id, body: `{"type": "payment.settled", "payment_id": "` + id + `"}`}
	return d.request(t).WithContext(ctx)
}

// serve answers req.
func (lw *lockedWebhooks) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	lw.receiver.ServeHTTP(rec, req)
	return rec
}

// checkInProgress checks that rec, a webhook's answer behind the inbox's
// lock, is 409 operation-in-progress with Retry-After, and that none of
// the receiver's backends still waits on a lock.
func (lw *lockedWebhooks) checkInProgress(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code != http.StatusConflict || rec.Header().Get("Retry-After") != "1" ||
		!strings.Contains(rec.Body.String(), `"type":"`+httpapi.ProblemInProgress+`"`) {
		t.Errorf("a webhook behind the inbox's lock: %d %v %s, want 409 operation-in-progress with Retry-After: 1",
			rec.Code, rec.Header(), rec.Body)
	}
	var waiting int
	if err := lw.admin.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = $1 AND wait_event_type = 'Lock'`, lockedWebhookApp).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting != 0 {
		t.Errorf("%d of the receiver's backends still wait on a lock after it answered", waiting)
	}
}

// lockInbox returns a transaction of pool that holds the inbox table in
// SHARE mode: the reads that answer duplicates pass, writes wait.
func lockInbox(ctx context.Context, pool *pgxpool.Pool) (pgx.Tx, error) {
	return lockInboxIn(ctx, pool, "SHARE")
}

// lockInboxIn returns a transaction of pool that holds the inbox table in
// mode.
func lockInboxIn(ctx context.Context, pool *pgxpool.Pool, mode string) (pgx.Tx, error) {
	barrier, err := pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := barrier.Exec(ctx, "LOCK TABLE idempotency_inbox IN "+mode+" MODE"); err != nil {
		_ = barrier.Rollback(context.Background())
		return nil, err
	}
	return barrier, nil
}

// A webhook whose claim, or whose failed attempt's count, waits for a lock
// on the inbox table (a migration, VACUUM FULL, LOCK TABLE) longer than
// the webhook's wait-timeout is answered 409 operation-in-progress with
// Retry-After, before the request's backstop, with no backend left
// waiting and nothing kept: the sender retries. The request's context has
// no deadline, as a server's requests have none. Before, both waits lasted
// until the request's context ended (a 503 for a client that went away).
func TestWebhookBehindATableLockIsInProgress(t *testing.T) {
	for _, failing := range []bool{false, true} {
		name := "claim"
		if failing {
			name = "failure-count"
		}
		t.Run(name, func(t *testing.T) {
			lw := newLockedWebhooks(t)
			ctx, cancel := context.WithCancel(t.Context())
			stop := time.AfterFunc(10*time.Second, cancel) // the backstop
			defer func() { stop.Stop(); cancel() }()
			id := "pay_1"
			var barrier pgx.Tx
			var rec *httptest.ResponseRecorder
			if !failing {
				var err error
				if barrier, err = lockInbox(t.Context(), lw.admin); err != nil {
					t.Fatal(err)
				}
				rec = lw.send(t, ctx, id)
			} else {
				// The barrier queues behind the handler's transaction,
				// which holds the inbox row; the handler fails once it
				// waits, and the count of the attempt meets the lock.
				id = "pay_fail_1"
				done := make(chan *httptest.ResponseRecorder, 1)
				req := settlementRequest(t, ctx, id)
				go func() { done <- lw.serve(req) }()
				<-lw.inFail
				type lock struct {
					barrier pgx.Tx
					err     error
				}
				locked := make(chan lock, 1)
				go func() {
					b, err := lockInbox(t.Context(), lw.admin)
					locked <- lock{b, err}
				}()
				locktest.WaitForRelationLock(t, lw.admin, "idempotency_inbox", "ShareLock")
				close(lw.proceed)
				rec = <-done
				l := <-locked
				if l.err != nil {
					t.Fatal(l.err)
				}
				barrier = l.barrier
			}
			defer func() { _ = barrier.Rollback(context.Background()) }()
			if ctx.Err() != nil {
				t.Fatalf("the webhook was answered at the backstop: %d %s", rec.Code, rec.Body)
			}
			lw.checkInProgress(t, rec)
			var rows int
			if err := barrier.Rollback(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := lw.admin.QueryRow(t.Context(), `SELECT count(*) FROM idempotency_inbox WHERE message_id = $1`,
				"msg_"+id).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != 0 {
				t.Errorf("the inbox kept the webhook (%d rows), want nothing", rows)
			}
		})
	}
}

// A webhook whose first read of the inbox, which answers duplicates,
// waits for an ACCESS EXCLUSIVE lock on the inbox table (ALTER TABLE,
// VACUUM FULL) longer than the webhook's wait-timeout is answered 409
// operation-in-progress with Retry-After, before the request's backstop,
// with no backend left waiting: the sender retries, and once the lock is
// gone the retry of a duplicate is answered as one (204, the handler not
// run again). The request's context has no deadline. Before, the read
// waited until the request's context ended.
func TestWebhookReadBehindATableLockIsInProgress(t *testing.T) {
	lw := newLockedWebhooks(t)
	barrier, err := lockInboxIn(t.Context(), lw.admin, "ACCESS EXCLUSIVE")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = barrier.Rollback(context.Background()) }()
	ctx, cancel := context.WithCancel(t.Context())
	stop := time.AfterFunc(10*time.Second, cancel) // the backstop
	defer func() { stop.Stop(); cancel() }()
	rec := lw.send(t, ctx, "pay_warm") // a duplicate of the warm-up's
	if ctx.Err() != nil {
		t.Fatalf("the webhook was answered at the backstop: %d %s", rec.Code, rec.Body)
	}
	lw.checkInProgress(t, rec)
	var settled int
	if err := barrier.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := lw.send(t, t.Context(), "pay_warm"); rec.Code != http.StatusNoContent {
		t.Errorf("the retry once the lock is gone: %d %s, want 204", rec.Code, rec.Body)
	}
	if err := lw.admin.QueryRow(t.Context(), `SELECT count(*) FROM settled WHERE payment_id = 'pay_warm'`).Scan(&settled); err != nil {
		t.Fatal(err)
	}
	if settled != 1 {
		t.Errorf("the payment was settled %d times, want once", settled)
	}
}
