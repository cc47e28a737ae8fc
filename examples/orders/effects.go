package main

import (
	_ "embed"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/providers"
	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

// providerCallsMigration is the example's own migration of the demo
// providers' table, in goose's format beside the generated migrations.
//
//go:embed migrations/00100_demo_provider_calls.sql
var providerCallsMigration string

// providerCallsSQL is the Up section of providerCallsMigration, which the
// example applies itself at start (it is idempotent).
func providerCallsSQL() string {
	up, _, _ := strings.Cut(providerCallsMigration, "-- +goose Down")
	return up
}

// newWorker returns the effect worker of the shop's effects, executed by
// the demo providers (recording in provider_calls) through the generated
// typed adapters. lease is how long it holds a claimed effect: after a
// crash another process, or this one restarted, takes the effect over
// once it passes.
func newWorker(pool *pgxpool.Pool, lease time.Duration, log *slog.Logger) (*idem.Worker, error) {
	return idem.NewWorker(idem.WorkerConfig{
		Pool:      pool,
		Schema:    idempotencySchema,
		Providers: shop.Providers(providers.New(pool)),
		Logger:    log,
		Lease:     lease,
	})
}
