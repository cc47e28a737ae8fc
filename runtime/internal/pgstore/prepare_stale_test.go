package pgstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/locktest"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// A statement PrepareBounded prepared by name that the server no longer
// has (a session reset: DISCARD ALL, DEALLOCATE ALL) or whose result type
// a schema change altered fails the call that meets it, as a statement of
// pgx's cache does, and only that call: the next call on the same
// connection prepares it again and succeeds. Before, pgx kept the stale
// statement by name for the connection's life, and every later call on
// that connection failed (SQLSTATE 26000 or "cached plan must not change
// result type"). A statement the server no longer has marks every one
// prepared on the connection stale, since a reset drops them all: a call
// whose batch did not meet it does not fail for it.
func TestStaleStatementFailsOneCallOnly(t *testing.T) {
	for _, tc := range []struct{ name, sql, code string }{
		{"DISCARD ALL", "DISCARD ALL", "26000"},
		{"DEALLOCATE ALL", "DEALLOCATE ALL", "26000"},
		{"a returned column's type changed", "ALTER TABLE idempotency_progress ALTER COLUMN trace_context TYPE varchar", "0A000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pool := locktest.OneConnPool(t, pgtest.ConnString(t), "prepare-stale")
			if err := schema.Migrate(t.Context(), pool, ""); err != nil {
				t.Fatal(err)
			}
			conn, err := pool.Acquire(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			s := pgstore.New("")
			takeOver := func() error {
				_, err := s.TakeOver(t.Context(), conn.Conn(), "s", "k", []byte{1}, time.Minute, time.Second)
				return err
			}
			giveUp := func() error { return s.GiveUpLease(t.Context(), conn.Conn(), "s", "k", 1, 0, time.Second) }
			if err := errors.Join(takeOver(), giveUp()); err != nil {
				t.Fatalf("warm-up: %v", err)
			}
			if _, err := conn.Exec(t.Context(), tc.sql); err != nil {
				t.Fatal(err)
			}
			first := takeOver()
			var pgErr *pgconn.PgError
			if !errors.As(first, &pgErr) || pgErr.Code != tc.code {
				t.Fatalf("the first call after %s: %v, want SQLSTATE %s: the statement was not stale", tc.sql, first, tc.code)
			}
			if err := giveUp(); err != nil {
				t.Errorf("another statement after the first failure (%v): %v, want it prepared again", first, err)
			}
			if err := takeOver(); err != nil {
				t.Errorf("the call after the one that met the stale statement (%v): %v, want it prepared again", first, err)
			}
			if err := takeOver(); err != nil {
				t.Errorf("a third call: %v", err)
			}
		})
	}
}
