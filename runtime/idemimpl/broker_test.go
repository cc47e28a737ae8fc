package idemimpl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// settlement is a broker consumer's typed body in miniature.
type settlement struct {
	PaymentID int64 `json:"payment_id"`
}

// newSettlements returns a broker consumer of settlements, keyed by
// keyPointer ("" for the broker's id), whose handler records each
// payment it runs for and enqueues one effect; decode refuses a body
// without a positive payment id, as a generated decoder refuses what the
// schema does not allow.
func newSettlements(t *testing.T, keyPointer string) (*BrokerConsumer, *[]int64) {
	t.Helper()
	exec := migratedExecutor(t)
	var ran []int64
	decode := func(body []byte) (*settlement, error) {
		var s settlement
		if err := json.Unmarshal(body, &s); err != nil || s.PaymentID <= 0 {
			return nil, errors.New("request body invalid: /payment_id: want a positive integer")
		}
		return &s, nil
	}
	run := func(ctx context.Context, tx pgx.Tx, op *Operation, s *settlement) error {
		ran = append(ran, s.PaymentID)
		_, err := op.Enqueue(ctx, tx, Effect{Name: "ledger_copy", OnUnknown: "retry", Payload: []byte("{}")})
		return err
	}
	c, err := NewBrokerConsumer(exec, Broker{Name: "ledger", Source: "bank", KeyPointer: keyPointer, MaxAttempts: 2,
		Retention: time.Hour}, decode, run)
	if err != nil {
		t.Fatal(err)
	}
	return c, &ran
}

// deliver delivers body under the broker's id and returns the outcome.
func deliver(t *testing.T, c *BrokerConsumer, id, body string) idem.DeliveryResult {
	t.Helper()
	res, err := c.Deliver(t.Context(), idem.Message{Source: "BANK_SETTLEMENTS", ID: id, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Keyed by a body member, a settlement published again under another
// broker id is a duplicate: the handler runs once per payment.
func TestBrokerConsumerKeyedByBody(t *testing.T) {
	c, ran := newSettlements(t, "/payment_id")
	first := deliver(t, c, "msg-1", `{"payment_id": 42}`)
	again := deliver(t, c, "msg-2", `{"payment_id": 42}`)
	if first.Outcome != idem.MessageProcessed || again.Outcome != idem.MessageDuplicate {
		t.Fatalf("outcomes %v, %v; want processed, duplicate", first.Outcome, again.Outcome)
	}
	if first.OperationID != again.OperationID {
		t.Errorf("operation ids %s, %s: one payment, one operation", first.OperationID, again.OperationID)
	}
	if len(*ran) != 1 || (*ran)[0] != 42 {
		t.Errorf("handler ran for %v, want [42]", *ran)
	}
}

// Keyed by the broker's id, the same body under another id is a new
// message.
func TestBrokerConsumerKeyedByMessageID(t *testing.T) {
	c, ran := newSettlements(t, "")
	for _, id := range []string{"msg-1", "msg-1", "msg-2"} {
		deliver(t, c, id, `{"payment_id": 42}`)
	}
	if len(*ran) != 2 {
		t.Errorf("handler ran %d times for ids msg-1, msg-1, msg-2; want 2", len(*ran))
	}
}

// A body without its key, or that its decoder refuses, fails each
// delivery with an error naming why, without running the handler, and is
// dead-lettered at max-attempts.
func TestBrokerConsumerFailsAnUnusableBody(t *testing.T) {
	c, ran := newSettlements(t, "/payment_id")
	for _, tc := range []struct{ id, body, want string }{
		{"msg-1", `{"amount": 5}`, "the body has no /payment_id"},
		{"msg-2", `{"payment_id": -1}`, "want a positive integer"},
	} {
		for attempt, want := range []idem.MessageOutcome{idem.MessageRetry, idem.MessageDeadLettered} {
			res := deliver(t, c, tc.id, tc.body)
			if res.Outcome != want || res.Attempts != attempt+1 || res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) {
				t.Errorf("%s, attempt %d: %v after %d attempts, error %v; want %v and an error with %q",
					tc.body, attempt+1, res.Outcome, res.Attempts, res.Err, want, tc.want)
			}
		}
	}
	if len(*ran) != 0 {
		t.Errorf("handler ran for %v, want never", *ran)
	}
}

// A contract without a source is refused: the source scopes every key.
func TestNewBrokerConsumerNeedsASource(t *testing.T) {
	exec, err := idem.NewExecutor(idem.Config{Pool: pgtest.Pool(t)})
	if err != nil {
		t.Fatal(err)
	}
	decode := func([]byte) (int, error) { return 0, nil }
	run := func(context.Context, pgx.Tx, *Operation, int) error { return nil }
	if _, err := NewBrokerConsumer(exec, Broker{Name: "ledger", MaxAttempts: 1, Retention: time.Hour}, decode, run); err == nil ||
		!strings.Contains(err.Error(), "without a source") {
		t.Errorf("NewBrokerConsumer without a source: %v, want an error saying so", err)
	}
}

// migratedExecutor returns an executor on a migrated database of the
// test's own.
func migratedExecutor(t *testing.T) *idem.Executor {
	t.Helper()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	return exec
}
