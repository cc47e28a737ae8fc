package schema

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// openPool opens a pool of at most maxConns connections on connString and
// closes it when the test ends.
func openPool(tb testing.TB, connString string, maxConns int32) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// appliedSteps counts, by step number, the steps migrate calls applied.
type appliedSteps struct {
	mu sync.Mutex
	n  map[int]int
}

func (a *appliedSteps) add(s Step) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == nil {
		a.n = map[int]int{}
	}
	a.n[s.Number]++
}

func (a *appliedSteps) counts() map[int]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// Instances starting at once on a fresh database, each with its own pool:
// all succeed and exactly one applies each step.
func TestMigrateConcurrentStarts(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		connString   func(testing.TB) string
	}{
		{"named schema, created", "idempotency", pgtest.Database},
		{"search_path's schema", "", pgtest.ConnString},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := tc.connString(t)
			const instances = 8
			pools := make([]*pgxpool.Pool, instances)
			for i := range pools {
				pools[i] = openPool(t, cs, 2)
			}
			var applied appliedSteps
			var ready, done sync.WaitGroup
			start := make(chan struct{})
			errs := make([]error, instances)
			for i, pool := range pools {
				ready.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					ready.Done()
					<-start
					errs[i] = migrate(t.Context(), pool, tc.schema, observer{applied: applied.add})
				}()
			}
			ready.Wait()
			close(start)
			done.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("instance %d: %v", i, err)
				}
			}
			want := map[int]int{}
			for _, s := range Steps() {
				want[s.Number] = 1
			}
			if diff := cmp.Diff(want, applied.counts()); diff != "" {
				t.Errorf("applications per step (-want +got):\n%s", diff)
			}
			if v, err := installed(t.Context(), pools[0], tc.schema); err != nil || v != Version {
				t.Errorf("version %d (%v), want %d", v, err, Version)
			}
		})
	}
}

// A database migrated by v0.1.0 (no version record) is at version 1, and
// Migrate applies the later steps only.
func TestMigrateUpgradesV010(t *testing.T) {
	pool := openPool(t, pgtest.Database(t), 2)
	ApplyReleased(t, pool)
	if v, err := installed(t.Context(), pool, ReleasedSchema); err != nil || v != 1 {
		t.Fatalf("v0.1.0's schema is at version %d (%v), want 1", v, err)
	}
	var applied appliedSteps
	if err := migrate(t.Context(), pool, ReleasedSchema, observer{applied: applied.add}); err != nil {
		t.Fatal(err)
	}
	want := map[int]int{}
	for _, s := range Steps()[1:] {
		want[s.Number] = 1
	}
	if diff := cmp.Diff(want, applied.counts()); diff != "" {
		t.Errorf("applications per step (-want +got):\n%s", diff)
	}
	if err := Require(t.Context(), pool, ReleasedSchema); err != nil {
		t.Error(err)
	}
}

// On a current schema Migrate runs no DDL at all (an event trigger refuses
// any), and it needs no lock on the tables claims use: it succeeds while
// another transaction holds them in ACCESS EXCLUSIVE mode.
func TestMigrateCurrentSchemaDoesNoDDL(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 4)
	if err := Migrate(ctx, pool, ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE FUNCTION public.refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
		 BEGIN RAISE EXCEPTION 'DDL on a current schema: %', tg_tag; END $$`,
		`CREATE EVENT TRIGGER refuse_ddl ON ddl_command_start EXECUTE FUNCTION public.refuse_ddl()`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	locker, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = locker.Rollback(ctx) }()
	if _, err := locker.Exec(ctx, `LOCK TABLE idempotency.idempotency_record, idempotency.idempotency_outbox,
		idempotency.idempotency_natural_key IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var applied appliedSteps
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := migrate(mctx, pool, ReleasedSchema, observer{applied: applied.add}); err != nil {
		t.Fatal(err)
	}
	if n := applied.counts(); len(n) != 0 {
		t.Errorf("applied %v on a current schema", n)
	}
}

// Migrate waits for a lock at most lockTimeout at a time and retries
// until it gets it: held off by another instance's advisory lock, it
// retries on lock timeouts, and once the lock is free the same call
// succeeds.
func TestMigrateBoundsItsLockWaits(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 4)
	ApplyReleased(t, pool)
	holder, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock("+lockKey+")", ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	retries := make(chan error)
	done := make(chan error, 1)
	go func() {
		done <- migrate(ctx, pool, ReleasedSchema, observer{retry: func(err error) {
			select {
			case retries <- err:
			case <-ctx.Done():
			}
		}})
	}()
	for range 2 {
		var pgErr *pgconn.PgError
		if err := <-retries; !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
			t.Fatalf("retried after %v, want a lock timeout (55P03)", err)
		}
	}
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock("+lockKey+")", ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-retries: // an attempt that timed out before the unlock
			continue
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		}
		break
	}
	if err := Require(ctx, pool, ReleasedSchema); err != nil {
		t.Error(err)
	}
}

// Migrate gives up when its context ends, with the context's error.
func TestMigrateStopsWithItsContext(t *testing.T) {
	pool := openPool(t, pgtest.Database(t), 2)
	holder, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(t.Context(), "SELECT pg_advisory_lock("+lockKey+")", ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	err = migrate(ctx, pool, ReleasedSchema, observer{retry: func(error) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Migrate after its context ended: %v, want context.Canceled", err)
	}
}

func TestRequire(t *testing.T) {
	ctx := t.Context()
	pool := openPool(t, pgtest.Database(t), 2)
	var verr *VersionError

	err := Require(ctx, pool, ReleasedSchema)
	if !errors.As(err, &verr) || verr.Have != 0 || verr.Need != Version {
		t.Fatalf("no schema: %v", err)
	}
	ApplyReleased(t, pool)
	err = Require(ctx, pool, ReleasedSchema)
	if !errors.As(err, &verr) || verr.Have != 1 || verr.Need != Version {
		t.Fatalf("v0.1.0's schema: %v", err)
	}
	for _, want := range []string{`"idempotency" is at version 1`, fmt.Sprintf("needs version %d", Version), "schema.Migrate",
		"00002_idemgen_schema_version.sql", "000002_idemgen_schema_version.up.sql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	if err := Migrate(ctx, pool, ReleasedSchema); err != nil {
		t.Fatal(err)
	}
	if err := Require(ctx, pool, ReleasedSchema); err != nil {
		t.Error(err)
	}
	// The search_path's schema: the tables are in idempotency.
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL search_path = idempotency"); err != nil {
			return err
		}
		return Require(ctx, tx, "")
	}); err != nil {
		t.Error(err)
	}
	if err := Require(ctx, pool, ""); !errors.As(err, &verr) || verr.Have != 0 {
		t.Errorf("public, which holds none: %v", err)
	}
}
