package idemops_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemops"
)

// TestDeadMessageRetriedOnce: a poison message is dead after the
// consumer's attempts and listed; a support retry with actor and reason
// delivers it once more from its stored body (here the handler has been
// fixed, so it is processed), and never again.
func TestDeadMessageRetriedOnce(t *testing.T) {
	d := newDB(t)
	d.exec(t, `CREATE TABLE support.settled (payment_id text PRIMARY KEY)`)
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Schema: "support"})
	if err != nil {
		t.Fatal(err)
	}
	var fixed atomic.Bool
	var runs atomic.Int32
	consumer := settleConsumer(t, exec, 3, &fixed, &runs)
	msg := idem.Message{Source: "bank", ID: "msg_9", Body: []byte(`{"payment_id":"pay_9"}`)}
	var last idem.DeliveryResult
	for range 4 {
		if last, err = consumer.Deliver(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
	}
	if last.Outcome != idem.MessageDeadLettered || runs.Load() != 3 {
		t.Fatalf("after 4 deliveries: %v, handler runs %d; want dead-lettered after 3", last.Outcome, runs.Load())
	}

	ops := d.client(t, idemops.Config{})
	dead, err := ops.ListMessages(t.Context(), idemops.MessageFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 || dead[0].State != idemops.MessageDead || dead[0].Attempts != 3 || dead[0].OperationID != last.OperationID ||
		dead[0].LastError != "the ledger has no payment pay_9" || dead[0].BodyBytes != len(msg.Body) {
		t.Fatalf("ListMessages = %+v, want the dead message after 3 attempts", dead)
	}
	if _, err := ops.RetryMessage(t.Context(), last.OperationID, idemops.Action{Actor: "ana"}); !errors.Is(err, idemops.ErrInvalid) {
		t.Errorf("a retry without a reason: %v, want ErrInvalid", err)
	}
	fixed.Store(true)
	entry, err := ops.RetryMessage(t.Context(), last.OperationID, idemops.Action{Actor: "ana", Reason: "the payment was backfilled"})
	if err != nil {
		t.Fatal(err)
	}
	if entry.From != idemops.MessageDead || entry.To != idemops.MessageRetry || entry.MessageID != "msg_9" || entry.Consumer != "settle" {
		t.Errorf("audit entry %+v, want dead -> retry of settle's msg_9", entry)
	}
	if _, err := ops.RetryMessage(t.Context(), last.OperationID, idemops.Action{Actor: "ana", Reason: "twice"}); !errors.Is(err, idemops.ErrWrongState) {
		t.Errorf("a second retry before the redelivery: %v, want ErrWrongState", err)
	}
	for i, want := range []int{1, 0} {
		res, err := consumer.Redrive(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != want || (want == 1 && res[0].Outcome != idem.MessageProcessed) {
			t.Errorf("redrive %d: %+v, want %d processed", i, res, want)
		}
	}
	var settled int
	if err := d.pool.QueryRow(t.Context(), `SELECT count(*) FROM support.settled`).Scan(&settled); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 4 || settled != 1 {
		t.Errorf("handler runs %d, settled %d; want 4 and 1", runs.Load(), settled)
	}
	if again, err := consumer.Deliver(t.Context(), msg); err != nil || again.Outcome != idem.MessageDuplicate {
		t.Errorf("the sender's late redelivery: %+v, %v; want a duplicate", again, err)
	}
}

// settleConsumer returns exec's consumer settle with maxAttempts: its
// handler counts its runs in runs and fails until fixed, then settles
// pay_9 in support.settled.
func settleConsumer(t *testing.T, exec *idem.Executor, maxAttempts int, fixed *atomic.Bool, runs *atomic.Int32) *idem.Consumer {
	t.Helper()
	consumer, err := idem.NewConsumer(exec, idem.ConsumerConfig{Name: "settle", MaxAttempts: maxAttempts, Retention: 80 * time.Hour,
		Handler: func(ctx context.Context, tx pgx.Tx, _ *idem.Delivery) error {
			runs.Add(1)
			if !fixed.Load() {
				return errors.New("the ledger has no payment pay_9")
			}
			_, err := tx.Exec(ctx, `INSERT INTO support.settled VALUES ('pay_9')`)
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	return consumer
}

// TestRetriedMessageThatFailsAgainIsDead: the support retry is one
// delivery; a failure makes the message dead again at once.
func TestRetriedMessageThatFailsAgainIsDead(t *testing.T) {
	d := newDB(t)
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Schema: "support"})
	if err != nil {
		t.Fatal(err)
	}
	consumer, err := idem.NewConsumer(exec, idem.ConsumerConfig{Name: "settle", MaxAttempts: 2, Retention: time.Hour,
		Handler: func(context.Context, pgx.Tx, *idem.Delivery) error { return errors.New("still broken") }})
	if err != nil {
		t.Fatal(err)
	}
	msg := idem.Message{Source: "bank", ID: "msg_1", Body: []byte(`{}`)}
	var last idem.DeliveryResult
	for range 2 {
		if last, err = consumer.Deliver(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
	}
	ops := d.client(t, idemops.Config{})
	if _, err := ops.RetryMessage(t.Context(), last.OperationID, idemops.Action{Actor: "ana", Reason: "try once more"}); err != nil {
		t.Fatal(err)
	}
	res, err := consumer.Redrive(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Outcome != idem.MessageDeadLettered || res[0].Attempts != 3 {
		t.Errorf("redrive: %+v, want one dead-lettered after 3 attempts", res)
	}
}
