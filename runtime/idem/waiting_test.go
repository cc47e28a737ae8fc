package idem_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// waiterName is a unique application_name for a test's sessions, so that
// awaitLockWaiter and locktest.LockWaiters can see them block.
func waiterName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "idem-waiter-" + hex.EncodeToString(b[:])
}

// waiterPool opens a pool whose sessions carry a unique application_name
// (waiterName).
func waiterPool(t *testing.T, d *db) (*pgxpool.Pool, string) {
	t.Helper()
	name := waiterName()
	cfg, err := pgxpool.ParseConfig(d.connString)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["application_name"] = name
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, name
}

// awaitLockWaiter returns once a session named app waits on a lock: the
// duplicate's claim is then blocked on the first request's key. It polls
// pg_stat_activity, the only place that state is visible; no sleeps.
func awaitLockWaiter(t *testing.T, d *db, app string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		var n int
		err := d.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&n)
		if err == nil && n > 0 {
			return
		}
	}
	t.Fatal("the duplicate never waited on the key")
}

// Must show 5: a first request held on a barrier mid-transaction; the
// duplicate waits and replays under wait, and gets 409 with Retry-After
// under reject or past wait-timeout.
func TestDuplicateWhileFirstRuns(t *testing.T) {
	body := `{"customer":"c-1","amount":3,"items":["a"]}`
	t.Run("wait replays", func(t *testing.T) {
		d := newDB(t)
		hold := faults.NewHold()
		first := newHandlerWithFaults(t, d.pool, orderContract(), idem.Config{}, faults.Hooks{AfterBusiness: hold.Hook}, createOrder)
		pool, app := waiterPool(t, d)
		rec := &recorder{}
		dup := newHandler(t, pool, orderContract(), idem.Config{Observer: rec}, createOrder)

		firstDone := make(chan idemtest.Response)
		go func() { firstDone <- post(first, "tenant-a", "held-1", body) }()
		<-hold.Reached()
		dupDone := make(chan idemtest.Response)
		go func() { dupDone <- post(dup, "tenant-a", "held-1", body) }()
		awaitLockWaiter(t, d, app)
		hold.Release()
		f, r := <-firstDone, <-dupDone
		if f.Status != http.StatusCreated {
			t.Fatalf("first: status %d body %s", f.Status, f.Body)
		}
		if r.Status != f.Status || !bytes.Equal(r.Body, f.Body) || r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("duplicate: status %d replayed %q body %s, want the first response replayed", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
		}
		if got, want := rec.kinds(), []idem.EventKind{idem.EventWaited, idem.EventReplay}; !equalKinds(got, want) {
			t.Errorf("duplicate's events %v, want %v", got, want)
		}
		if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
			t.Errorf("%d orders, want 1", n)
		}
	})
	for _, tc := range []struct {
		name   string
		modify func(*idemimpl.Contract)
		event  idem.EventKind
	}{
		{"reject answers 409 at once", func(c *idemimpl.Contract) { c.Concurrency = idemimpl.ConcurrencyReject }, idem.EventRejectInProgress},
		{"wait-timeout answers 409", func(c *idemimpl.Contract) { c.WaitTimeout = 150 * time.Millisecond }, idem.EventWaitTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDB(t)
			c := orderContract()
			tc.modify(&c)
			hold := faults.NewHold()
			first := newHandlerWithFaults(t, d.pool, c, idem.Config{}, faults.Hooks{AfterBusiness: hold.Hook}, createOrder)
			rec := &recorder{}
			dup := newHandler(t, d.newPool(t, 2), c, idem.Config{Observer: rec}, createOrder)

			firstDone := make(chan idemtest.Response)
			go func() { firstDone <- post(first, "tenant-a", "held-1", body) }()
			<-hold.Reached()
			r := post(dup, "tenant-a", "held-1", body)
			hold.Release()
			f := <-firstDone
			if r.Status != http.StatusConflict {
				t.Fatalf("duplicate: status %d body %s, want 409", r.Status, r.Body)
			}
			if got := problemType(t, r); got != idem.ProblemInProgress {
				t.Errorf("problem type %q, want %q", got, idem.ProblemInProgress)
			}
			if got := r.Header.Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After %q, want 1", got)
			}
			if got := rec.kinds(); !equalKinds(got, []idem.EventKind{tc.event}) {
				t.Errorf("duplicate's events %v, want [%v]", got, tc.event)
			}
			if f.Status != http.StatusCreated {
				t.Fatalf("first: status %d body %s", f.Status, f.Body)
			}
			again := post(dup, "tenant-a", "held-1", body)
			if !bytes.Equal(again.Body, f.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("retry after the first finished: status %d body %s, want a replay", again.Status, again.Body)
			}
			if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
				t.Errorf("%d orders, want 1", n)
			}
		})
	}
}

// The claim bounds its own wait on the key with lock_timeout and puts the
// session's setting back once it holds the key, so the business function's
// lock waits keep the server's bound, not the contract's wait-timeout.
func TestBusinessKeepsSessionLockTimeout(t *testing.T) {
	d := newDB(t)
	pool := d.newPool(t, 2)
	c := orderContract()
	c.WaitTimeout = 50 * time.Millisecond
	var seen string
	h := newHandler(t, pool, c, idem.Config{}, func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		if err := tx.QueryRow(ctx, "SELECT current_setting('lock_timeout')").Scan(&seen); err != nil {
			return nil, err
		}
		return createOrder(ctx, tx, op, req)
	})
	var session string
	if err := pool.QueryRow(context.Background(), "SELECT current_setting('lock_timeout')").Scan(&session); err != nil {
		t.Fatal(err)
	}
	if r := post(h, "tenant-a", "lock-timeout", benchBody); r.Status != http.StatusCreated {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	if seen != session {
		t.Errorf("lock_timeout in the business function = %q, want the session's %q", seen, session)
	}
}
