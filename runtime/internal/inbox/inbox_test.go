package inbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
)

func msg(id, body string) inbox.Message {
	return inbox.Message{Source: "bank", ID: id, Body: []byte(body)}
}

// TestRedeliveryIsDuplicate: a processed message's changes and effect
// commit once; its redelivery is acknowledged without running the handler.
func TestRedeliveryIsDuplicate(t *testing.T) {
	cs := newDB(t)
	var runs atomic.Int32
	c := newConsumer(t, cs, 3, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		runs.Add(1)
		return settle(ctx, tx, op, m)
	})
	first, err := c.Deliver(t.Context(), msg("msg_1", `{"payment_id":"p1"}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := c.Deliver(t.Context(), msg("msg_1", `{"payment_id":"p1"}`))
		if err != nil {
			t.Fatal(err)
		}
		if again.Outcome != inbox.Duplicate || !again.Outcome.Ack() || again.OperationID != first.OperationID {
			t.Errorf("redelivery: %+v, want a duplicate of %s", again, first.OperationID)
		}
	}
	if first.Outcome != inbox.Processed || first.Attempts != 1 || !first.Outcome.Ack() {
		t.Errorf("first delivery: %+v, want processed after 1 attempt", first)
	}
	settled, effects, rows := counts(t, cs)
	if runs.Load() != 1 || settled != 1 || effects != 1 || rows != 1 {
		t.Errorf("handler runs %d, settled %d, effects %d, inbox rows %d; want 1 each", runs.Load(), settled, effects, rows)
	}
}

// TestSameIDOtherBodyIsMismatch: the id is bound to the first body; the
// same id with another body never runs, before or after processing.
func TestSameIDOtherBodyIsMismatch(t *testing.T) {
	cs := newDB(t)
	var runs atomic.Int32
	failOnce := true
	c := newConsumer(t, cs, 3, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		runs.Add(1)
		if failOnce {
			failOnce = false
			return errPoison
		}
		return settle(ctx, tx, op, m)
	})
	var got []string
	for _, body := range []string{`{"a":1}`, `{"a":2}`, `{"a":1}`, `{"a":2}`} {
		r, err := c.Deliver(t.Context(), msg("msg_1", body))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Outcome.String())
	}
	// failed (counted, body bound), refused, processed, refused
	want := []string{"retry", "mismatch", "processed", "mismatch"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if runs.Load() != 2 {
		t.Errorf("handler ran %d times, want 2", runs.Load())
	}
}

// TestFailedHandlerLeavesNothing: a failing handler's changes and effects
// roll back, each attempt is counted in the inbox row, and after the
// contract's attempts the message is dead: acknowledged, never run again.
func TestFailedHandlerLeavesNothing(t *testing.T) {
	cs := newDB(t)
	var runs atomic.Int32
	c := newConsumer(t, cs, 3, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		runs.Add(1)
		if err := settle(ctx, tx, op, m); err != nil {
			return err
		}
		return errPoison
	})
	type step struct {
		Outcome  string
		Attempts int
		Ack      bool
	}
	var got []step
	for range 5 {
		r, err := c.Deliver(t.Context(), msg("poison", `{}`))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome == inbox.Retry && !errors.Is(r.Err, errPoison) {
			t.Errorf("Err = %v, want the handler's", r.Err)
		}
		got = append(got, step{r.Outcome.String(), r.Attempts, r.Outcome.Ack()})
	}
	want := []step{{"retry", 1, false}, {"retry", 2, false}, {"dead-lettered", 3, true},
		{"dead-lettered", 3, true}, {"dead-lettered", 3, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deliveries (-want +got):\n%s", diff)
	}
	settled, effects, rows := counts(t, cs)
	if runs.Load() != 3 || settled != 0 || effects != 0 || rows != 1 {
		t.Errorf("handler runs %d, settled %d, effects %d, inbox rows %d; want 3, 0, 0, 1", runs.Load(), settled, effects, rows)
	}
	var lastError string
	var body []byte
	if err := newPool(t, cs).QueryRow(t.Context(), `SELECT last_error, body FROM idempotency_inbox`).Scan(&lastError, &body); err != nil {
		t.Fatal(err)
	}
	if lastError != errPoison.Error() || string(body) != `{}` {
		t.Errorf("dead row: last_error %q, body %q; want the handler's error and the body", lastError, body)
	}
}

// TestConcurrentDeliveriesRunOnce: many deliveries of one message at once,
// through several consumers on pools of their own (as several processes
// would), start one handler commit; every delivery is acknowledged.
func TestConcurrentDeliveriesRunOnce(t *testing.T) {
	const pools, perPool, messages = 3, 8, 4
	cs := newDB(t)
	var runs atomic.Int32
	consumers := make([]*inbox.Consumer, pools)
	for i := range consumers {
		consumers[i] = newConsumer(t, cs, 3, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
			runs.Add(1)
			return settle(ctx, tx, op, m)
		})
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for n := range messages {
		for _, c := range consumers {
			for range perPool {
				wg.Go(func() {
					<-start
					r, err := c.Deliver(t.Context(), msg(fmt.Sprintf("msg_%d", n), `{"n":1}`))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					outcomes[r.Outcome.String()]++
					mu.Unlock()
				})
			}
		}
	}
	close(start)
	wg.Wait()
	want := map[string]int{"processed": messages, "duplicate": messages * (pools*perPool - 1)}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	settled, effects, rows := counts(t, cs)
	if runs.Load() != messages || settled != messages || effects != messages || rows != messages {
		t.Errorf("handler runs %d, settled %d, effects %d, inbox rows %d; want %d each", runs.Load(), settled, effects, rows, messages)
	}
}

// TestSourcesAndConsumersAreApart: the same id from another source, or
// for another consumer, is another message.
func TestSourcesAndConsumersAreApart(t *testing.T) {
	cs := newDB(t)
	c := newConsumer(t, cs, 3, func(ctx context.Context, tx pgx.Tx, _ *core.Operation, m *inbox.Message) error {
		_, err := tx.Exec(ctx, `INSERT INTO settled (payment_id, body) VALUES ($1, '')`, m.Source+"/"+m.ID)
		return err
	})
	for _, source := range []string{"bank", "psp"} {
		r, err := c.Deliver(t.Context(), inbox.Message{Source: source, ID: "msg_1"})
		if err != nil || r.Outcome != inbox.Processed {
			t.Errorf("%s: %+v, %v; want processed", source, r, err)
		}
	}
	if _, err := c.Deliver(t.Context(), inbox.Message{Source: "bank"}); !errors.Is(err, inbox.ErrInvalidMessage) {
		t.Errorf("a message without an id: %v, want ErrInvalidMessage", err)
	}
}

// TestUnusableIDsAreRefused: an id that is empty, longer than the
// consumer's MaxIDLength (the default's 255 bytes here), not UTF-8 or with
// a control character is refused with ErrInvalidMessage and
// ErrKeyMalformed, saying why; the handler never runs and nothing is
// kept, so the same message under its first 255 bytes is processed.
func TestUnusableIDsAreRefused(t *testing.T) {
	cs := newDB(t)
	runs := 0
	c := newConsumer(t, cs, 1, func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
		runs++
		return settle(ctx, tx, op, m)
	})
	long := strings.Repeat("k", 256)
	for _, tc := range []struct{ id, want string }{
		{"", "idem: invalid message: idem: idempotency key malformed: the message id is empty"},
		{long, "the message id of 256 bytes, at most 255 allowed"},
		{"msg\xff", "the message id is not UTF-8 at byte 3"},
		{"msg\x00", "the message id holds the control character U+0000 at byte 3"},
		{"msg\r\n1", "control character U+000D at byte 3"},
	} {
		_, err := c.Deliver(t.Context(), inbox.Message{Source: "bank", ID: tc.id, Body: []byte("{}")})
		if !errors.Is(err, inbox.ErrInvalidMessage) || !errors.Is(err, idemkey.ErrMalformed) ||
			!strings.Contains(err.Error(), tc.want) {
			t.Errorf("id %q: %v; want ErrInvalidMessage and ErrMalformed saying %q", tc.id, err, tc.want)
		}
	}
	if settled, effects, rows := counts(t, cs); runs != 0 || settled != 0 || effects != 0 || rows != 0 {
		t.Fatalf("handler runs %d, settled %d, effects %d, inbox rows %d; want 0 each", runs, settled, effects, rows)
	}
	if r, err := c.Deliver(t.Context(), inbox.Message{Source: "bank", ID: long[:255], Body: []byte("{}")}); err != nil || r.Outcome != inbox.Processed {
		t.Errorf("the id's first 255 bytes: %+v, %v; want processed", r, err)
	}
}

// TestHandlerCannotEndTheTransaction: the handler's tx refuses Commit.
func TestHandlerCannotEndTheTransaction(t *testing.T) {
	cs := newDB(t)
	c := newConsumer(t, cs, 1, func(ctx context.Context, tx pgx.Tx, _ *core.Operation, _ *inbox.Message) error {
		return tx.Commit(ctx)
	})
	r, err := c.Deliver(t.Context(), msg("msg_1", ""))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != inbox.DeadLettered || !errors.Is(r.Err, core.ErrTxOwnedByExecutor) {
		t.Errorf("%+v, want dead-lettered by ErrTxOwnedByExecutor", r)
	}
}

// TestSweepForgetsProcessedMessagesAfterRetention: the executor's sweep
// deletes a processed message past its retention (a redelivery then runs
// as a new message) and keeps a dead one, which has no end.
func TestSweepForgetsProcessedMessagesAfterRetention(t *testing.T) {
	cs := newDB(t)
	e, err := core.New(core.Config{Pool: newPool(t, cs)})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 1, Retention: time.Nanosecond,
		Handler: func(_ context.Context, _ pgx.Tx, _ *core.Operation, m *inbox.Message) error {
			runs.Add(1)
			if m.ID == "poison" {
				return errPoison
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"msg_1", "poison"} {
		if _, err := c.Deliver(t.Context(), msg(id, "{}")); err != nil {
			t.Fatal(err)
		}
	}
	res, err := core.Sweep(t.Context(), e, core.MaintainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.MessagesDeleted != 1 {
		t.Errorf("MessagesDeleted = %d, want 1 (the processed message, not the dead one)", res.MessagesDeleted)
	}
	again, err := c.Deliver(t.Context(), msg("msg_1", "{}"))
	if err != nil || again.Outcome != inbox.Processed || runs.Load() != 3 {
		t.Errorf("redelivery after retention: %+v, %v, handler runs %d; want processed anew, 3 runs", again, err, runs.Load())
	}
	if dead, err := c.Deliver(t.Context(), msg("poison", "{}")); err != nil || dead.Outcome != inbox.DeadLettered {
		t.Errorf("the dead message after the sweep: %+v, %v; want still dead-lettered", dead, err)
	}
}

// TestConcurrentDeliveryWaitsAtMostWaitTimeout: while one delivery's
// handler runs, another delivery of the same message waits for it up to
// WaitTimeout and then gives up with ErrBusy, having done nothing; the
// handler's own statements run under the session's lock_timeout, not the
// bound of the message's lock.
func TestConcurrentDeliveryWaitsAtMostWaitTimeout(t *testing.T) {
	cs := newDB(t)
	e, err := core.New(core.Config{Pool: newPool(t, cs)})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan string, 1), make(chan struct{})
	c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: time.Hour,
		WaitTimeout: 50 * time.Millisecond,
		Handler: func(ctx context.Context, tx pgx.Tx, _ *core.Operation, _ *inbox.Message) error {
			var lockTimeout string
			if err := tx.QueryRow(ctx, `SHOW lock_timeout`).Scan(&lockTimeout); err != nil {
				return err
			}
			started <- lockTimeout
			<-release
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan inbox.Result, 1)
	go func() {
		r, err := c.Deliver(t.Context(), msg("msg_1", "{}"))
		if err != nil {
			t.Error(err)
		}
		first <- r
	}()
	if lockTimeout := <-started; lockTimeout != "0" {
		t.Errorf("the handler runs under lock_timeout %s, want the session's 0", lockTimeout)
	}
	if _, err := c.Deliver(t.Context(), msg("msg_1", "{}")); !errors.Is(err, inbox.ErrBusy) {
		t.Errorf("a delivery while the first runs: %v, want ErrBusy", err)
	}
	close(release)
	if r := <-first; r.Outcome != inbox.Processed {
		t.Errorf("the first delivery: %+v, want processed", r)
	}
}

// deadlineOnly is a context whose Deadline is deadline while only its
// parent's end makes it Done: the consumer reads the deadline, and the
// client side never ends the wait before the parent does.
type deadlineOnly struct {
	context.Context
	deadline time.Time
}

func (c deadlineOnly) Deadline() (time.Time, bool) { return c.deadline, true }

// A delivery's deadline shorter than WaitTimeout bounds its wait for the
// message's lock on the server (lock_timeout from the deadline): the wait
// ends near the deadline although the context is not Done until the
// backstop, and the error is the deadline's, as when the client's own
// deadline ends the wait, not ErrBusy.
func TestDeliveryDeadlineBoundsTheServersWait(t *testing.T) {
	cs := newDB(t)
	e, err := core.New(core.Config{Pool: newPool(t, cs)})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}, 1), make(chan struct{})
	c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: time.Hour,
		WaitTimeout: time.Minute,
		Handler: func(context.Context, pgx.Tx, *core.Operation, *inbox.Message) error {
			started <- struct{}{}
			<-release
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := c.Deliver(t.Context(), msg("msg_1", "{}"))
		first <- err
	}()
	<-started
	parent, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err = c.Deliver(deadlineOnly{Context: parent, deadline: time.Now().Add(200 * time.Millisecond)}, msg("msg_1", "{}"))
	beforeBackstop := parent.Err() == nil
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if !beforeBackstop {
		t.Fatal("the delivery waited until the backstop: the server did not end the wait at the deadline")
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, inbox.ErrBusy) {
		t.Errorf("a delivery past its deadline: %v, want the deadline's error", err)
	}
}
