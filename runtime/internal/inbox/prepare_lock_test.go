package inbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
)

// A delivery on a connection that has not prepared the consumer's
// statements yet (new) waits for a lock on the inbox table no longer than
// WaitTimeout, and so does the next delivery on that same connection,
// after a batch the server ended, also on a connection that had prepared
// them (warm): both are answered ErrBusy before the backstop, with no
// backend left waiting, and the message is processed once the lock is
// gone. Behind an ACCESS EXCLUSIVE lock the first read's
// is the wait; behind a SHARE lock, which reads pass, the claim's INSERT
// (its preparation takes the table's ROW EXCLUSIVE lock). Before, pgx
// prepared the statements in a round trip of their own before the
// bounded batch, the first time a connection sent them and again after a
// batch of them failed (pgx then drops them), and that preparation waited
// for the lock under the session's lock_timeout (none) until the
// backstop. Under the simple protocol nothing is prepared.
func TestPreparationWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, lock := range []string{accessExclusiveMode, shareMode} {
		t.Run(lock, func(t *testing.T) {
			locktest.ConnCases(t, func(t *testing.T, tc locktest.ConnCase) {
				cs := newDB(t)
				admin := newPool(t, cs)
				pool := locktest.OneConnPoolIn(t, cs, lockedApp, tc.Mode)
				// Opened before the warm-up, whose acquire the wait-timeout
				// may bound: a dial under load may not fit in it.
				locktest.BackendPID(t, pool)
				e, err := core.New(core.Config{Pool: pool})
				if err != nil {
					t.Fatal(err)
				}
				consumer, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: time.Hour,
					WaitTimeout: 150 * time.Millisecond, Handler: settle})
				if err != nil {
					t.Fatal(err)
				}
				if r, err := consumer.Deliver(t.Context(), msg("warm", "{}")); err != nil || r.Outcome != inbox.Processed {
					t.Fatalf("warm-up: %+v, %v", r, err)
				}
				pid := tc.Backend(t, pool)
				barrier, err := lockTable(t.Context(), admin, lock)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
				if lock == shareMode {
					// Reads pass a SHARE lock: a duplicate is answered, on
					// a new connection too (the claim's statements, which
					// would wait, are not prepared for it).
					if r, err := consumer.Deliver(deliveryContext(t, false), msg("warm", "{}")); err != nil || r.Outcome != inbox.Duplicate {
						t.Errorf("a duplicate behind a SHARE lock: %+v, %v; want %v", r, err, inbox.Duplicate)
					}
				}
				for _, attempt := range []string{"first", "second"} {
					ctx := deliveryContext(t, false)
					_, err := consumer.Deliver(ctx, msg("msg_1", "{}"))
					if context.Cause(ctx) != nil {
						t.Errorf("the %s delivery lasted until the backstop: %v", attempt, err)
						continue
					}
					if !errors.Is(err, inbox.ErrBusy) {
						t.Errorf("the %s delivery behind the table's lock: %v, want %v", attempt, err, inbox.ErrBusy)
					}
					if n := locktest.LockWaiters(t, admin, lockedApp); n != 0 {
						t.Errorf("%d of the consumer's backends still wait on a lock after the %s delivery", n, attempt)
					}
				}
				if got := locktest.BackendPID(t, pool); got != pid {
					t.Errorf("backend %d after the deliveries, %d before: they did not all run on one connection", got, pid)
				}
				if err := barrier.Rollback(t.Context()); err != nil {
					t.Fatal(err)
				}
				if r, err := consumer.Deliver(t.Context(), msg("msg_1", "{}")); err != nil || r.Outcome != inbox.Processed || r.Attempts != 1 {
					t.Errorf("the redelivery once the lock is gone: %+v, %v; want processed at attempt 1", r, err)
				}
			})
		})
	}
}
