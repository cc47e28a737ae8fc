package idemimpl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
// payment it runs for and enqueues one effect, and whose keys are at
// most 64 bytes; decode refuses a body without a positive payment id, as
// a generated decoder refuses what the schema does not allow.
func newSettlements(t *testing.T, keyPointer string) (*BrokerConsumer, *[]int64) {
	t.Helper()
	c, ran, _ := newSettlementsPool(t, keyPointer)
	return c, ran
}

// newSettlementsPool is newSettlements, with the pool of its database.
func newSettlementsPool(t *testing.T, keyPointer string) (*BrokerConsumer, *[]int64, *pgxpool.Pool) {
	t.Helper()
	exec, pool := migratedExecutor(t)
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
	c, err := NewBrokerConsumer(exec, Broker{Name: "ledger", Source: "bank", KeyPointer: keyPointer, KeyMaxLength: 64, MaxAttempts: 2,
		Retention: time.Hour}, decode, run)
	if err != nil {
		t.Fatal(err)
	}
	return c, &ran, pool
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
		{"msg-3", `{"payment_id": "a\u0000b"}`, "/payment_id holds the control character U+0000 at byte 1"},
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

// Keyed by the broker's id, an id that is empty, longer than the
// contract's key.max-length, not UTF-8 or holds a control character is
// refused like a body's key, naming why: the handler never runs, the
// inbox keeps nothing, and the id's first max-length bytes are then a new
// message, processed.
func TestBrokerConsumerRefusesAnUnusableMessageID(t *testing.T) {
	c, ran, pool := newSettlementsPool(t, "")
	long := strings.Repeat("k", 64)
	for _, tc := range []struct{ id, want string }{
		{"", "the message id is empty"},
		{long + "k", "the message id of 65 bytes, at most 64 allowed"},
		{"msg\x00", "the message id holds the control character U+0000 at byte 3"},
		{"msg\xc3(", "the message id is not UTF-8 at byte 3"},
	} {
		_, err := c.Deliver(t.Context(), idem.Message{Source: "BANK_SETTLEMENTS", ID: tc.id, Body: []byte(`{"payment_id": 42}`)})
		if !errors.Is(err, idem.ErrInvalidMessage) || !errors.Is(err, idem.ErrKeyMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("id %q: %v; want ErrInvalidMessage and ErrKeyMalformed saying %q", tc.id, err, tc.want)
		}
	}
	var rows int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM idempotency_inbox`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if len(*ran) != 0 || rows != 0 {
		t.Fatalf("handler ran for %v, %d inbox rows; want none", *ran, rows)
	}
	if res := deliver(t, c, long, `{"payment_id": 42}`); res.Outcome != idem.MessageProcessed {
		t.Errorf("the id's first 64 bytes: %v, want processed", res.Outcome)
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
// test's own, and its pool.
func migratedExecutor(t *testing.T) (*idem.Executor, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.Pool(t)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	return exec, pool
}
