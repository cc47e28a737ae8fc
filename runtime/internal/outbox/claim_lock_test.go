package outbox_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
)

// lockOutbox returns a transaction of pool that holds the outbox table in
// mode (SHARE: writes wait; ACCESS EXCLUSIVE: reads too), which the
// test's cleanup ends.
func lockOutbox(t *testing.T, pool *pgxpool.Pool, mode string) pgx.Tx {
	t.Helper()
	barrier, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
	if _, err := barrier.Exec(t.Context(), "LOCK TABLE idempotency_outbox IN "+mode+" MODE"); err != nil {
		t.Fatal(err)
	}
	return barrier
}

// lockWaiters counts app's backends that wait on a lock, as
// pg_stat_activity and pg_locks see them.
func lockWaiters(t *testing.T, pool *pgxpool.Pool, app string) (activity, locks int) {
	t.Helper()
	activity = locktest.LockWaiters(t, pool, app)
	locks = count(t, pool, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = $1 AND NOT l.granted`, app)
	return activity, locks
}

// A worker's claim waits for a lock on the outbox table (DDL, VACUUM
// FULL, LOCK TABLE in another session) no longer than its bound, the poll
// interval or the lease's tenth, whichever is shorter (200 ms here), on
// the server: the claim fails with lock_timeout's SQLSTATE 55P03, logged
// as nothing claimed, before the backstop; no backend of the worker goes
// on waiting, and the effect is neither attempted nor lost: once the lock
// is gone, the worker's next claim takes it and calls it once. Before,
// the claim waited under the session's lock_timeout (none) as long as the
// lock lasted: Run's context has no deadline.
//
// So does its preparation: the claim on a connection that has not
// prepared the worker's statements yet (new), and the next claim on that
// same connection, after a claim the server ended, also on a connection
// that had prepared them (warm). Before, pgx prepared the claim in a
// round trip of its own before the bounded batch, the first time a
// connection sent it and again after a batch of it failed (pgx then drops
// it), and that preparation waited for the lock under the session's
// lock_timeout until the backstop. Under exec and the simple protocol
// nothing is prepared.
//
// The worker has one connection and claims on its poll only (an hour):
// each Run sends one claim at once.
func TestAClaimWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, lock := range []string{"SHARE", "ACCESS EXCLUSIVE"} {
		t.Run(lock, func(t *testing.T) {
			locktest.ConnCases(t, func(t *testing.T, tc locktest.ConnCase) {
				cs, pool := newDB(t)
				const app = "claim-under-lock"
				one := locktest.OneConnPoolIn(t, cs, app, tc.Mode)
				events := make(eventLog, 8)
				failures := logFailures{message: "idem: claiming effects", errs: make(chan error, 1)}
				a, err := idem.NewWorker(idem.WorkerConfig{Pool: one, ID: "a", Providers: map[string]idem.Provider{"sms": doneProvider{}, "email": doneProvider{}},
					Lease: 2 * time.Second, PollInterval: time.Hour, GaugeInterval: time.Hour, Observer: events, Logger: slog.New(failures)})
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				run := func() context.CancelFunc {
					ctx, cancel := context.WithCancel(t.Context())
					wg.Go(func() { _ = a.Run(ctx) })
					return cancel
				}

				enqueueNamed(t, pool, "sms", 1, "retry")
				stop := run() // the warm-up
				if ev := <-events; ev.Effect != "sms" || ev.Kind != idem.EffectEventDone {
					t.Fatalf("the warm-up's event: %s of %s, want done of sms", ev.Kind, ev.Effect)
				}
				stop()
				wg.Wait()
				pid := tc.Backend(t, one)

				enqueueNamed(t, pool, "email", 1, "retry")
				barrier := lockOutbox(t, pool, lock)
				for _, claim := range []string{"first", "second"} {
					stop = run()
					select {
					case err = <-failures.errs:
					case <-time.After(10 * time.Second): // the backstop
						t.Fatalf("the %s claim behind the table's lock did not end before the backstop", claim)
					}
					if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "55P03" || !strings.Contains(err.Error(), "nothing claimed") {
						t.Errorf("the %s claim behind the table's lock failed with %v, want the server's lock_timeout (55P03), nothing claimed", claim, err)
					}
					if activity, locks := lockWaiters(t, pool, app); activity != 0 || locks != 0 {
						t.Errorf("after the %s claim failed, %d of the worker's backends wait on a lock (%d locks not granted), want none",
							claim, activity, locks)
					}
					stop()
					wg.Wait()
				}
				if got := locktest.BackendPID(t, one); got != pid {
					t.Errorf("backend %d after the claims, %d before: they did not all run on one connection", got, pid)
				}
				if err := barrier.Rollback(t.Context()); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"sms:a:call:done"}, effectAttempts(t, pool)); diff != "" {
					t.Errorf("attempts while the table was locked (-want +got): the email must not be attempted\n%s", diff)
				}

				// The lock is gone: the worker's next claim takes the email and calls it once.
				stop = run()
				if ev := <-events; ev.Effect != "email" || ev.Kind != idem.EffectEventDone || ev.Attempt != 1 {
					t.Errorf("the event once the lock is gone: %s of %s at attempt %d, want done of email at attempt 1", ev.Kind, ev.Effect, ev.Attempt)
				}
				stop()
				wg.Wait()
				if diff := cmp.Diff([]string{"email:a:call:done", "sms:a:call:done"}, effectAttempts(t, pool)); diff != "" {
					t.Errorf("attempts (-want +got): the email called once\n%s", diff)
				}
			})
		})
	}
}

// stuckProvider reports each call and returns only when its context ends.
type stuckProvider struct{ called chan struct{} }

func (p stuckProvider) Do(ctx context.Context, _ idem.EffectCall) idem.EffectOutcome {
	p.called <- struct{}{}
	<-ctx.Done()
	return idem.EffectUnknown(ctx.Err())
}

// A stopping worker hands back the effects it claimed ahead and did not
// call, waiting for a lock on the outbox table no longer than the lease's
// tenth (three seconds here), on the server: the statement fails with
// 55P03, logged, before the backstop, and no backend of the worker goes on
// waiting; the effects are not lost: their leases hand them on, and a
// worker calls each of them once. Before, the release waited until the
// client's deadline, a second later, whose cancel request pgx sends after
// the call returned.
//
// With one call slot, the sms's call ending behind a full claim makes the
// worker claim the emails ahead: the first runs (and stays), the others
// wait for the slot until the worker stops under the lock, the sms's
// outcome recorded. The worker has one connection, on which the release's
// statement is prepared.
func TestAReleaseWaitIsBoundedAgainstATableLock(t *testing.T) {
	cs, pool := newDB(t)
	const app = "release-under-lock"
	one := locktest.OneConnPool(t, cs, app)
	// A release of nothing prepares the worker's statements.
	if _, err := sqlcdb.New(one).ReleaseEffects(t.Context(), sqlcdb.ReleaseEffectsParams{}); err != nil {
		t.Fatal(err)
	}
	enqueueNamed(t, pool, "sms", 1, "retry")
	enqueueNamed(t, pool, "email", 4, "retry")
	stuck := stuckProvider{called: make(chan struct{}, 1)}
	events := make(eventLog, 8)
	failures := logFailures{message: "idem: handing back effects claimed ahead and not called; their leases will hand them on",
		errs: make(chan error, 1)}
	a, err := idem.NewWorker(idem.WorkerConfig{Pool: one, ID: "a", Providers: map[string]idem.Provider{"sms": doneProvider{}, "email": stuck},
		Concurrency: 1, Lease: 30 * time.Second, PollInterval: time.Hour, GaugeInterval: time.Hour, ShutdownTimeout: time.Millisecond,
		Observer: events, Logger: slog.New(failures)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	<-stuck.called
	if ev := <-events; ev.Effect != "sms" || ev.Kind != idem.EffectEventDone {
		t.Fatalf("the first event: %s of %s, want done of sms", ev.Kind, ev.Effect)
	}
	barrier := lockOutbox(t, pool, "SHARE")
	cancel()
	select {
	case err = <-failures.errs:
	case <-time.After(10 * time.Second): // the backstop
		t.Fatal("the release behind the table's lock did not end before the backstop")
	}
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Errorf("the release behind the table's lock failed with %v, want the server's lock_timeout (55P03)", err)
	}
	if activity, locks := lockWaiters(t, pool, app); activity != 0 || locks != 0 {
		t.Errorf("after the release failed, %d of the worker's backends wait on a lock (%d locks not granted), want none", activity, locks)
	}
	if err := barrier.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	// The leases hand the emails on: once they have run out, b calls each.
	expireLease(t, pool, "email")
	done := &countKind{kind: idem.EffectEventDone, target: 4, all: make(chan struct{})}
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	b, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "b", Providers: map[string]idem.Provider{"email": doneProvider{}},
		PollInterval: 10 * time.Millisecond, Observer: done})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = b.Run(ctx) })
	<-done.all
	cancel()
	wg.Wait()
	if n := count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE state = 'done'`); n != 5 {
		t.Errorf("%d effects done, want all 5", n)
	}
	want := []string{"email:a:-:lost", "email:a:-:lost", "email:a:-:lost", "email:a:-:lost",
		"email:b:call:done", "email:b:call:done", "email:b:call:done", "email:b:call:done", "sms:a:call:done"}
	if diff := cmp.Diff(want, effectAttempts(t, pool)); diff != "" {
		t.Errorf("attempts (-want +got): each email called once by b\n%s", diff)
	}
}
