package outbox_test

import (
	"fmt"
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
	store := pgstore.New("")
	err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
		for range n {
			e := newEffect("email", "retry")
			e.Scope = scope
			if _, err := store.Enqueue(t.Context(), tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
