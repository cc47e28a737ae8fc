package schema

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

//go:embed steps/*.sql
var schemaFiles embed.FS

// SchemaSQL returns the DDL of the store, with unqualified names, in the
// order it must run. Generated migrations embed it; Migrate runs it.
func SchemaSQL() (string, error) {
	names, err := fs.Glob(schemaFiles, "steps/*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		src, err := schemaFiles.ReadFile(name)
		if err != nil {
			return "", err
		}
		b.Write(src)
	}
	return b.String(), nil
}

// Beginner starts a transaction; *pgx.Conn, *pgxpool.Pool and pgx.Tx are
// Beginners.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Migrate creates the store's table and indexes in schema (created when
// missing), or in the first schema of the search_path when schema is empty.
// It is idempotent and runs in one transaction.
func Migrate(ctx context.Context, db Beginner, schema string) error {
	ddl, err := SchemaSQL()
	if err != nil {
		return err
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("schema: migrate: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // a no-op after Commit
	if schema != "" {
		ident := pgx.Identifier{schema}.Sanitize()
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+ident); err != nil {
			return fmt.Errorf("schema: migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, "SELECT set_config('search_path', $1, true)", ident); err != nil {
			return fmt.Errorf("schema: migrate: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("schema: migrate: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("schema: migrate: %w", err)
	}
	return nil
}

// DropSQL returns the statements that remove the store's tables, for down
// migrations; names are unqualified like SchemaSQL's.
func DropSQL() string {
	return "DROP TABLE IF EXISTS idempotency_natural_key;\nDROP TABLE IF EXISTS idempotency_outbox;\nDROP TABLE IF EXISTS idempotency_record;"
}
