package outbox_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/outbox"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// enqueueScoped writes n effects named email of scope, each of an
// operation of its own, in one transaction.
func enqueueScoped(t testing.TB, pool *pgxpool.Pool, scope string, n int) {
	t.Helper()
	if err := enqueueInScope(t.Context(), pool, scope, n); err != nil {
		t.Fatal(err)
	}
}

// enqueueInScope is enqueueScoped for any goroutine.
func enqueueInScope(ctx context.Context, pool *pgxpool.Pool, scope string, n int) error {
	store := pgstore.New("")
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for range n {
			e := newEffect("email", "retry")
			e.Scope = scope
			if _, err := store.Enqueue(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	})
}

// A small scope's effects enqueued after a large scope's backlog are
// claimed within the first claims, scopes taking turns, not after the
// backlog as first-in-first-out would have it. The order asserted is the
// claims': every attempt a claim starts carries its statement's now().
func TestASmallScopeIsNotQueuedBehindALargeScopesBacklog(t *testing.T) {
	for _, concurrency := range []int{1, 4} {
		t.Run(fmt.Sprintf("concurrency=%d", concurrency), func(t *testing.T) {
			_, pool := newDB(t)
			const backlog, few = 1000, 3 // the backlog spans several probe windows
			enqueueScoped(t, pool, "large", backlog)
			enqueueScoped(t, pool, "small", few)
			w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": noopProvider{}},
				Concurrency: concurrency, PollInterval: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			stop := start(t, w)
			waitFor(t, "the small scope's effects done", time.Minute, func() bool {
				return count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE scope = 'small' AND state = 'done'`) == few
			})
			stop()
			// Every other claim probes: the probe moves on by a window
			// each time until it reaches the small scope, then serves it
			// at least each time.
			within := 2*(backlog/outbox.ProbeWindow+1) + 2*few
			last := count(t, pool, `SELECT max(claim) FROM (
	SELECT scope, dense_rank() OVER (ORDER BY started_at) AS claim FROM idempotency_effect_attempt) AS a
WHERE scope = 'small'`)
			claims := count(t, pool, `SELECT count(DISTINCT started_at) FROM idempotency_effect_attempt`)
			if last > within {
				t.Errorf("the small scope's last effect was in claim %d of %d, want within the first %d", last, claims, within)
			}
			t.Logf("the small scope's last effect was in claim %d of %d (%d of the large scope's %d claimed)", last, claims,
				count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt WHERE scope = 'large'`), backlog)
		})
	}
}

// A worker on an outbox that holds a single scope sends no claim that
// probes: no probe could find another scope there.
func TestAWorkerDoesNotProbeAnOutboxOfOneScope(t *testing.T) {
	cs, pool := newDB(t)
	const n = 300
	enqueueScoped(t, pool, "only", n)
	sent := &statements{}
	done := &countKind{kind: idem.EffectEventDone, target: n, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: tracedPool(t, cs, sent), Providers: map[string]idem.Provider{"email": noopProvider{}},
		Concurrency: 4, PollInterval: 10 * time.Millisecond, Observer: done})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	<-done.all
	stop()
	// Claims of up to AheadClaim times Concurrency while the backlog lasts.
	if claims, probes, least := sent.claims.Load(), sent.probes.Load(), int64(n/(4*outbox.AheadClaim)); claims < least || probes != 0 {
		t.Errorf("%d claims of which %d probed, want at least %d and none", claims, probes, least)
	}
}

// enqueuingProvider answers done, and on its call number at enqueues few
// effects of scope small, before it answers; key is that call's effect
// key, set before enqueued is closed.
type enqueuingProvider struct {
	t        *testing.T // for Error, which any goroutine may call
	pool     *pgxpool.Pool
	at, few  int64
	calls    atomic.Int64
	key      string
	enqueued chan struct{}
}

func (p *enqueuingProvider) Do(ctx context.Context, c idem.EffectCall) idem.EffectOutcome {
	if p.calls.Add(1) == p.at {
		p.key = c.Key
		if err := enqueueInScope(ctx, p.pool, "small", int(p.few)); err != nil {
			p.t.Error(err)
		}
		close(p.enqueued)
	}
	return idem.EffectDone()
}

// A scope whose effects arrive while a worker serves an outbox of a
// single scope's backlog is probed for from the next claim on, and the
// probe starts about where they are due, not at the start of the backlog: the
// claim that sees the new scope, then one of its effects every other
// claim, counted from the claim of the call during which they were
// enqueued (the worker claims ahead, so claims in flight then may not see
// them). A
// probe reading from the start would first walk the backlog, whose
// effects are due at 20 different times, 128 a probe.
func TestAScopeArrivingBehindALargeBacklogIsProbedFor(t *testing.T) {
	_, pool := newDB(t)
	const backlog, batches, at, few = 1000, 20, 10, 3
	for range batches {
		enqueueScoped(t, pool, "large", backlog/batches)
	}
	// Due a minute ago and since, as a backlog that has waited: the probe
	// resumes a little before the claim that saw one scope only.
	if _, err := pool.Exec(t.Context(), `UPDATE idempotency_outbox SET available_at = available_at - interval '1 minute'`); err != nil {
		t.Fatal(err)
	}
	p := &enqueuingProvider{t: t, pool: pool, at: at, few: few, enqueued: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
		Concurrency: 1, PollInterval: 10 * time.Millisecond}) // one call at a time: few effects a claim
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	<-p.enqueued
	waitFor(t, "the small scope's effects done", time.Minute, func() bool {
		return count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE scope = 'small' AND state = 'done'`) == few
	})
	stop()
	arrived := count(t, pool, `SELECT claim FROM (
	SELECT a.scope, a.operation_id, a.seq, dense_rank() OVER (ORDER BY a.started_at) AS claim FROM idempotency_effect_attempt AS a) AS a
JOIN idempotency_outbox AS o USING (scope, operation_id, seq) WHERE o.effect_key = $1`, p.key)
	within := arrived + 2 + 2 + 2*few // as before, plus the two claims that may have been in flight when they committed
	last := count(t, pool, `SELECT max(claim) FROM (
	SELECT scope, dense_rank() OVER (ORDER BY started_at) AS claim FROM idempotency_effect_attempt) AS a
WHERE scope = 'small'`)
	if last > within {
		t.Errorf("the small scope's last effect was in claim %d, want within the first %d", last, within)
	}
	t.Logf("the small scope's effects arrived during claim %d's call; its last was in claim %d", arrived, last)
}
