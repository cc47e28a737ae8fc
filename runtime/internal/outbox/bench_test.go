package outbox_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// benchBatch is how many effects each iteration of BenchmarkEffects
// executes.
const benchBatch = 2000

// noopProvider answers done at once: the benchmark measures the worker.
type noopProvider struct{}

func (noopProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome { return idem.EffectDone() }

// statements counts the claim statements, those of them that probe, and
// the record statements sent through the pools it traces (a pgx.QueryTracer
// and pgx.BatchTracer).
type statements struct{ claims, probes, records atomic.Int64 }

// count counts sql if it is a claim or a record statement.
func (s *statements) count(sql string) {
	switch {
	case strings.HasPrefix(sql, "-- name: ClaimEffects "):
		s.claims.Add(1)
		s.probes.Add(1)
	case strings.HasPrefix(sql, "-- name: ClaimOldestEffects "):
		s.claims.Add(1)
	case strings.HasPrefix(sql, "-- name: RecordOutcomes "):
		s.records.Add(1)
	}
}

// TraceQueryStart counts the statements sent alone (the bare loop's).
func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.count(d.SQL)
	return ctx
}

func (*statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchQuery counts the worker's claim and record statements, which
// go in a batch after BoundLockWaits.
func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.count(d.SQL)
}

func (*statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (*statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// report reports effects per second, and effects per claim and per record
// statement when counted.
func (s *statements) report(b *testing.B) {
	effects := float64(benchBatch * b.N)
	b.ReportMetric(effects/b.Elapsed().Seconds(), "effects/s")
	if n := s.claims.Load(); n > 0 {
		b.ReportMetric(effects/float64(n), "effects/claim")
	}
	if n := s.records.Load(); n > 0 {
		b.ReportMetric(effects/float64(n), "effects/record")
	}
}

// tracedPool opens a pool on cs whose statements s counts.
func tracedPool(tb testing.TB, cs string, s *statements) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(cs)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.ConnConfig.Tracer = s
	p, err := pgxpool.NewWithConfig(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// backlog enqueues benchBatch due effects, in one transaction of scope
// acme or, with scopes > 1, as many scopes' equal shares each in a
// transaction of its own, and has PostgreSQL gather the outbox's
// statistics, as autovacuum keeps them on a live table. Without
// any (a never-analyzed table) the planner reads every due row and sorts
// them for each of the worker's claims instead of reading the pending
// index in order: at 2,000 due effects 6.9ms against 0.3ms for a claim of
// 8 (EXPLAIN ANALYZE on this machine). The bare loop's dequeue reads the
// index in order either way.
func backlog(b *testing.B, pool *pgxpool.Pool, scopes int) {
	if scopes > 1 {
		for i := range scopes {
			enqueueScoped(b, pool, fmt.Sprintf("scope-%d", i), benchBatch/scopes)
		}
	} else {
		enqueue(b, pool, benchBatch, "retry")
	}
	if _, err := pool.Exec(b.Context(), "ANALYZE idempotency_outbox"); err != nil {
		b.Fatal(err)
	}
}

// truncate empties the outbox and the attempt history between iterations.
func truncate(b *testing.B, pool *pgxpool.Pool) {
	if _, err := pool.Exec(b.Context(), "TRUNCATE idempotency_outbox, idempotency_effect_attempt"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEffects executes batches of effects with a do-nothing provider,
// on a fresh schema per sub-benchmark, the sub-benchmarks in turn (so
// -count interleaves them):
//
//   - loop=worker, loop=two-workers: idem.Worker with its defaults (8
//     calls at once; behind the backlog claims of up to 24, two in
//     flight; 100ms poll; outcomes recorded in batches of up to 100 after
//     at most 10ms), each worker on a pool of its own;
//   - loop=worker-32-slots: one worker with 32 calls at once, so claims of
//     up to 96;
//   - loop=worker-2-scopes: one default worker on a backlog of two scopes,
//     the second's 1,000 effects behind the first's: the worker probes
//     every other claim, as on the outbox of a service with tenants;
//   - loop=bare: the simplest SKIP LOCKED queue, 8 goroutines each looping
//     one statement that takes one due effect and marks it done: no lease,
//     no token, no history, no provider;
//   - loop=sql-batches: the worker's own statements without the worker, 4
//     goroutines (the pool's size) each claiming 8 effects with the
//     statement the worker uses on an outbox of one scope
//     (ClaimOldestEffects) and recording them done in one statement: its
//     SQL at the claim size of a worker that does not claim ahead.
//
// Run with: go test -run '^$' -bench Effects -benchtime 3x -count 6 ./runtime/internal/outbox
func BenchmarkEffects(b *testing.B) {
	b.Run("loop=worker", func(b *testing.B) { benchWorkers(b, 1, 0, 1) })
	b.Run("loop=worker-32-slots", func(b *testing.B) { benchWorkers(b, 1, 32, 1) })
	b.Run("loop=worker-2-scopes", func(b *testing.B) { benchWorkers(b, 1, 0, 2) })
	b.Run("loop=two-workers", func(b *testing.B) { benchWorkers(b, 2, 0, 1) })
	b.Run("loop=bare", benchBare)
	b.Run("loop=sql-batches", benchSQLBatches)
}

// benchWorkers runs workers workers with concurrency calls at once (0:
// the default, 8) on a backlog of scopes scopes.
func benchWorkers(b *testing.B, workers, concurrency, scopes int) {
	cs, pool := newDB(b)
	count := &statements{}
	pools := make([]*pgxpool.Pool, workers)
	for i := range pools {
		pools[i] = tracedPool(b, cs, count)
	}
	for b.Loop() {
		b.StopTimer()
		backlog(b, pool, scopes)
		done := &countKind{kind: idem.EffectEventDone, target: benchBatch, all: make(chan struct{})}
		ws := make([]*idem.Worker, workers)
		for i, p := range pools {
			w, err := idem.NewWorker(idem.WorkerConfig{Pool: p, Providers: map[string]idem.Provider{"email": noopProvider{}},
				Concurrency: concurrency, Observer: done})
			if err != nil {
				b.Fatal(err)
			}
			ws[i] = w
		}
		ctx, cancel := context.WithCancel(b.Context())
		var wg sync.WaitGroup
		b.StartTimer()
		for _, w := range ws {
			wg.Go(func() { _ = w.Run(ctx) })
		}
		<-done.all
		b.StopTimer()
		cancel()
		wg.Wait()
		truncate(b, pool)
		b.StartTimer()
	}
	count.report(b)
}

// bareDequeue takes one due effect and marks it done, as the simplest
// SKIP LOCKED queue does: no lease, no token, no history.
const bareDequeue = `UPDATE idempotency_outbox AS o SET state = 'done'
FROM (SELECT scope, operation_id, seq FROM idempotency_outbox
      WHERE state = 'pending' AND available_at <= now() ORDER BY available_at LIMIT 1 FOR UPDATE SKIP LOCKED) AS d
WHERE o.scope = d.scope AND o.operation_id = d.operation_id AND o.seq = d.seq`

func benchBare(b *testing.B) {
	_, pool := newDB(b)
	drain(b, pool, 8, func(ctx context.Context) (int, error) {
		tag, err := pool.Exec(ctx, bareDequeue)
		return int(tag.RowsAffected()), err
	})
	(&statements{}).report(b)
}

func benchSQLBatches(b *testing.B) {
	cs, pool := newDB(b)
	count := &statements{}
	q := sqlcdb.New(tracedPool(b, cs, count))
	drain(b, pool, 4, func(ctx context.Context) (int, error) {
		rows, err := q.ClaimOldestEffects(ctx, sqlcdb.ClaimOldestEffectsParams{Effects: []string{"email"},
			MaxClaims: 8, LeaseSeconds: time.Minute.Seconds(), Worker: "sql"})
		if err != nil || len(rows) == 0 {
			return 0, err
		}
		var p sqlcdb.RecordOutcomesParams
		at := pgtype.Timestamptz{Time: time.Now(), Valid: true}
		for _, r := range rows {
			p.Scopes, p.OperationIds, p.Seqs = append(p.Scopes, r.Scope), append(p.OperationIds, r.OperationID), append(p.Seqs, r.Seq)
			p.FencingTokens, p.States, p.Delays = append(p.FencingTokens, r.FencingToken), append(p.States, "done"), append(p.Delays, 0)
			p.Outcomes, p.Errors, p.Kinds, p.FinishedAts = append(p.Outcomes, "done"), append(p.Errors, ""), append(p.Kinds, "call"), append(p.FinishedAts, at)
		}
		recorded, err := q.RecordOutcomes(ctx, p)
		return len(recorded), err
	})
	count.report(b)
}

// drain times, per iteration, goroutines calling take until it takes
// nothing more, and checks that together they took every effect.
func drain(b *testing.B, pool *pgxpool.Pool, goroutines int, take func(context.Context) (int, error)) {
	for b.Loop() {
		b.StopTimer()
		backlog(b, pool, 1)
		b.StartTimer()
		var wg sync.WaitGroup
		var total atomic.Int64
		for range goroutines {
			wg.Go(func() {
				for {
					n, err := take(b.Context())
					if err != nil {
						b.Error(err)
						return
					}
					if n == 0 {
						return
					}
					total.Add(int64(n))
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		if total.Load() != benchBatch {
			b.Fatalf("took %d effects, want %d", total.Load(), benchBatch)
		}
		truncate(b, pool)
		b.StartTimer()
	}
}

// callTimes tells when its provider is called.
type callTimes chan time.Time

func (p callTimes) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	p <- time.Now()
	return idem.EffectDone()
}

// BenchmarkPickup measures how long idle workers with the default poll
// interval (100ms) take to call the provider of an effect committed at a
// random moment: from the COMMIT being sent to the provider's call, the
// median and the worst case (p50-ms, max-ms) with one worker and with
// eight (each on a pool of its own, their polls at random phases), and
// the median of the COMMIT's own round trip (commit-p50-ms), which the
// pickup includes: the effect is visible from some moment in it. One
// worker waits for its next poll: half the interval at the median, the
// interval at worst, plus the claim. Eight wait for the first of their
// polls. Run with: go test -run '^$' -bench Pickup -benchtime 200x ./runtime/internal/outbox
func BenchmarkPickup(b *testing.B) {
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchPickup(b, workers) })
	}
}

func benchPickup(b *testing.B, workers int) {
	cs, pool := newDB(b)
	called := make(callTimes)
	ctx, cancel := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	for range workers {
		p, err := pgxpool.New(ctx, cs)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(p.Close)
		w, err := idem.NewWorker(idem.WorkerConfig{Pool: p, Providers: map[string]idem.Provider{"email": called}})
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() { _ = w.Run(ctx) })
	}
	store := pgstore.New("")
	var pickups, commits []time.Duration
	for b.Loop() {
		b.StopTimer()
		// Commit at a random phase of the workers' polls, as traffic would.
		time.Sleep(rand.N(100 * time.Millisecond))
		tx, err := pool.Begin(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.Enqueue(b.Context(), tx, newEffect("email", "retry")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sent := time.Now()
		if err := tx.Commit(b.Context()); err != nil {
			b.Fatal(err)
		}
		commits = append(commits, time.Since(sent))
		pickups = append(pickups, (<-called).Sub(sent))
	}
	cancel()
	wg.Wait()
	slices.Sort(pickups)
	slices.Sort(commits)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(pickups[(len(pickups)-1)/2]), "p50-ms")
	b.ReportMetric(ms(pickups[len(pickups)-1]), "max-ms")
	b.ReportMetric(ms(commits[(len(commits)-1)/2]), "commit-p50-ms")
}
