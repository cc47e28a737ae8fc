package outbox_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
)

// A worker's claim on a connection that has not prepared its statements
// yet (new) waits for an ACCESS EXCLUSIVE lock on the outbox table (DDL,
// VACUUM FULL) no longer than its bound, and so does its next claim on
// that same connection, after a claim the server ended, also on a
// connection that had prepared them (warm): each fails with 55P03,
// nothing claimed, before the backstop, with no backend left waiting, and
// once the lock is gone the effect is called once. Before, pgx prepared
// the claim in a round trip of its own before the bounded batch, the
// first time a connection sent it and again after a batch of it failed
// (pgx then drops it), and that preparation waited for the lock under the
// session's lock_timeout (none) as long as the lock lasted. Under the
// simple protocol nothing is prepared.
//
// The worker claims on its poll only (an hour): each Run sends one claim
// at once.
func TestAClaimsPreparationIsBoundedAgainstATableLock(t *testing.T) {
	for _, mode := range locktest.ExecModes {
		for _, conn := range []string{"new", "warm"} {
			t.Run(mode.String()+"/"+conn, func(t *testing.T) {
				cs, pool := newDB(t)
				const app = "prepare-under-lock"
				one := locktest.OneConnPoolIn(t, cs, app, mode)
				events := make(eventLog, 8)
				failures := logFailures{message: "idem: claiming effects", errs: make(chan error, 1)}
				a, err := idem.NewWorker(idem.WorkerConfig{Pool: one, ID: "a", Providers: map[string]idem.Provider{"sms": doneProvider{}, "email": doneProvider{}},
					Lease: 10 * time.Second, PollInterval: time.Hour, GaugeInterval: time.Hour, Observer: events, Logger: slog.New(failures)})
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
				pid := locktest.BackendPID(t, one)
				if conn == "new" {
					pid = locktest.FreshConn(t, one)
				}

				enqueueNamed(t, pool, "email", 1, "retry")
				barrier, err := pool.Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
				if _, err := barrier.Exec(t.Context(), "LOCK TABLE idempotency_outbox IN ACCESS EXCLUSIVE MODE"); err != nil {
					t.Fatal(err)
				}
				for _, claim := range []string{"first", "second"} {
					stop = run()
					select {
					case err = <-failures.errs:
					case <-time.After(10 * time.Second): // the backstop
						t.Fatalf("the %s claim behind the table's lock did not end before the backstop", claim)
					}
					if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
						t.Errorf("the %s claim behind the table's lock failed with %v, want the server's lock_timeout (55P03)", claim, err)
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
		}
	}
}
