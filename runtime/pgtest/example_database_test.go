package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleDatabase gives an Example a database of its own, which drop
// removes.
func TestExampleDatabase(t *testing.T) {
	ctx := context.Background()
	cs, drop := pgtest.ExampleDatabase()
	conn, err := pgx.Connect(ctx, cs)
	if err != nil {
		drop()
		t.Fatal(err)
	}
	var name string
	err = conn.QueryRow(ctx, "SELECT current_database()").Scan(&name)
	_ = conn.Close(ctx)
	drop()
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var left bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if name == "" || left {
		t.Errorf("database %q still exists after drop: %v", name, left)
	}
}
