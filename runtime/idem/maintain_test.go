package idem_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// dbNow reads the database's clock.
func dbNow(t *testing.T, d *db) time.Time {
	t.Helper()
	var now time.Time
	if err := d.pool.QueryRow(context.Background(), "SELECT now()").Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// writer keeps committing new operations of its own scope, on its own
// pool and at the wall clock, until stopped. Its sessions have lock_timeout 50ms and its
// contract wait-timeout 50ms: an operation that waited that long on any
// lock, a sweeper's included, fails instead of committing.
type writer struct {
	stop    chan struct{}
	once    sync.Once
	done    chan struct{}
	started chan struct{}
	mu      sync.Mutex
	commits []time.Time
	failed  []string
}

func startWriter(t *testing.T, d *db) *writer {
	t.Helper()
	pool := d.newPool(t, 2, func(cfg *pgxpool.Config) { cfg.ConnConfig.RuntimeParams["lock_timeout"] = "50ms" })
	c := orderContract()
	c.WaitTimeout = 50 * time.Millisecond
	c.Retention = 7 * 24 * time.Hour // outlives the fake clock's day ahead
	// The acquire bound is generous: dialling a connection on a loaded
	// machine can take longer than 50ms, and only lock waits are in question.
	h := newHandler(t, pool, c, idem.Config{Logger: slog.New(slog.DiscardHandler), AcquireTimeout: 10 * time.Second}, createOrder)
	w := &writer{stop: make(chan struct{}), done: make(chan struct{}), started: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			r := post(h, "writer", fmt.Sprintf("w-%d", i), `{"customer":"w","amount":1}`)
			w.mu.Lock()
			if r.Status == http.StatusCreated {
				w.commits = append(w.commits, time.Now())
			} else {
				w.failed = append(w.failed, fmt.Sprintf("status %d body %s", r.Status, r.Body))
			}
			w.mu.Unlock()
			if i == 0 {
				close(w.started)
			}
		}
	}()
	return w
}

// halt stops the writer and waits for its last operation.
func (w *writer) halt() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// during counts the commits between from and to.
func (w *writer) during(from, to time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.commits {
		if !c.Before(from) && !c.After(to) {
			n++
		}
	}
	return n
}

// Must show 2: as time moves (the database's view of the old records, and
// the executor's fake clock), records become tombstones and are
// purged, and natural-key rows past their lifetime deleted, in batches of
// at most BatchSize rows (the batch counts say so), while new operations
// keep committing, and no new operation waits 50ms on any lock (their
// lock_timeout), so none waited on the sweeper. How long a batch ran is
// logged, not asserted: it follows the machine's load; that a batch past
// BatchTimeout is canceled, whatever the machine, is
// TestASweepBatchPastItsTimeoutIsCanceled's, so here the timeout is only a
// backstop.
func TestMaintenanceSweepsInBoundedBatchesWhileOperationsCommit(t *testing.T) {
	d := newDB(t)
	ctx := context.Background()
	start := dbNow(t, d)
	clock := idemtest.NewFakeClock(start)
	c := orderContract()
	c.Retention, c.Tombstone = time.Hour, 24*time.Hour
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Clock: clock, Protocol: testProtocol()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := idemimpl.NewHandler(exec, c, tenantScope, createOrder)
	if err != nil {
		t.Fatal(err)
	}
	const viaExecutor, bulk, naturalKeys, batch = 50, 2950, 500, 200
	for i := range viaExecutor {
		if r := post(h, "old", fmt.Sprintf("old-%d", i), `{"customer":"o","amount":1}`); r.Status != http.StatusCreated {
			t.Fatalf("old operation: status %d body %s", r.Status, r.Body)
		}
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO idempotency_record
		(scope, idempotency_key, fingerprint, state, operation_id, response_status, response_body,
		 created_at, completed_at, expires_at, purge_at)
		SELECT 'bulk', 'k-' || i, '\x00', 'completed', gen_random_uuid(), 201, repeat('x', 512)::bytea,
		       $1, $1, $1::timestamptz + interval '1 hour', $1::timestamptz + interval '25 hours'
		FROM generate_series(1, $2::integer) AS i`, start, bulk); err != nil {
		t.Fatal(err)
	}
	if _, err := d.pool.Exec(ctx, `INSERT INTO idempotency_natural_key (scope, operation, natural_key, operation_id, created_at)
		SELECT 'bulk', 'createOrder', '["' || i || '"]', gen_random_uuid(), $1
		FROM generate_series(1, $2::integer) AS i`, start, naturalKeys); err != nil {
		t.Fatal(err)
	}
	const records = viaExecutor + bulk

	w := startWriter(t, d)
	defer w.halt()
	<-w.started
	// The fake clock runs a day ahead of the database's by design.
	later := func(by time.Duration) {
		t.Helper()
		clock.Advance(by)
		for _, scope := range []string{"old", "bulk"} {
			if err := idemtest.Age(ctx, d.pool, scope, by); err != nil {
				t.Fatal(err)
			}
		}
	}
	opts := idem.MaintainOptions{BatchSize: batch, BatchTimeout: time.Minute, NaturalKeyLifetime: 24 * time.Hour, MaxClockSkew: 48 * time.Hour}
	sweep := func(what string, want idem.SweepResult) {
		t.Helper()
		began := time.Now()
		got, err := exec.Sweep(ctx, opts)
		ended := time.Now()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %d tombstoned, %d deleted, %d natural keys deleted in %d batches of at most %d rows; longest batch %v; the sweep took %v while %d new operations committed",
			what, got.Tombstoned, got.Deleted, got.NaturalKeysDeleted, got.Batches, batch, got.LongestBatch, ended.Sub(began), w.during(began, ended))
		got.LongestBatch, got.ClockSkew = 0, 0
		if got != want {
			t.Errorf("%s: %+v, want %+v", what, got, want)
		}
		if w.during(began, ended) == 0 {
			t.Errorf("%s: no new operation committed during the sweep", what)
		}
	}

	later(time.Hour)
	// 3000 rows in batches of 200: 15 full batches and a short one ends the
	// tombstone step; the purge, inbox and natural-key steps find nothing.
	sweep("past retention", idem.SweepResult{Tombstoned: records, Batches: records/batch + 1 + 1 + 1 + 1})
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'tombstone' AND response_body IS NULL"); n != records {
		t.Errorf("%d compact tombstones, want %d", n, records)
	}
	if r := post(h, "old", "old-0", `{"customer":"o","amount":1}`); r.Status != http.StatusConflict || problemType(t, r) != idem.ProblemExpired {
		t.Errorf("retry of a tombstone: status %d body %s, want 409 operation-expired", r.Status, r.Body)
	}

	later(24 * time.Hour)
	sweep("past the tombstone period", idem.SweepResult{Deleted: records, NaturalKeysDeleted: naturalKeys,
		Batches: 1 + records/batch + 1 + 1 + naturalKeys/batch + 1})
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE scope <> 'writer'"); n != 0 {
		t.Errorf("%d old records left, want none", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_natural_key"); n != 0 {
		t.Errorf("%d natural-key rows left, want none", n)
	}

	w.halt()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.failed) > 0 {
		t.Errorf("%d new operations failed while the sweeper ran (a lock wait of 50ms fails them), first: %s", len(w.failed), w.failed[0])
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE scope = 'writer' AND state = 'completed'"); n != len(w.commits) {
		t.Errorf("%d records of the writer, want its %d commits", n, len(w.commits))
	}
}

// A batch the database cannot finish within BatchTimeout is canceled by the
// database itself, however fast or slow the machine: another session holds
// the records' table in SHARE mode, which the batch's UPDATE cannot take,
// so the batch can end only by its timeout. The sweep reports the
// database's cancellation (57014), no backend is left waiting on the table
// (the statement ended in the database, not just the client's connection:
// on a context deadline pgx closes the socket and sends its cancel request
// only after the call returned, best effort), and once
// the table is free the next sweep does the work.
func TestASweepBatchPastItsTimeoutIsCanceled(t *testing.T) {
	d := newDB(t)
	ctx := context.Background()
	exec := newExecutor(t, d, idem.Config{})
	if _, err := d.pool.Exec(ctx, `INSERT INTO idempotency_record
		(scope, idempotency_key, fingerprint, state, operation_id, response_status, response_body,
		 created_at, completed_at, expires_at, purge_at)
		VALUES ('t', 'k', '\x00', 'completed', gen_random_uuid(), 201, 'x',
		        now() - interval '2 hours', now() - interval '2 hours', now() - interval '1 hour', now() + interval '1 day')`); err != nil {
		t.Fatal(err)
	}
	locker, err := d.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = locker.Rollback(ctx) }()
	if _, err := locker.Exec(ctx, "LOCK TABLE idempotency_record IN SHARE MODE"); err != nil {
		t.Fatal(err)
	}

	res, err := exec.Sweep(ctx, idem.MaintainOptions{BatchTimeout: 20 * time.Millisecond})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Fatalf("sweep against a locked table: %+v, %v; want the database's cancellation (57014)", res, err)
	}
	t.Logf("the sweep's error: %v", err)
	if n := d.count(t, "SELECT count(*) FROM pg_locks WHERE relation = 'idempotency_record'::regclass AND NOT granted"); n != 0 {
		t.Errorf("%d lock requests still wait on the records' table after the sweep returned, want none", n)
	}
	if err := locker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = exec.Sweep(ctx, idem.MaintainOptions{})
	if err != nil || res.Tombstoned != 1 {
		t.Errorf("sweep once the table is free: %+v, %v; want 1 tombstoned", res, err)
	}
}

// A sweep by an executor whose clock runs ahead by more than
// MaxClockSkew runs all the same, on the database's clock: a record within
// its retention there stays, whatever the executor's clock says, and the
// skew is logged.
func TestASweepAheadLogsTheSkewAndKeepsRetention(t *testing.T) {
	d := newDB(t)
	logs := &logCapture{}
	exec := newExecutor(t, d, idem.Config{Clock: idemtest.SkewedClock(2 * time.Hour), Logger: slog.New(logs)})
	c := orderContract()
	c.Retention, c.Tombstone = time.Hour, time.Hour
	if r := post(orderHandler(t, exec, c, createOrder), "t1", "k1", `{"customer":"c","amount":1}`); r.Status != http.StatusCreated {
		t.Fatalf("first: status %d body %s", r.Status, r.Body)
	}
	res, err := exec.Sweep(context.Background(), idem.MaintainOptions{MaxClockSkew: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tombstoned+res.Deleted != 0 || res.ClockSkew < time.Hour {
		t.Errorf("sweep 2 hours ahead: %+v, want nothing tombstoned or deleted and a skew of about 2h", res)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'completed'"); n != 1 {
		t.Errorf("%d completed records after the sweep, want 1", n)
	}
	wantSkewWarning(t, logs)
}

// sweepSignal is a slog.Handler that reports each sweep record that
// changed rows.
type sweepSignal struct{ swept chan slog.Record }

func (sweepSignal) Enabled(context.Context, slog.Level) bool { return true }
func (s sweepSignal) WithAttrs([]slog.Attr) slog.Handler     { return s }
func (s sweepSignal) WithGroup(string) slog.Handler          { return s }

func (s sweepSignal) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "idempotency sweep" && r.Level == slog.LevelInfo {
		s.swept <- r.Clone()
	}
	return nil
}

// Maintain, started in one line, sweeps at once and then every interval,
// logs what it changed, and returns nil when its context ends.
func TestMaintainRunsUntilCanceled(t *testing.T) {
	d := newDB(t)
	sig := sweepSignal{swept: make(chan slog.Record, 1)}
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Logger: slog.New(sig), Protocol: testProtocol()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.pool.Exec(context.Background(), `INSERT INTO idempotency_record
		(scope, idempotency_key, fingerprint, state, operation_id, created_at, expires_at, purge_at)
		VALUES ('s', 'k', '\x00', 'completed', gen_random_uuid(), now() - interval '2 days', now() - interval '1 day', now() + interval '1 day')`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error)
	go func() { ended <- exec.Maintain(ctx, idem.MaintainOptions{Interval: time.Hour}) }()
	r := <-sig.swept
	t.Logf("maintenance logged: %s %v", r.Message, r)
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'tombstone'"); n != 1 {
		t.Errorf("%d tombstones after the first sweep, want 1", n)
	}
	cancel()
	if err := <-ended; err != nil {
		t.Errorf("Maintain returned %v, want nil once its context ended", err)
	}
	if err := exec.Maintain(context.Background(), idem.MaintainOptions{BatchSize: -1}); err == nil {
		t.Error("Maintain with a negative batch size started")
	}
}
