package pgtest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestConnStringIsolatesSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := Pool(t), Pool(t)
	if _, err := a.Exec(ctx, "CREATE TABLE marker (id int)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := a.QueryRow(ctx, "SELECT count(*) FROM marker").Scan(&n); err != nil {
		t.Fatalf("own schema: %v", err)
	}
	_, err := b.Exec(ctx, "SELECT count(*) FROM marker")
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("other schema sees the table: err = %v", err)
	}
}

func TestCleanupDropsSchemaAndDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var schema, database string
	t.Run("inner", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, ConnString(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
			t.Fatal(err)
		}
		db, err := pgx.Connect(ctx, Database(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(ctx)
		if err := db.QueryRow(ctx, "SELECT current_database()").Scan(&database); err != nil {
			t.Fatal(err)
		}
	})
	if schema == "" || database == "" {
		t.Fatalf("inner test did not report its schema %q and database %q", schema, database)
	}
	conn, err := pgx.Connect(ctx, URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var left int
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = $1)
		+ (SELECT count(*) FROM pg_database WHERE datname = $2)`, schema, database).Scan(&left)
	if err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("schema %s or database %s left behind", schema, database)
	}
}

func TestWithParam(t *testing.T) {
	tests := []struct{ in, key, value, want string }{
		{"postgres://u@h:5432/db?sslmode=disable", "search_path", "s1", "postgres://u@h:5432/db?search_path=s1&sslmode=disable"},
		{"postgres://u@h:5432/db", "dbname", "other", "postgres://u@h:5432/other"},
		{"host=/tmp port=5432 user=postgres", "search_path", "s1", "host=/tmp port=5432 user=postgres search_path=s1"},
	}
	for _, tt := range tests {
		if got := withParam(tt.in, tt.key, tt.value); got != tt.want {
			t.Errorf("withParam(%q, %q, %q) = %q, want %q", tt.in, tt.key, tt.value, got, tt.want)
		}
	}
}
