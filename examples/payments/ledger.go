package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

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

// ledgerAckWait is how long a delivery may take before JetStream hands
// the message to another consumer (which waits for the first in the
// inbox).
const ledgerAckWait = 30 * time.Second

// consumeSettlements delivers the feed's settlements to d, the generated
// consumer (api.NewEnterSettlementConsumer, declared in openapi.yaml: it
// keys each settlement by its payment), until ctx ends; it creates the stream when it is
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
	return jsadapter.Run(ctx, jsadapter.Config{Consumer: cons, Deliverer: d,
		OnError: func(err error) { log.Warn("ledger consumer", "err", err) }})
}
