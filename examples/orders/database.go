package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/jackc/pgx/v5/pgconn"

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
