package tables

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX is what sqlc's generated code sends its statements through (the
// DBTX interface of each generated package): *pgxpool.Pool, *pgx.Conn and
// pgx.Tx all have these methods.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Schema names the runtime's tables in one schema for statements that
// sqlc's generated code sends: On wraps a connection so that each
// statement goes out qualified (Qualify), rewritten once per distinct
// statement and remembered. It is safe for concurrent use.
type Schema struct {
	name      string
	qualified sync.Map // statement -> the statement in the schema
}

// NewSchema returns the Schema of name; "" leaves the tables to the
// search_path.
func NewSchema(name string) *Schema { return &Schema{name: name} }

// On returns db sending every statement in s's schema; with no schema it
// returns db itself.
func (s *Schema) On(db DBTX) DBTX {
	if s.name == "" {
		return db
	}
	return inSchema{s: s, db: db}
}

// statement returns sql in s's schema.
func (s *Schema) statement(sql string) string {
	if q, ok := s.qualified.Load(sql); ok {
		return q.(string)
	}
	q := Qualify(s.name, sql)
	s.qualified.Store(sql, q)
	return q
}

// inSchema is a DBTX whose statements go out in a schema.
type inSchema struct {
	s  *Schema
	db DBTX
}

func (c inSchema) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return c.db.Exec(ctx, c.s.statement(sql), args...)
}

func (c inSchema) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return c.db.Query(ctx, c.s.statement(sql), args...)
}

func (c inSchema) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return c.db.QueryRow(ctx, c.s.statement(sql), args...)
}
