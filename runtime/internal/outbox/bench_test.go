package outbox_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// benchBatch is how many effects each benchmark iteration executes.
const benchBatch = 2000

// noopProvider answers done at once: the benchmark measures the worker.
type noopProvider struct{}

func (noopProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome { return idem.EffectDone() }

// countDone signals when target effects are done.
type countDone struct {
	n      atomic.Int64
	target int64
	all    chan struct{}
}

func (c *countDone) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind == idem.EffectEventDone && c.n.Add(1) == c.target {
		close(c.all)
	}
}

// BenchmarkEffects executes batches of effects with a do-nothing provider:
// by one worker, by two (each with a pool of its own), and by a bare loop
// of FOR UPDATE SKIP LOCKED dequeues on the same table with the worker's
// concurrency (8), the ceiling the worker's leases and history cost
// against. Run with: go test -run '^$' -bench Effects -benchtime 5x ./runtime/internal/outbox
func BenchmarkEffects(b *testing.B) {
	for _, workers := range []int{1, 2} {
		name := map[int]string{1: "one-worker", 2: "two-workers"}[workers]
		b.Run(name, func(b *testing.B) {
			_, pool := newDB(b)
			benchWorkers(b, pool, workers)
		})
	}
	b.Run("bare-skip-locked", func(b *testing.B) {
		_, pool := newDB(b)
		benchBare(b, pool)
	})
}

func benchWorkers(b *testing.B, pool *pgxpool.Pool, workers int) {
	cs := pool.Config().ConnString()
	for b.Loop() {
		b.StopTimer()
		enqueue(b, pool, benchBatch, "retry")
		done := &countDone{target: benchBatch, all: make(chan struct{})}
		ctx, cancel := context.WithCancel(b.Context())
		var wg sync.WaitGroup
		b.StartTimer()
		for range workers {
			p, err := pgxpool.New(ctx, cs)
			if err != nil {
				b.Fatal(err)
			}
			w, err := idem.NewWorker(idem.WorkerConfig{Pool: p, Providers: map[string]idem.Provider{"email": noopProvider{}}, Observer: done})
			if err != nil {
				b.Fatal(err)
			}
			wg.Go(func() {
				defer p.Close()
				_ = w.Run(ctx)
			})
		}
		<-done.all
		b.StopTimer()
		cancel()
		wg.Wait()
		if _, err := pool.Exec(b.Context(), "TRUNCATE idempotency_outbox, idempotency_effect_attempt"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(benchBatch*b.N)/b.Elapsed().Seconds(), "effects/s")
}

// bareDequeue takes one due effect and marks it done, as the simplest
// SKIP LOCKED queue does: no lease, no token, no history.
const bareDequeue = `UPDATE idempotency_outbox AS o SET state = 'done'
FROM (SELECT scope, operation_id, seq FROM idempotency_outbox
      WHERE state = 'pending' AND available_at <= now() ORDER BY available_at LIMIT 1 FOR UPDATE SKIP LOCKED) AS d
WHERE o.scope = d.scope AND o.operation_id = d.operation_id AND o.seq = d.seq`

func benchBare(b *testing.B, pool *pgxpool.Pool) {
	for b.Loop() {
		b.StopTimer()
		enqueue(b, pool, benchBatch, "retry")
		b.StartTimer()
		var wg sync.WaitGroup
		var total atomic.Int64
		for range 8 {
			wg.Go(func() {
				for {
					tag, err := pool.Exec(b.Context(), bareDequeue)
					if err != nil {
						b.Error(err)
						return
					}
					if tag.RowsAffected() == 0 {
						return
					}
					total.Add(1)
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		if total.Load() != benchBatch {
			b.Fatalf("dequeued %d, want %d", total.Load(), benchBatch)
		}
		if _, err := pool.Exec(b.Context(), "TRUNCATE idempotency_outbox, idempotency_effect_attempt"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(benchBatch*b.N)/b.Elapsed().Seconds(), "effects/s")
}

// signalProvider tells when it is called.
type signalProvider chan struct{}

func (p signalProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	p <- struct{}{}
	return idem.EffectDone()
}

// BenchmarkPickup measures how long an idle worker with the default poll
// interval (100ms) takes to call the provider of an effect committed
// at a random moment: half the interval on average, the interval at
// most, plus the claim.
func BenchmarkPickup(b *testing.B) {
	_, pool := newDB(b)
	called := make(signalProvider)
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": called}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.Run(ctx) })
	var worst time.Duration
	for b.Loop() {
		b.StopTimer()
		// Commit at a random phase of the worker's poll, as traffic would.
		time.Sleep(rand.N(100 * time.Millisecond))
		b.StartTimer()
		start := time.Now()
		enqueue(b, pool, 1, "retry")
		<-called
		worst = max(worst, time.Since(start))
	}
	cancel()
	wg.Wait()
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
}
