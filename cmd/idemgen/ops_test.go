package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// idemgen ops sweep, the cron form of maintenance: it reads DATABASE_URL,
// sweeps the named schema once and says what it changed; without
// DATABASE_URL it is unusable input.
func TestOpsSweep(t *testing.T) {
	url := pgtest.Database(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := idem.Migrate(ctx, pool, "idem"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO idem.idempotency_record
		(scope, idempotency_key, fingerprint, state, operation_id, created_at, expires_at, purge_at)
		VALUES ('s', 'live', '\x00', 'completed', gen_random_uuid(), now(), now() + interval '1 day', now() + interval '2 days'),
		       ('s', 'expired', '\x00', 'completed', gen_random_uuid(), now() - interval '2 days', now() - interval '1 day', now() + interval '1 day'),
		       ('s', 'gone', '\x00', 'tombstone', gen_random_uuid(), now() - interval '3 days', now() - interval '1 hour', now() - interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", url)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"ops", "sweep", "--schema", "idem", "--batch-size", "10"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	if want := "swept: 1 tombstoned, 1 deleted, 0 natural keys deleted"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout %q, want it to begin %q", stdout.String(), want)
	}
	var states []string
	rows, err := pool.Query(ctx, "SELECT idempotency_key || '=' || state FROM idem.idempotency_record ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}
	if got := strings.Join(states, " "); got != "expired=tombstone live=completed" {
		t.Errorf("records after the sweep: %s", got)
	}

	t.Setenv("DATABASE_URL", "")
	stderr.Reset()
	if code := run([]string{"ops", "sweep"}, &stdout, &stderr); code != exitUnusable || !strings.Contains(stderr.String(), "DATABASE_URL is not set") {
		t.Errorf("without DATABASE_URL: exit %d, stderr %q; want %d naming DATABASE_URL", code, stderr.String(), exitUnusable)
	}
}
