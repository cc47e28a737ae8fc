package schema

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// releasedGoose is the goose migration v0.1.0 released (generated for
// schema "idempotency"), with its golang-migrate and plain siblings beside
// it in testdata/v0.1.0.
const releasedGoose = "testdata/v0.1.0/goose/00001_idemgen.sql"

// ReleasedSchema is the schema the released migrations in testdata/v0.1.0
// were generated for.
const ReleasedSchema = "idempotency"

// ReleasedUp returns the Up section of the goose migration v0.1.0 released:
// what a database migrated with v0.1.0 ran.
func ReleasedUp(tb testing.TB) string {
	tb.Helper()
	up, _ := gooseSections(tb, releasedGoose)
	return up
}

// gooseSections returns the statements of a goose file's Up and Down
// sections (each one StatementBegin … StatementEnd block).
func gooseSections(tb testing.TB, file string) (up, down string) {
	tb.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	block := func(after string) string {
		_, rest, ok := strings.Cut(string(src), after+"\n-- +goose StatementBegin\n")
		body, _, ok2 := strings.Cut(rest, "-- +goose StatementEnd\n")
		if !ok || !ok2 {
			tb.Fatalf("%s: no %s block", file, after)
		}
		return body
	}
	return block("-- +goose Up"), block("-- +goose Down")
}

// ApplyReleased migrates pool's database as v0.1.0 did: the released Up
// section, in one transaction.
func ApplyReleased(tb testing.TB, pool *pgxpool.Pool) {
	tb.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, ReleasedUp(tb)); err != nil {
		tb.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
}

// Installed is installed, for the tests outside the package.
var Installed = installed
