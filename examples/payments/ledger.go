package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/examples/payments/api"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
	jsadapter "github.com/idemgen/idemgen/runtime/idembroker/jetstream"
)

// settlementFeed is where the bank publishes its settlements on JetStream
// (the bank's -nats-url) and the service's durable consumer of them.
type settlementFeed struct {
	url     string // the NATS server; "" runs no ledger consumer
	stream  string
	subject string
	durable string
}

// bankFeed is the bank simulator's stream and subject (bank/publish.go).
var bankFeed = settlementFeed{stream: "BANK_SETTLEMENTS", subject: "bank.settlements", durable: "payments-ledger"}

// The ledger consumer's contract: its name in the inbox, its poison
// policy, and how long a settlement is remembered. The bank publishes a
// settlement again when it crashed between the publish and its mark, at
// any later time, so the retention is the webhook's (openapi.yaml), the
// longest the bank keeps retrying anything.
const (
	ledgerConsumerName = "ledger"
	ledgerMaxAttempts  = 8
	ledgerRetention    = 80 * time.Hour
	// ledgerAckWait is how long a delivery may take before JetStream
	// hands the message to another consumer (which waits for the first
	// in the inbox).
	ledgerAckWait = 30 * time.Second
)

// newLedgerConsumer returns the second consumer of the bank's
// settlements: each settled payment entered once in the ledger
// (api.Service.EnterSettlement). The contract has no declared form for a
// broker consumer yet (x-idempotency describes webhooks), so it is
// declared here with the runtime's API.
func newLedgerConsumer(exec *idem.Executor, svc api.Service) (*idem.Consumer, error) {
	return idem.NewConsumer(exec, idem.ConsumerConfig{Name: ledgerConsumerName, MaxAttempts: ledgerMaxAttempts,
		Retention: ledgerRetention, Handler: svc.EnterSettlement})
}

// consumeSettlements delivers the feed's settlements to d, keyed by
// payment (byPayment), until ctx ends; it creates the stream when it is
// missing, as the bank does, and the durable consumer.
func consumeSettlements(ctx context.Context, feed settlementFeed, d idembroker.Deliverer, log *slog.Logger) error {
	nc, err := nats.Connect(feed.url, nats.MaxReconnects(-1))
	if err != nil {
		return fmt.Errorf("-nats-url: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: feed.stream, Subjects: []string{feed.subject},
		Storage: jetstream.FileStorage}); err != nil {
		return fmt.Errorf("the stream %s: %w", feed.stream, err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, feed.stream, jetstream.ConsumerConfig{Durable: feed.durable,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ledgerAckWait, MaxDeliver: -1})
	if err != nil {
		return fmt.Errorf("the consumer %s of %s: %w", feed.durable, feed.stream, err)
	}
	log.Info("entering the bank's settlements in the ledger", "stream", feed.stream, "subject", feed.subject)
	return jsadapter.Run(ctx, jsadapter.Config{Consumer: cons, Deliverer: byPayment{d},
		OnError: func(err error) { log.Warn("ledger consumer", "err", err) }})
}

// byPayment keys each settlement by the payment it settles rather than by
// its Nats-Msg-Id: a payment settles once, whichever message says so. The
// bank names a settlement by its webhook id, but a settlement published
// again after the stream's duplicate window, or by another publisher,
// carries another Nats-Msg-Id and the same payment; keyed by payment,
// the inbox answers it as a duplicate (its body is the same). A body
// without a payment id keeps the adapter's key, and its handler fails it.
type byPayment struct{ next idembroker.Deliverer }

// Deliver hands m to the next Deliverer under its payment's id.
func (b byPayment) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	var s api.Settlement
	if json.Unmarshal(m.Body, &s) == nil && s.PaymentID > 0 {
		m.ID = "payment-" + strconv.FormatInt(s.PaymentID, 10)
	}
	return b.next.Deliver(ctx, m)
}
