package inbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// The waits of a delivery before its handler runs share one WaitTimeout:
// a delivery whose first read waited for a lock on the inbox table (here
// an ALTER TABLE's ACCESS EXCLUSIVE request, queued behind a concurrent
// delivery of the same message and given up by its session after hold)
// waits for that concurrent delivery's message lock only for what is left,
// and is answered ErrBusy before release + WaitTimeout, where release is
// when the read could go on. Before, the read, the claim's preparation and
// the claim each waited up to WaitTimeout: the claim alone waited a whole
// WaitTimeout after release, so a broker consumer could hold a message
// about three times as long as configured. Every duration is the
// server's (lock_timeout), and the order is observed in pg_locks.
func TestWaitsBeforeTheHandlerShareOneWaitTimeout(t *testing.T) {
	const (
		waitTimeout = 3 * time.Second
		hold        = 2 * time.Second
	)
	li := newLockedInbox(t, waitTimeout)
	started, release := make(chan struct{}, 1), make(chan struct{})
	first := newConsumer(t, li.cs, 3, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		started <- struct{}{}
		<-release
		return settle(ctx, tx, op, m)
	})
	firstDone := make(chan error, 1)
	go func() {
		r, err := first.Deliver(t.Context(), msg("msg_1", "{}"))
		if err == nil && r.Outcome != inbox.Processed {
			err = fmt.Errorf("the first delivery: %+v, want processed", r)
		}
		firstDone <- err
	}()
	<-started // the first delivery holds the message's lock and its row

	// An ACCESS EXCLUSIVE request waits behind the first delivery's ROW
	// EXCLUSIVE lock and, queued, holds back every later read of the
	// table, until its session gives it up at hold.
	released := make(chan time.Time, 1)
	go func() {
		defer close(released)
		tx, err := li.admin.Begin(t.Context())
		if err != nil {
			t.Error(err)
			return
		}
		defer func() { _ = tx.Rollback(context.Background()) }()
		if _, err := tx.Exec(t.Context(), "SET LOCAL lock_timeout = '"+hold.String()+"'"); err != nil {
			t.Error(err)
			return
		}
		_, err = tx.Exec(t.Context(), "LOCK TABLE idempotency_inbox IN ACCESS EXCLUSIVE MODE")
		released <- time.Now()
		if !pgstore.IsLockTimeout(err) {
			t.Errorf("the ACCESS EXCLUSIVE request: %v, want its lock_timeout", err)
		}
	}()
	locktest.WaitForRelationLock(t, li.admin, "idempotency_inbox", "AccessExclusiveLock")

	second := make(chan error, 1)
	go func() {
		_, err := li.consumer.Deliver(deliveryContext(t, false), msg("msg_1", "{}"))
		second <- err
	}()
	// The second delivery's first read waits behind the queued request.
	for li.waiters(t) != 1 {
		select {
		case <-released:
			t.Fatal("the ACCESS EXCLUSIVE request ended before the second delivery's read waited behind it")
		case <-time.After(time.Millisecond): // polling the server's view, not ordering goroutines
		}
	}
	readGoesOn, ok := <-released
	if !ok {
		t.FailNow()
	}
	err := <-second
	ended := time.Now()
	if !errors.Is(err, inbox.ErrBusy) {
		t.Errorf("the second delivery: %v, want ErrBusy", err)
	}
	if limit := readGoesOn.Add(waitTimeout); !ended.Before(limit) {
		t.Errorf("the second delivery ended %v after its read could go on, not before WaitTimeout (%v): its claim waited a WaitTimeout of its own",
			ended.Sub(readGoesOn), waitTimeout)
	}
	if n := li.waiters(t); n != 0 {
		t.Errorf("%d of the consumer's backends still wait on a lock after it answered", n)
	}

	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if r, err := li.consumer.Deliver(t.Context(), msg("msg_1", "{}")); err != nil || r.Outcome != inbox.Duplicate {
		t.Errorf("the redelivery after the first delivery committed: %+v, %v; want a duplicate", r, err)
	}
}
