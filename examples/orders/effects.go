package main

import (
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/providers"
	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

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
