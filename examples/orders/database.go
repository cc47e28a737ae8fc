package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/providers"
	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/pgcluster"
)

// openDatabase returns the connection string of the database the demo
// uses and a function that releases it: DATABASE_URL or, when that is
// unset, a throwaway cluster that the release function stops and removes.
// It logs which database it is, so that one can look at it with psql
// while the demo runs.
func openDatabase(ctx context.Context, log *slog.Logger) (string, func(), error) {
	if url := os.Getenv("DATABASE_URL"); url != "" {
		log.Info("database from DATABASE_URL", "database", describe(url))
		return url, func() {}, nil
	}
	cluster, err := pgcluster.Start(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("DATABASE_URL is unset and no throwaway cluster could start: %w", err)
	}
	log.Info("DATABASE_URL is unset: started a throwaway PostgreSQL cluster, removed on exit",
		"url", cluster.URL())
	return cluster.URL(), func() { _ = cluster.Stop() }, nil
}

// describe names the database of a connection string without its
// password.
func describe(url string) string {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "(unparsable connection string)"
	}
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.Database)
}

// createTables creates the shop's tables and the demo providers' (the
// idempotency tables are idem.Migrate's) in one transaction under an
// advisory lock on the schema, so instances that start at once on an empty
// database take turns: their CREATE TABLE IF NOT EXISTS statements would
// otherwise race in PostgreSQL's catalog, and all but one fail.
func createTables(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('idemgen example orders tables ' || current_schema(), 0))"); err != nil {
			return fmt.Errorf("lock the example's tables: %w", err)
		}
		if _, err := tx.Exec(ctx, shop.SchemaSQL); err != nil {
			return fmt.Errorf("shop schema: %w", err)
		}
		if _, err := tx.Exec(ctx, providers.SchemaSQL); err != nil {
			return fmt.Errorf("provider_calls: %w", err)
		}
		return nil
	})
}
