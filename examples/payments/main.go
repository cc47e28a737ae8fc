// Command payments is idemgen's phased example: a payment API whose POST
// /payments records the payment, charges the card through the bank (the
// simulator in ./bank, a separate program) and answers approved or
// declined. The operation is phased: every step is a recovery point, the
// bank receives a stable key for the charge, and a payment abandoned by a
// crash is finished by the completer (Maintain) without a client.
//
//	go run ./examples/payments/bank -addr 127.0.0.1:8090 &
//	go run ./examples/payments -addr 127.0.0.1:8080 -bank-url http://127.0.0.1:8090
//
// With one Standard Webhooks secret given to both (-webhook-secret
// whsec_…, and the bank's -webhook-url http://127.0.0.1:8080/webhooks/bank),
// the bank settles each approved payment with a signed webhook it retries
// until a 2xx, and the service marks the payment settled once.
//
// With a NATS server given to both (-nats-url nats://127.0.0.1:4222;
// start one with nats-server -js), the bank also publishes each settlement
// to the JetStream subject bank.settlements, and a second consumer of the
// service (ledger.go) enters each settled payment in the ledger once.
//
// It connects to DATABASE_URL or, when that is unset, starts a throwaway
// PostgreSQL cluster (removed on exit) and prints its URL. The business
// logic is in api/service.go and api/bank.go; the rest of api/ is
// generated from openapi.yaml by go generate.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/payments/api"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgcluster"
)

// idempotencySchema is where the idempotency tables live (idemgen.yaml's
// schema).
const idempotencySchema = "idempotency"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve on")
	bankURL := flag.String("bank-url", "http://127.0.0.1:8090", "the bank simulator's base URL")
	sweep := flag.Duration("maintain-interval", 5*time.Second, "how often the completer and the sweeper run")
	webhookSecret := flag.String("webhook-secret", "", "the bank's Standard Webhooks signing secret (whsec_…); empty serves no POST /webhooks/bank")
	natsURL := flag.String("nats-url", "", "the NATS server whose JetStream subject "+bankFeed.subject+" carries the bank's settlements to the ledger; empty runs no ledger consumer")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	feed := bankFeed
	feed.url = *natsURL
	if err := run(ctx, *addr, *bankURL, *webhookSecret, feed, *sweep, log); err != nil {
		log.Error("payments", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr, bankURL, webhookSecret string, feed settlementFeed, interval time.Duration, log *slog.Logger) error {
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
	h, err := newService(ctx, pool, bankURL, webhookSecret, feed, interval, log)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 60 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("serving", "addr", "http://"+addr, "bank", bankURL)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newService migrates the idempotency tables and the service's own,
// starts maintenance (the completer, the redelivery of settlements
// support retried, then retention) until ctx ends, and returns the routes:
// with a webhook secret, POST /webhooks/bank receives the bank's
// settlements too; with feed's NATS server, the ledger consumer enters
// them from JetStream until ctx ends.
func newService(ctx context.Context, pool *pgxpool.Pool, bankURL, webhookSecret string, feed settlementFeed, interval time.Duration, log *slog.Logger) (http.Handler, error) {
	if err := idem.Migrate(ctx, pool, idempotencySchema); err != nil {
		return nil, err
	}
	if err := createTables(ctx, pool); err != nil {
		return nil, err
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema, Logger: log})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	svc := api.Service{Bank: &api.Bank{URL: strings.TrimRight(bankURL, "/")}}
	if err := api.Register(mux, exec, svc, demoMerchant); err != nil {
		return nil, err
	}
	if webhookSecret != "" {
		settlements, err := api.NewReceiveBankSettlementReceiver(exec, svc, webhookSecret)
		if err != nil {
			return nil, err
		}
		mux.Handle("POST /webhooks/bank", settlements)
	}
	if feed.url != "" {
		ledger, err := api.NewEnterSettlementConsumer(exec, svc)
		if err != nil {
			return nil, err
		}
		go func() {
			if err := consumeSettlements(ctx, feed, ledger, log); err != nil {
				log.Error("the ledger consumer stopped", "error", err)
			}
		}()
	}
	// Registered first, then maintained: the completer drives the
	// operations Register told the executor how to resume, and the
	// settlements support retried go to the receiver's and the ledger's
	// consumers.
	go func() {
		if err := exec.Maintain(ctx, idem.MaintainOptions{Interval: interval}); err != nil {
			log.Error("maintenance stopped", "error", err)
		}
	}()
	return mux, nil
}

// createTables creates the service's table, serialised across instances
// that start at once.
func createTables(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(4243)`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, api.Schema); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// demoMerchant is the example's stand-in for authentication: the merchant
// from "Authorization: Bearer <merchant>", a token68, refusing anything
// else with a 401 that tells the client what to send (missingMerchant).
// A real service takes the merchant its authentication established.
func demoMerchant(r *http.Request) (string, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		return "", missingMerchant
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !token68(token) {
		return "", missingMerchant
	}
	return token, nil
}

// missingMerchant answers a request without one usable bearer token: the
// same words whatever was wrong with it, naming only what to send.
var missingMerchant = &idem.Unauthenticated{Challenge: `Bearer realm="payments"`,
	Detail: "Send one Authorization field: Bearer <merchant>, the merchant a token68."}

// token68 reports whether s is an RFC 9110 token68.
func token68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}
