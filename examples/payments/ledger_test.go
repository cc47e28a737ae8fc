package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/examples/payments/api"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ledgerConsumer is the ledger consumer's name in the inbox: its
// operationId in openapi.yaml.
const ledgerConsumer = "enterSettlement"

// natsWaitLimit bounds the test's waits for deliveries: a failure's limit,
// never an assertion on timing.
const natsWaitLimit = 2 * time.Minute

// One settlement published 20 times to the bank's JetStream subject (ten
// times under its webhook's id as Nats-Msg-Id, which the stream drops but
// once, and ten times under new ids, as a republish after the duplicate
// window would be) and consumed by two instances of the ledger consumer
// enters the payment in the ledger once: one handler run, ten duplicates,
// every message acknowledged.
func TestLedgerEntersASettlementOnce(t *testing.T) {
	nc := connectNATS(t)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	suffix := strings.ToUpper(rand.Text()[:10])
	feed := settlementFeed{url: nc.ConnectedUrl(), stream: "LEDGER_TEST_" + suffix, subject: "ledger-test." + suffix,
		durable: bankFeed.durable}
	// The stream as the bank creates it, before the service starts.
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: feed.stream, Subjects: []string{feed.subject},
		Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), feed.stream) })

	pool, consumer := newLedgerDB(t)
	var payment int64
	if err := pool.QueryRow(ctx, `INSERT INTO payments (merchant, amount, currency, status) VALUES ('m', 4200, 'EUR', 'approved')
RETURNING id`).Scan(&payment); err != nil {
		t.Fatal(err)
	}
	// The bank's body and webhook id (bank/webhooks.go), charge 17.
	body := fmt.Appendf(nil, `{"type": "payment.settled", "payment_id": %d}`, payment)
	dropped := 0
	for i := range 20 {
		id := "msg_settle_17"
		if i >= 10 {
			id = fmt.Sprintf("msg_settle_17-again-%d", i)
		}
		msg := nats.NewMsg(feed.subject)
		msg.Header.Set(jetstream.MsgIDHeader, id)
		msg.Data = body
		ack, err := js.PublishMsg(ctx, msg)
		if err != nil {
			t.Fatal(err)
		}
		if ack.Duplicate {
			dropped++
		}
	}
	if dropped != 9 {
		t.Fatalf("the stream dropped %d publishes as duplicates, want 9", dropped)
	}

	rec := &recorder{next: consumer, outcomes: make(chan idem.MessageOutcome, 32)}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 2)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for range 2 {
		go func() { done <- consumeSettlements(runCtx, feed, rec, log) }()
	}
	got := map[idem.MessageOutcome]int{}
	limit := time.After(natsWaitLimit)
	for range 11 {
		select {
		case o := <-rec.outcomes:
			got[o]++
		case err := <-done:
			t.Fatalf("a consumer stopped: %v", err)
		case <-limit:
			t.Fatalf("after %v, outcomes %v of 11 messages", natsWaitLimit, got)
		}
	}
	stop()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	close(rec.outcomes)
	for o := range rec.outcomes {
		got[o]++
	}
	if diff := cmp.Diff(map[idem.MessageOutcome]int{idem.MessageProcessed: 1, idem.MessageDuplicate: 10}, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}

	var entries, all int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE payment_id = $1 AND amount = 4200 AND kind = 'settlement'), count(*)
FROM ledger_entries`, payment).Scan(&entries, &all); err != nil {
		t.Fatal(err)
	}
	if entries != 1 || all != 1 {
		t.Errorf("%d ledger entries for the payment, %d in all, want 1 and 1", entries, all)
	}
	type inboxRow struct {
		Source, MessageID, State string
		Attempts                 int
	}
	var row inboxRow
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) OVER (), source, message_id, state, attempts FROM idempotency.idempotency_inbox
WHERE consumer = $1`, ledgerConsumer).Scan(&rows, &row.Source, &row.MessageID, &row.State, &row.Attempts); err != nil {
		t.Fatal(err)
	}
	want := inboxRow{Source: "bank", MessageID: fmt.Sprint(payment), State: "processed", Attempts: 1}
	if diff := cmp.Diff(want, row); rows != 1 || diff != "" {
		t.Errorf("%d inbox rows; the ledger's (-want +got):\n%s", rows, diff)
	}
	cons, err := js.Consumer(ctx, feed.stream, feed.durable)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumPending != 0 || info.NumAckPending != 0 || info.Delivered.Stream != 11 {
		t.Errorf("the durable consumer: %d pending, %d unacknowledged, delivered up to %d, want 0, 0, 11",
			info.NumPending, info.NumAckPending, info.Delivered.Stream)
	}
}

// connectNATS connects to NATS_URL (default nats://127.0.0.1:4222), or
// skips the test saying how to start a server.
func connectNATS(t *testing.T) *nats.Conn {
	t.Helper()
	url := os.Getenv("NATS_URL")
	if url == "" {
		url = nats.DefaultURL
	}
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second))
	if err != nil {
		t.Skipf("no NATS server at %s (%v): start one with JetStream, nats-server -js, or set NATS_URL", url, err)
	}
	t.Cleanup(nc.Close)
	if _, err := nc.JetStream(); err != nil {
		t.Skipf("NATS at %s: %v: start the server with JetStream (-js)", url, err)
	}
	return nc
}

// newLedgerDB migrates a database of the test's own as the service does
// and returns its pool and the ledger consumer.
func newLedgerDB(t *testing.T) (*pgxpool.Pool, idembroker.Deliverer) {
	t.Helper()
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := idem.Migrate(ctx, pool, idempotencySchema); err != nil {
		t.Fatal(err)
	}
	if err := createTables(ctx, pool); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema})
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.NewEnterSettlementConsumer(exec, api.Service{})
	if err != nil {
		t.Fatal(err)
	}
	return pool, c
}

// recorder passes the consumer's deliveries on and sends each outcome.
type recorder struct {
	next     idembroker.Deliverer
	outcomes chan idem.MessageOutcome
}

func (r *recorder) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	res, err := r.next.Deliver(ctx, m)
	if err == nil {
		r.outcomes <- res.Outcome
	}
	return res, err
}

// A settlement whose body has no payment id, or is not a settlement,
// fails each delivery with an error that says so, is counted in the inbox
// under the broker's id and dead-lettered at the declared eighth attempt;
// the handler never runs (the ledger stays empty).
func TestLedgerDeadLettersAnUnusableSettlement(t *testing.T) {
	pool, consumer := newLedgerDB(t)
	ctx := t.Context()
	// id is the broker's message id, key the inbox's: the payment when
	// the body has one.
	for _, tc := range []struct {
		id, key, body, want string
	}{
		{"msg-1", "msg-1", `{"type": "payment.settled"}`, "/payment_id"},
		{"msg-2", "7", `{"type": "payment.refunded", "payment_id": 7}`, `/type: must be one of "payment.settled"`},
	} {
		for attempt := 1; attempt <= 8; attempt++ {
			res, err := consumer.Deliver(ctx, idem.Message{Source: "BANK_SETTLEMENTS", ID: tc.id, Body: []byte(tc.body)})
			if err != nil {
				t.Fatalf("%s, attempt %d: %v", tc.id, attempt, err)
			}
			want := idem.MessageRetry
			if attempt == 8 {
				want = idem.MessageDeadLettered
			}
			if res.Outcome != want || res.Attempts != attempt {
				t.Fatalf("%s, attempt %d: outcome %v after %d attempts, want %v", tc.id, attempt, res.Outcome, res.Attempts, want)
			}
			if res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) {
				t.Fatalf("%s, attempt %d: error %v, want one naming %s", tc.id, attempt, res.Err, tc.want)
			}
		}
		var state, source string
		if err := pool.QueryRow(ctx, `SELECT state, source FROM idempotency.idempotency_inbox WHERE consumer = $1 AND message_id = $2`,
			ledgerConsumer, tc.key).Scan(&state, &source); err != nil {
			t.Fatal(err)
		}
		if state != "dead" || source != "bank" {
			t.Errorf("%s: inbox row %s from %s, want dead from bank", tc.id, state, source)
		}
	}
	var entries int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM ledger_entries`).Scan(&entries); err != nil {
		t.Fatal(err)
	}
	if entries != 0 {
		t.Errorf("%d ledger entries, want 0", entries)
	}
}
