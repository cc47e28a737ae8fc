package idemops_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// db is a test's database of its own with the runtime's tables in schema
// support, which the connection's search_path does not reach: every
// statement of the library must name the schema.
type db struct {
	pool *pgxpool.Pool
}

func newDB(tb testing.TB) db {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.Database(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	if err := schema.Migrate(context.Background(), pool, "support"); err != nil {
		tb.Fatal(err)
	}
	return db{pool: pool}
}

// exec runs seeding SQL (naming the tables support.…).
func (d db) exec(tb testing.TB, sql string, args ...any) {
	tb.Helper()
	if _, err := d.pool.Exec(context.Background(), sql, args...); err != nil {
		tb.Fatalf("%v\n%s", err, sql)
	}
}

// client is a Client on d's tables with cfg (its Schema set).
func (d db) client(tb testing.TB, cfg idemops.Config) *idemops.Client {
	tb.Helper()
	cfg.Schema = "support"
	c, err := idemops.New(d.pool, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// unreachable is a connection that must not be used: a test of arguments
// the library refuses before sending anything.
type unreachable struct{}

func (unreachable) Begin(context.Context) (pgx.Tx, error) { panic("idemops began a transaction") }
func (unreachable) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	panic("idemops sent a statement")
}
func (unreachable) Query(context.Context, string, ...any) (pgx.Rows, error) {
	panic("idemops sent a query")
}
func (unreachable) QueryRow(context.Context, string, ...any) pgx.Row { panic("idemops sent a query") }
