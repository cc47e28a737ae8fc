// Command bank is the payments example's card acquirer: a real HTTP
// server that charges cards once per idempotency key, the way a payment
// provider does, and records every request it receives, so that the
// example's tests can count what the bank acted on.
//
//	go run ./examples/payments/bank -addr 127.0.0.1:8090
//
// With port 0 it listens on a free port, which its "bank listening" log
// line names.
//
// POST /charges with an Idempotency-Key header and
// {"amount": <minor units>, "currency": "EUR", "card_token": "tok_…"}
// charges once per key and answers 201 {"charge_id", "status"}: approved,
// or declined for the card tok_declined or an amount over 100000; a
// repeated key gets the first answer again. GET /charges/{key} answers
// what was decided for a key (404: never charged), for verification. Every
// POST is recorded in bank_charges (idempotency_key, amount, duplicate,
// acted, received_at) in DATABASE_URL: duplicate when the bank had already
// acted on the key, acted false when it refused before acting (fail).
//
// PUT /behaviour {"mode": "…", "delay_ms": n, "count": n} makes the next
// count charges (0: all) behave so: "normal"; "slow" (answer after
// delay_ms); "fail" (503 before acting: definitely not charged); "lost"
// (charge, then drop the connection: the client cannot know); "late"
// (charge, then answer after delay_ms, when the client has given up).
//
// Settlements: with -webhook-url and -webhook-secret (whsec_…, the
// receiver's), a charge approved with a "reference" (the merchant's
// payment id) in its request is followed by a settlement webhook to
// -webhook-url: POST {"type": "payment.settled", "payment_id": <reference>},
// Standard Webhooks signed (webhook-id msg_settle_<charge id>, the same at
// every attempt; webhook-timestamp and webhook-signature of the attempt).
// It is written in the charge's transaction to bank_webhooks and sent
// until the receiver answers 2xx, on -webhook-schedule (the wait before
// each attempt; the Standard Webhooks schedule shortened), each attempt
// recorded in bank_webhook_attempts (status 0: no answer); past the
// schedule it is failed.
//
// With -nats-url (such as nats://127.0.0.1:4222) the same settlements are
// also published to the JetStream subject bank.settlements (the stream
// BANK_SETTLEMENTS, created when missing), the same body with the
// webhook's id as Nats-Msg-Id, for the service's second consumer; each is
// marked published_at in bank_webhooks once the stream acknowledged it.
//
// Without DATABASE_URL it starts a throwaway PostgreSQL cluster, removed
// on exit, and logs its URL.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgcluster"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "the address to serve on")
	var hooks webhookFlags
	flag.StringVar(&hooks.url, "webhook-url", "", "where settlement webhooks go, such as http://127.0.0.1:8080/webhooks/bank; empty sends none")
	flag.StringVar(&hooks.secret, "webhook-secret", "", "the Standard Webhooks secret (whsec_…) settlement webhooks are signed with")
	flag.StringVar(&hooks.schedule, "webhook-schedule", DefaultWebhookSchedule, "the wait before each attempt of a webhook, comma-separated")
	flag.DurationVar(&hooks.timeout, "webhook-timeout", 5*time.Second, "how long an attempt waits for the receiver's answer")
	flag.StringVar(&hooks.natsURL, "nats-url", "", "the NATS server settlements are also published to (JetStream subject "+settlementSubject+"); empty publishes none")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, hooks, log); err != nil {
		log.Error("bank", "err", err)
		os.Exit(1)
	}
}

// webhookFlags configure the settlement webhooks.
type webhookFlags struct {
	url, secret, schedule string
	natsURL               string
	timeout               time.Duration
}

// run opens the database and serves, and sends settlement webhooks when
// hooks name a receiver and publishes settlements when they name a NATS
// server, until ctx ends.
func run(ctx context.Context, addr string, hooks webhookFlags, log *slog.Logger) error {
	var sender *webhookSender
	if hooks.url != "" {
		var err error
		if sender, err = newWebhookSender(hooks.url, hooks.secret, hooks.schedule, hooks.timeout, log); err != nil {
			return err
		}
	}
	var publisher *settlementPublisher
	if hooks.natsURL != "" {
		var err error
		if publisher, err = newSettlementPublisher(ctx, hooks.natsURL, settlementStream, settlementSubject, log); err != nil {
			return err
		}
	}
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		cluster, err := pgcluster.Start(ctx)
		if err != nil {
			return errors.Join(errors.New("DATABASE_URL is unset and no throwaway cluster could start"), err)
		}
		defer func() { _ = cluster.Stop() }()
		url = cluster.URL()
		log.Info("DATABASE_URL is unset: started a throwaway PostgreSQL cluster, removed on exit", "url", url)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	b, err := newBank(ctx, pool, sender != nil || publisher != nil)
	if err != nil {
		return err
	}
	if sender != nil {
		go sender.run(ctx, pool)
	}
	if publisher != nil {
		go publisher.run(ctx, pool)
	}
	// Listening first, so that the address logged is the one bound: with
	// -addr 127.0.0.1:0 the bank picks a free port and says which.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: b.routes(), ReadHeaderTimeout: 5 * time.Second}
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(ln) }()
	log.Info("bank listening", "addr", ln.Addr().String())
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
