package inbox_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
)

// backstop ends the deliveries of the tests below: far past every bound
// the server is to apply, so a test that reaches it failed.
const backstop = 10 * time.Second

// lockedApp names the connection of the consumer under test.
const lockedApp = "inbox-under-lock"

// lockedInbox is a consumer on one connection of its own, whose
// statements are prepared, and the tests' view of the database.
type lockedInbox struct {
	cs       string
	admin    *pgxpool.Pool
	consumer *inbox.Consumer
	inFail   chan struct{} // a failing handler has started (fail…)
	proceed  chan struct{} // lets it fail
}

// newLockedInbox returns a consumer named settle waiting at most
// waitTimeout, whose handler settles a message and fails one whose id
// starts with fail (after inFail and proceed, but for the warm-up's).
// A delivery of each kind has run on its one connection, so that its
// statements are prepared, as a busy pool's are (a new connection's are
// bounded alike: TestPreparationWaitIsBoundedAgainstATableLock).
func newLockedInbox(t *testing.T, waitTimeout time.Duration) *lockedInbox {
	t.Helper()
	li := &lockedInbox{cs: newDB(t), inFail: make(chan struct{}, 1), proceed: make(chan struct{})}
	li.admin = newPool(t, li.cs)
	pool := locktest.OneConnPool(t, li.cs, lockedApp)
	e, err := core.New(core.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	li.consumer, err = inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: time.Hour,
		WaitTimeout: waitTimeout,
		Handler: func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
			switch {
			case m.ID == "fail_warm":
				return errPoison
			case strings.HasPrefix(m.ID, "fail"):
				li.inFail <- struct{}{}
				<-li.proceed
				return errPoison
			}
			return settle(ctx, tx, op, m)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := li.consumer.Deliver(t.Context(), msg("warm", "{}")); err != nil || r.Outcome != inbox.Processed {
		t.Fatalf("warm-up: %+v, %v", r, err)
	}
	if r, err := li.consumer.Deliver(t.Context(), msg("fail_warm", "{}")); err != nil || r.Outcome != inbox.Retry {
		t.Fatalf("warm-up of a failure: %+v, %v", r, err)
	}
	return li
}

// The modes the tests lock the inbox table in: SHARE, against writes (the
// reads that answer duplicates still pass), and ACCESS EXCLUSIVE, as
// ALTER TABLE and VACUUM FULL do, against reads too.
const (
	shareMode           = "SHARE"
	accessExclusiveMode = "ACCESS EXCLUSIVE"
)

// lockTable locks the inbox table in mode in a transaction that the
// test's cleanup ends, and returns that transaction.
func (li *lockedInbox) lockTable(t *testing.T, mode string) pgx.Tx {
	t.Helper()
	barrier, err := lockTable(t.Context(), li.admin, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
	return barrier
}

// lockTable returns a transaction of pool that holds the inbox table in
// mode.
func lockTable(ctx context.Context, pool *pgxpool.Pool, mode string) (pgx.Tx, error) {
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

// waiters counts the consumer's backends that wait on a lock.
func (li *lockedInbox) waiters(t *testing.T) int {
	t.Helper()
	return locktest.LockWaiters(t, li.admin, lockedApp)
}

// attempts returns the attempts the inbox counted for message id, -1 for
// no row.
func (li *lockedInbox) attempts(t *testing.T, id string) int {
	t.Helper()
	n := -1
	err := li.admin.QueryRow(t.Context(), `SELECT attempts FROM idempotency_inbox WHERE message_id = $1`, id).Scan(&n)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return n
}

// deliveryContext is the context of a delivery in the tests below: one
// without a deadline, ended only by the backstop (a broker adapter's,
// which delivers under context.WithoutCancel, and net/http's), or one
// whose deadline is 200 ms away while only the backstop makes it Done.
func deliveryContext(t *testing.T, deadline bool) context.Context {
	ctx, cancel := context.WithCancel(t.Context())
	stop := time.AfterFunc(backstop, cancel)
	t.Cleanup(func() { stop.Stop(); cancel() })
	if deadline {
		return deadlineOnly{Context: ctx, deadline: time.Now().Add(200 * time.Millisecond)}
	}
	return ctx
}

// boundCases are the two bounds of a wait: WaitTimeout, answered
// ErrBusy, and a delivery's deadline shorter than it, answered as the
// deadline's error.
var boundCases = []struct {
	name        string
	waitTimeout time.Duration
	deadline    bool
	want        error
}{
	{"wait-timeout", 150 * time.Millisecond, false, inbox.ErrBusy},
	{"deadline", time.Minute, true, context.DeadlineExceeded},
}

// A message's claim waits for the inbox table's lock (DDL, VACUUM FULL,
// LOCK TABLE in another session) no longer than the consumer's bound, on
// the server: the delivery is answered ErrBusy (or its deadline's error),
// to be redelivered, before the backstop, with no backend left waiting,
// the handler not run and nothing counted; once the lock is gone the
// message is processed. Before, the claim waited under the session's
// lock_timeout (none) until the context ended: never for a broker
// consumer, whose context has no end.
func TestClaimWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, tc := range boundCases {
		t.Run(tc.name, func(t *testing.T) {
			li := newLockedInbox(t, tc.waitTimeout)
			barrier := li.lockTable(t, shareMode)
			ctx := deliveryContext(t, tc.deadline)
			_, err := li.consumer.Deliver(ctx, msg("msg_1", "{}"))
			if context.Cause(ctx) != nil {
				t.Fatalf("the delivery lasted until the backstop: %v", err)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("a delivery behind the table's lock: %v, want %v", err, tc.want)
			}
			if n := li.waiters(t); n != 0 {
				t.Errorf("%d of the consumer's backends still wait on a lock after it answered", n)
			}
			if err := barrier.Rollback(t.Context()); err != nil {
				t.Fatal(err)
			}
			if n := li.attempts(t, "msg_1"); n != -1 {
				t.Errorf("the inbox counted %d attempts of the message, want no row", n)
			}
			if r, err := li.consumer.Deliver(t.Context(), msg("msg_1", "{}")); err != nil || r.Outcome != inbox.Processed || r.Attempts != 1 {
				t.Errorf("the redelivery once the lock is gone: %+v, %v; want processed at attempt 1", r, err)
			}
		})
	}
}

// The first read of a delivery, which answers duplicates outside any
// transaction, waits for an ACCESS EXCLUSIVE lock on the inbox table
// (ALTER TABLE, VACUUM FULL) no longer than the consumer's bound, on the
// server: a duplicate's delivery, and a new message's, is answered ErrBusy
// (or its deadline's error), to be redelivered, before the backstop, with
// no backend left waiting and nothing kept; once the lock is gone the
// duplicate is answered as one and the new message processed. Before, the
// read waited under the session's lock_timeout (none) until the context
// ended: never for a broker consumer, whose context has no end.
//
// Each case has a consumer of its own (a redelivery on the same
// connection is TestPreparationWaitIsBoundedAgainstATableLock's).
func TestFirstReadWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, tc := range boundCases {
		for _, m := range []struct {
			id   string
			want inbox.Outcome
		}{{"warm", inbox.Duplicate}, {"msg_1", inbox.Processed}} {
			t.Run(tc.name+"/"+m.id, func(t *testing.T) {
				li := newLockedInbox(t, tc.waitTimeout)
				barrier := li.lockTable(t, accessExclusiveMode)
				ctx := deliveryContext(t, tc.deadline)
				_, err := li.consumer.Deliver(ctx, msg(m.id, "{}"))
				if context.Cause(ctx) != nil {
					t.Fatalf("the delivery lasted until the backstop: %v", err)
				}
				if !errors.Is(err, tc.want) {
					t.Errorf("a delivery behind the table's lock: %v, want %v", err, tc.want)
				}
				if n := li.waiters(t); n != 0 {
					t.Errorf("%d of the consumer's backends still wait on a lock after it answered", n)
				}
				if err := barrier.Rollback(t.Context()); err != nil {
					t.Fatal(err)
				}
				if n, want := li.attempts(t, m.id), map[inbox.Outcome]int{inbox.Duplicate: 1, inbox.Processed: -1}[m.want]; n != want {
					t.Errorf("the inbox counted %d attempts of the message, want %d (-1: no row)", n, want)
				}
				if r, err := li.consumer.Deliver(t.Context(), msg(m.id, "{}")); err != nil || r.Outcome != m.want || r.Attempts != 1 {
					t.Errorf("the redelivery once the lock is gone: %+v, %v; want %v of attempt 1", r, err, m.want)
				}
			})
		}
	}
}

// Counting a failed attempt waits for the inbox table's lock no longer
// than the consumer's bound, on the server: the delivery is answered
// ErrBusy (or its deadline's error), to be redelivered, before the
// backstop, with no backend left waiting and no attempt counted. The lock
// is taken while the handler runs: the barrier queues behind the
// handler's transaction, which holds the inbox row, and the handler fails
// once it waits. Before, the count waited until the context ended.
func TestFailureCountWaitIsBoundedAgainstATableLock(t *testing.T) {
	for _, tc := range boundCases {
		t.Run(tc.name, func(t *testing.T) {
			li := newLockedInbox(t, tc.waitTimeout)
			type result struct {
				r   inbox.Result
				err error
			}
			ctx := deliveryContext(t, tc.deadline)
			done := make(chan result, 1)
			go func() {
				r, err := li.consumer.Deliver(ctx, msg("fail_1", "{}"))
				done <- result{r, err}
			}()
			<-li.inFail
			type lock struct {
				barrier pgx.Tx
				err     error
			}
			locked := make(chan lock, 1)
			go func() {
				barrier, err := lockTable(t.Context(), li.admin, shareMode)
				locked <- lock{barrier, err}
			}()
			locktest.WaitForRelationLock(t, li.admin, "idempotency_inbox", "ShareLock")
			close(li.proceed)
			got := <-done
			l := <-locked
			if l.err != nil {
				t.Fatal(l.err)
			}
			barrier := l.barrier
			t.Cleanup(func() { _ = barrier.Rollback(context.Background()) })
			if context.Cause(ctx) != nil {
				t.Fatalf("the delivery lasted until the backstop: %+v, %v", got.r, got.err)
			}
			if !errors.Is(got.err, tc.want) {
				t.Errorf("a failed delivery behind the table's lock: %+v, %v; want %v", got.r, got.err, tc.want)
			}
			if n := li.waiters(t); n != 0 {
				t.Errorf("%d of the consumer's backends still wait on a lock after it answered", n)
			}
			if err := barrier.Rollback(t.Context()); err != nil {
				t.Fatal(err)
			}
			if n := li.attempts(t, "fail_1"); n != -1 {
				t.Errorf("the inbox counted %d attempts of the message, want no row", n)
			}
		})
	}
}
