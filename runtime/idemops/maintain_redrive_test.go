package idemops_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemops"
)

// redriveSignal is a slog.Handler that reports the executor's log of
// retried messages redelivered, and each sweep's.
type redriveSignal struct{ redelivered, swept chan slog.Record }

func (redriveSignal) Enabled(context.Context, slog.Level) bool { return true }
func (s redriveSignal) WithAttrs([]slog.Attr) slog.Handler     { return s }
func (s redriveSignal) WithGroup(string) slog.Handler          { return s }

func (s redriveSignal) Handle(_ context.Context, r slog.Record) error {
	switch r.Message {
	case "idempotent consumer: retried messages redelivered":
		s.redelivered <- r.Clone()
	case "idempotency sweep":
		s.swept <- r.Clone()
	}
	return nil
}

// TestMaintainRedeliversRetriedMessages: a service that only runs the
// executor's Maintain (no loop calling Redrive) processes the message
// support retried, once: Maintain's first round delivers it, and nothing
// is left to redeliver after it.
func TestMaintainRedeliversRetriedMessages(t *testing.T) {
	d := newDB(t)
	d.exec(t, `CREATE TABLE support.settled (payment_id text PRIMARY KEY)`)
	sig := redriveSignal{redelivered: make(chan slog.Record, 4), swept: make(chan slog.Record, 4)}
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Schema: "support", Logger: slog.New(sig)})
	if err != nil {
		t.Fatal(err)
	}
	var fixed atomic.Bool
	var runs atomic.Int32
	consumer := settleConsumer(t, exec, 1, &fixed, &runs)
	dead, err := consumer.Deliver(t.Context(), idem.Message{Source: "bank", ID: "msg_9", Body: []byte(`{"payment_id":"pay_9"}`)})
	if err != nil || dead.Outcome != idem.MessageDeadLettered {
		t.Fatalf("first delivery: %+v, %v; want dead-lettered", dead, err)
	}
	fixed.Store(true)
	if _, err := d.client(t, idemops.Config{}).RetryMessage(t.Context(), dead.OperationID,
		idemops.Action{Actor: "ana", Reason: "the payment was backfilled"}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	ended := make(chan error)
	go func() { ended <- exec.Maintain(ctx, idem.MaintainOptions{Interval: time.Hour}) }()
	r := <-sig.redelivered
	var delivered int64
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "delivered" {
			delivered = a.Value.Int64()
		}
		return true
	})
	<-sig.swept // the round is over
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	var settled int
	var state string
	if err := d.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM support.settled),
		(SELECT state FROM support.idempotency_inbox WHERE message_id = 'msg_9')`).Scan(&settled, &state); err != nil {
		t.Fatal(err)
	}
	if delivered != 1 || runs.Load() != 2 || settled != 1 || state != "processed" {
		t.Errorf("Maintain delivered %d; handler runs %d, settled %d, state %s; want 1, 2, 1, processed",
			delivered, runs.Load(), settled, state)
	}
	if res, err := consumer.Redrive(t.Context(), 10); err != nil || len(res) != 0 {
		t.Errorf("a redrive after Maintain's: %+v, %v; want nothing left to deliver", res, err)
	}
}
