package schema

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Beginner starts a transaction; *pgx.Conn, *pgxpool.Pool and pgx.Tx are
// Beginners.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// VersionError is Require's answer for a schema older than Version.
type VersionError struct {
	Schema string // as given to Require; "" is the search_path's
	Have   int    // the schema's version; 0 when it holds none of the tables
	Need   int    // the version this runtime needs
}

// Error says which version is there, which is needed and which migrations
// bring the schema there.
func (e *VersionError) Error() string {
	where := "the search_path's schema"
	if e.Schema != "" {
		where = pgx.Identifier{e.Schema}.Sanitize()
	}
	var goose, migrate []string
	for _, s := range all {
		if s.Number > e.Have && s.Number <= e.Need {
			goose = append(goose, fmt.Sprintf("%05d_%s.sql", s.Number, s.Name))
			migrate = append(migrate, fmt.Sprintf("%06d_%s.up.sql", s.Number, s.Name))
		}
	}
	which := fmt.Sprintf("the migration idemgen generate writes for step %d", e.Need)
	if len(goose) > 1 {
		which = fmt.Sprintf("the migrations idemgen generate writes for steps %d to %d", e.Have+1, e.Need)
	}
	return fmt.Sprintf("schema: %s is at version %d of idemgen's tables but this runtime needs version %d: "+
		"run schema.Migrate, or apply %s (goose or plain: %s; golang-migrate: %s)",
		where, e.Have, e.Need, which, strings.Join(goose, ", "), strings.Join(migrate, ", "))
}

// Require returns nil when schema (or, for "", the tables the search_path
// finds) is at least at Version, and otherwise a *VersionError saying which
// migrations to run. It reads the version only and takes no lock beyond
// reading idempotency_schema_version.
func Require(ctx context.Context, db Beginner, schema string) error {
	have, err := installed(ctx, db, schema)
	if err != nil {
		return fmt.Errorf("schema: reading the version: %w", err)
	}
	if have < Version {
		return &VersionError{Schema: schema, Have: have, Need: Version}
	}
	return nil
}

// installed reads schema's version in a transaction of its own.
func installed(ctx context.Context, db Beginner, schema string) (int, error) {
	tx, err := db.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback(ctx) }() // it only read
	if err := boundLockWaits(ctx, tx); err != nil {
		return 0, err
	}
	return version(ctx, tx, schema)
}

// version reads schema's version in tx: the highest step recorded in
// idempotency_schema_version or, without that table (the schema of v0.1.0,
// which step 1 is), 1 when step 1's three tables exist and 0 otherwise.
// It looks the tables up in pg_class with the statement's snapshot, not
// with to_regclass: after waiting for Migrate's advisory lock the session's
// catalog caches may predate the steps another instance just committed.
func version(ctx context.Context, tx pgx.Tx, schema string) (int, error) {
	var hasVersion bool
	var step1Tables int
	err := tx.QueryRow(ctx, `SELECT coalesce(bool_or(c.relname = $2), false),
       count(DISTINCT c.relname) FILTER (WHERE c.relname <> $2)
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname IN ($2, 'idempotency_record', 'idempotency_outbox', 'idempotency_natural_key')
  AND c.relkind IN ('r', 'p')
  AND CASE WHEN $1 = '' THEN n.nspname = ANY (current_schemas(false)) ELSE n.nspname = $1 END`,
		schema, versionTable).Scan(&hasVersion, &step1Tables)
	if err != nil {
		return 0, err
	}
	if hasVersion {
		var v int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(step), 0) FROM "+qualified(schema, versionTable)).Scan(&v); err != nil {
			return 0, err
		}
		if v > 0 {
			return v, nil
		}
	}
	if step1Tables == 3 {
		return 1, nil
	}
	return 0, nil
}

// versionTable is where the steps record themselves (step 2 creates it).
const versionTable = "idempotency_schema_version"

// qualified names table in schema, quoted; "" leaves it to the search_path.
func qualified(schema, table string) string {
	if schema == "" {
		return pgx.Identifier{table}.Sanitize()
	}
	return pgx.Identifier{schema, table}.Sanitize()
}
