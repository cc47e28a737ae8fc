package idem

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/schema"
)

// Migrate brings the idempotency tables in schema (the first schema of the
// search_path when empty) to the version this runtime needs, for services
// that migrate at start; the generated migrations do the same for a
// migration tool. It is runtime/schema's Migrate.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schemaName string) error {
	return schema.Migrate(ctx, pool, schemaName)
}
