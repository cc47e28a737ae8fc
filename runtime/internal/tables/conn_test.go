package tables_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/tables"
)

// sent records the statements a connection was asked to send; it sends
// nothing (Schema.On's work is the statement text, not the database's).
type sent struct {
	mu  sync.Mutex
	sql []string
}

func (s *sent) add(sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sql = append(s.sql, sql)
}

func (s *sent) Exec(_ context.Context, sql string, _ ...any) (pgconn.CommandTag, error) {
	s.add(sql)
	return pgconn.CommandTag{}, nil
}

func (s *sent) Query(_ context.Context, sql string, _ ...any) (pgx.Rows, error) {
	s.add(sql)
	return nil, nil
}

func (s *sent) QueryRow(_ context.Context, sql string, _ ...any) pgx.Row {
	s.add(sql)
	return nil
}

func TestSchemaOnQualifiesEveryStatement(t *testing.T) {
	const sql = "SELECT state FROM idempotency_outbox WHERE effect_key = $1"
	const want = `SELECT state FROM "s"."idempotency_outbox" WHERE effect_key = $1`
	db := &sent{}
	s := tables.NewSchema("s")
	var wg sync.WaitGroup
	for range 4 { // concurrent first uses share one rewrite cache
		wg.Go(func() {
			c := s.On(db)
			_, _ = c.Exec(t.Context(), sql)
			_, _ = c.Query(t.Context(), sql)
			c.QueryRow(t.Context(), sql)
		})
	}
	wg.Wait()
	if len(db.sql) != 12 {
		t.Fatalf("%d statements sent, want 12", len(db.sql))
	}
	for _, got := range db.sql {
		if got != want {
			t.Errorf("sent %s, want %s", got, want)
		}
	}
	if c := tables.NewSchema("").On(db); c != tables.DBTX(db) {
		t.Errorf("On without a schema wrapped the connection: %T", c)
	}
}
